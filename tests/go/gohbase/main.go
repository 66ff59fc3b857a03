// Command gohbase-check drives a server through gohbase, a Go HBase client that finds
// the cluster through ZooKeeper alone and asks for KeyValue cell blocks. It checks, against
// Strata or a real HBase, that a second client stack (Go protobufs, gohbase's meta parsing,
// its region cache) agrees with the server on every answer.
//
// Usage: gohbase-check -zk host:port [-table name]. Exits non-zero on the first mismatch.
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	log "github.com/sirupsen/logrus"
	"github.com/tsuna/gohbase"
	"github.com/tsuna/gohbase/filter"
	"github.com/tsuna/gohbase/hrpc"
)

const family = "cf"

// Split points giving three regions: [,g) [g,p) [p,).
var splits = [][]byte{[]byte("g"), []byte("p")}

// Rows written by the check, at least one in every region.
var rows = []string{"a1", "a2", "h1", "h2", "q1", "q2", "z1"}

type checker struct {
	admin  gohbase.AdminClient
	client gohbase.Client
	table  string
	steps  int
}

func main() {
	zk := flag.String("zk", "127.0.0.1:2181", "ZooKeeper quorum")
	table := flag.String("table", "gohbase_check", "table to create (dropped first if it exists)")
	flag.Parse()
	// gohbase logs every region lookup at info level; only its warnings help here.
	log.SetLevel(log.WarnLevel)

	c := &checker{
		admin: gohbase.NewAdminClient(*zk),
		client: gohbase.NewClient(*zk,
			gohbase.RegionLookupTimeout(10*time.Second),
			gohbase.RegionReadTimeout(10*time.Second)),
		table: *table,
	}
	defer c.client.Close()
	if err := c.run(); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL after %d steps: %v\n", c.steps, err)
		os.Exit(1)
	}
	fmt.Printf("GOHBASE OK (%d steps)\n", c.steps)
}

func (c *checker) run() error {
	steps := []struct {
		name string
		run  func(context.Context) error
	}{
		{"create table with split keys", c.createTable},
		{"put rows into every region", c.putRows},
		{"get every row back", c.getRows},
		{"delete a row", c.deleteRow},
		{"increment a counter", c.increment},
		{"checkAndPut", c.checkAndPut},
		{"scan forward over all regions", c.scanForward},
		{"scan forward two rows per call", c.scanInSmallBatches},
		{"scan a range", c.scanRange},
		{"scan with a prefix filter", c.scanPrefix},
		{"scan reversed", c.scanReversed},
		{"scan reversed without a start row", c.scanReversedWithoutStart},
		{"scan a range reversed", c.scanRangeReversed},
		{"drop the table", c.dropTable},
	}
	for _, step := range steps {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := step.run(ctx)
		cancel()
		if err != nil {
			return fmt.Errorf("%s: %w", step.name, err)
		}
		c.steps++
		fmt.Printf("ok   %s\n", step.name)
	}
	return nil
}

func (c *checker) createTable(ctx context.Context) error {
	// A table left by an earlier, failed run: drop it, ignoring "not found" and
	// "not enabled" (the answers differ between servers; the create below is what counts).
	_ = c.admin.DisableTable(hrpc.NewDisableTable(ctx, []byte(c.table)))
	_ = c.admin.DeleteTable(hrpc.NewDeleteTable(ctx, []byte(c.table)))
	families := map[string]map[string]string{family: {"VERSIONS": "1"}}
	create := hrpc.NewCreateTable(ctx, []byte(c.table), families, hrpc.SplitKeys(splits))
	if err := c.admin.CreateTable(create); err != nil {
		return err
	}
	list, err := hrpc.NewListTableNames(ctx, hrpc.ListRegex(c.table))
	if err != nil {
		return err
	}
	names, err := c.admin.ListTableNames(list)
	if err != nil {
		return err
	}
	for _, name := range names {
		if string(name.GetQualifier()) == c.table {
			return nil
		}
	}
	return fmt.Errorf("created table %q is not listed (got %v)", c.table, names)
}

func value(row string) []byte { return []byte("value-of-" + row) }

func (c *checker) put(ctx context.Context, row string, cells map[string][]byte) error {
	put, err := hrpc.NewPutStr(ctx, c.table, row, map[string]map[string][]byte{family: cells})
	if err != nil {
		return err
	}
	_, err = c.client.Put(put)
	return err
}

func (c *checker) putRows(ctx context.Context) error {
	for i, row := range rows {
		cells := map[string][]byte{"v": value(row), "n": {byte(i)}}
		if err := c.put(ctx, row, cells); err != nil {
			return fmt.Errorf("put %s: %w", row, err)
		}
	}
	return nil
}

// get returns the row's cells by qualifier (an empty map for a missing row).
func (c *checker) get(ctx context.Context, row string) (map[string][]byte, error) {
	get, err := hrpc.NewGetStr(ctx, c.table, row)
	if err != nil {
		return nil, err
	}
	result, err := c.client.Get(get)
	if err != nil {
		return nil, err
	}
	cells := make(map[string][]byte)
	for _, cell := range result.Cells {
		if string(cell.Row) != row || string(cell.Family) != family {
			return nil, fmt.Errorf("get %s answered a cell of %s/%s", row, cell.Row, cell.Family)
		}
		cells[string(cell.Qualifier)] = cell.Value
	}
	return cells, nil
}

func (c *checker) getRows(ctx context.Context) error {
	for i, row := range rows {
		cells, err := c.get(ctx, row)
		if err != nil {
			return fmt.Errorf("get %s: %w", row, err)
		}
		if len(cells) != 2 || !bytes.Equal(cells["v"], value(row)) ||
			!bytes.Equal(cells["n"], []byte{byte(i)}) {
			return fmt.Errorf("get %s: got %q", row, cells)
		}
	}
	cells, err := c.get(ctx, "missing")
	if err != nil {
		return err
	}
	if len(cells) != 0 {
		return fmt.Errorf("a missing row has cells: %q", cells)
	}
	return nil
}

func (c *checker) deleteRow(ctx context.Context) error {
	del, err := hrpc.NewDelStr(ctx, c.table, "h2", nil)
	if err != nil {
		return err
	}
	if _, err := c.client.Delete(del); err != nil {
		return err
	}
	cells, err := c.get(ctx, "h2")
	if err != nil {
		return err
	}
	if len(cells) != 0 {
		return fmt.Errorf("deleted row h2 still has %q", cells)
	}
	return nil
}

func (c *checker) increment(ctx context.Context) error {
	for _, step := range []struct{ by, want int64 }{{5, 5}, {3, 8}, {-10, -2}} {
		inc, err := hrpc.NewIncStrSingle(ctx, c.table, "counter", family, "hits", step.by)
		if err != nil {
			return err
		}
		got, err := c.client.Increment(inc)
		if err != nil {
			return err
		}
		if got != step.want {
			return fmt.Errorf("increment by %d gave %d, want %d", step.by, got, step.want)
		}
	}
	cells, err := c.get(ctx, "counter")
	if err != nil {
		return err
	}
	// A counter is stored as an 8-byte big-endian integer.
	if hits := cells["hits"]; len(hits) != 8 || int64(binary.BigEndian.Uint64(hits)) != -2 {
		return fmt.Errorf("counter cell is %x", cells["hits"])
	}
	return nil
}

func (c *checker) checkAndPut(ctx context.Context) error {
	attempt := func(row string, expected []byte, newValue string) (bool, error) {
		put, err := hrpc.NewPutStr(ctx, c.table, row,
			map[string]map[string][]byte{family: {"v": []byte(newValue)}})
		if err != nil {
			return false, err
		}
		return c.client.CheckAndPut(put, family, "v", expected)
	}
	cases := []struct {
		row      string
		expected []byte
		newValue string
		want     bool
	}{
		{"a1", value("a1"), "changed", true},   // matches: applied
		{"a1", value("a1"), "again", false},    // no longer matches
		{"b1", nil, "created", true},           // nil expects the cell to be absent
		{"b1", nil, "twice", false},            // now it exists
		{"z1", []byte("wrong"), "nope", false}, // a different value
	}
	for _, tc := range cases {
		got, err := attempt(tc.row, tc.expected, tc.newValue)
		if err != nil {
			return fmt.Errorf("%s expecting %q: %w", tc.row, tc.expected, err)
		}
		if got != tc.want {
			return fmt.Errorf("%s expecting %q: processed=%v, want %v", tc.row, tc.expected, got, tc.want)
		}
	}
	for row, want := range map[string]string{"a1": "changed", "b1": "created", "z1": string(value("z1"))} {
		cells, err := c.get(ctx, row)
		if err != nil {
			return err
		}
		if string(cells["v"]) != want {
			return fmt.Errorf("after checkAndPut %s:v is %q, want %q", row, cells["v"], want)
		}
	}
	return nil
}

// scanRows runs a scan and returns its row keys in the order they came, checking that
// every result is one whole row.
func (c *checker) scanRows(scan *hrpc.Scan) ([]string, error) {
	scanner := c.client.Scan(scan)
	defer scanner.Close()
	var keys []string
	for {
		result, err := scanner.Next()
		if errors.Is(err, io.EOF) {
			return keys, nil
		}
		if err != nil {
			return keys, err
		}
		if len(result.Cells) == 0 {
			return keys, fmt.Errorf("an empty result after %v", keys)
		}
		row := string(result.Cells[0].Row)
		got := make(map[string][]byte)
		for _, cell := range result.Cells {
			if string(cell.Row) != row || string(cell.Family) != family {
				return keys, fmt.Errorf("result of row %s has a cell of %s/%s", row, cell.Row, cell.Family)
			}
			got[string(cell.Qualifier)] = cell.Value
		}
		if err := expectCells(row, got); err != nil {
			return keys, fmt.Errorf("scan: %w", err)
		}
		keys = append(keys, row)
	}
}

// Every row the table holds after the steps before the scans, in key order.
var allRows = []string{"a1", "a2", "b1", "counter", "h1", "q1", "q2", "z1"}

// expectCells checks a scanned row's cells (qualifier to value) against what the steps
// before the scans left in it: the puts, the checkAndPuts and the counter.
func expectCells(row string, got map[string][]byte) error {
	want := map[string][]byte{}
	switch row {
	case "a1":
		want = map[string][]byte{"v": []byte("changed"), "n": {0}}
	case "b1":
		want = map[string][]byte{"v": []byte("created")}
	case "counter":
		counter := int64(-2)
		hits := binary.BigEndian.AppendUint64(nil, uint64(counter))
		want = map[string][]byte{"hits": hits}
	default:
		for i, r := range rows {
			if r == row {
				want = map[string][]byte{"v": value(row), "n": {byte(i)}}
			}
		}
	}
	if len(got) != len(want) {
		return fmt.Errorf("row %s has cells %q, want %q", row, got, want)
	}
	for qualifier, v := range want {
		if !bytes.Equal(got[qualifier], v) {
			return fmt.Errorf("row %s: %s is %q, want %q", row, qualifier, got[qualifier], v)
		}
	}
	return nil
}

func expectRows(got, want []string) error {
	if strings.Join(got, ",") != strings.Join(want, ",") {
		return fmt.Errorf("rows %v, want %v", got, want)
	}
	return nil
}

func (c *checker) scanForward(ctx context.Context) error {
	scan, err := hrpc.NewScanStr(ctx, c.table)
	if err != nil {
		return err
	}
	got, err := c.scanRows(scan)
	if err != nil {
		return err
	}
	return expectRows(got, allRows)
}

func (c *checker) scanInSmallBatches(ctx context.Context) error {
	// Two rows per call: every region takes several scan calls on one scanner.
	scan, err := hrpc.NewScanStr(ctx, c.table, hrpc.NumberOfRows(2))
	if err != nil {
		return err
	}
	got, err := c.scanRows(scan)
	if err != nil {
		return err
	}
	return expectRows(got, allRows)
}

func (c *checker) scanRange(ctx context.Context) error {
	// From inside the first region to inside the last: start inclusive, stop exclusive.
	scan, err := hrpc.NewScanRangeStr(ctx, c.table, "b1", "q2")
	if err != nil {
		return err
	}
	got, err := c.scanRows(scan)
	if err != nil {
		return err
	}
	return expectRows(got, []string{"b1", "counter", "h1", "q1"})
}

func (c *checker) scanPrefix(ctx context.Context) error {
	scan, err := hrpc.NewScanStr(ctx, c.table, hrpc.Filters(filter.NewPrefixFilter([]byte("q"))))
	if err != nil {
		return err
	}
	got, err := c.scanRows(scan)
	if err != nil {
		return err
	}
	return expectRows(got, []string{"q1", "q2"})
}

func (c *checker) scanReversed(ctx context.Context) error {
	// From above every row: gohbase starts in the last region and, at each region's start,
	// goes on in the region below from just under that start key.
	scan, err := hrpc.NewScanRangeStr(ctx, c.table, "\xff", "", hrpc.Reversed())
	if err != nil {
		return err
	}
	got, err := c.scanRows(scan)
	if err != nil {
		return err
	}
	want := make([]string, len(allRows))
	for i, row := range allRows {
		want[len(allRows)-1-i] = row
	}
	return expectRows(got, want)
}

func (c *checker) scanReversedWithoutStart(ctx context.Context) error {
	// This gohbase version sends a reversed scan without a start row to the region of the
	// empty row, the first one, and stops when that region ends. A region answers only its
	// own rows (as an HBase region server does), so only the first region's come back.
	scan, err := hrpc.NewScanStr(ctx, c.table, hrpc.Reversed())
	if err != nil {
		return err
	}
	got, err := c.scanRows(scan)
	if err != nil {
		return err
	}
	return expectRows(got, []string{"counter", "b1", "a2", "a1"})
}

func (c *checker) scanRangeReversed(ctx context.Context) error {
	// Reversed, the start row is the high bound (inclusive) and the stop row the low one
	// (exclusive); both lie inside regions, so the scan crosses a region edge downwards.
	scan, err := hrpc.NewScanRangeStr(ctx, c.table, "q2", "b1", hrpc.Reversed())
	if err != nil {
		return err
	}
	got, err := c.scanRows(scan)
	if err != nil {
		return err
	}
	return expectRows(got, []string{"q2", "q1", "h1", "counter"})
}

func (c *checker) dropTable(ctx context.Context) error {
	if err := c.admin.DisableTable(hrpc.NewDisableTable(ctx, []byte(c.table))); err != nil {
		return fmt.Errorf("disable: %w", err)
	}
	if err := c.admin.DeleteTable(hrpc.NewDeleteTable(ctx, []byte(c.table))); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	return nil
}
