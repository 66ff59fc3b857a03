"""Large values and rows: a 10 MiB cell written and read back through both Python client
APIs, split across ReadRows messages that each stay under gRPC's default 4 MiB receive
limit; rows of several multi-MiB cells; many rows streamed in bounded messages. (Google's Go
emulator sends each row as one message, which the client refuses above 4 MiB: these tests
are Strata-only.)"""

import hashlib
import os

from google.cloud.bigtable.data import ReadRowsQuery
from google.cloud.bigtable.data import mutations as dm

MiB = 1024 * 1024
CLIENT_LIMIT = 4 * MiB


def blob(size, seed):
    """Deterministic, incompressible-looking bytes."""
    out = bytearray()
    counter = 0
    while len(out) < size:
        out += hashlib.sha256(b"%d-%d" % (seed, counter)).digest()
        counter += 1
    return bytes(out[:size])


def raw_messages(client, table, **request):
    request["table_name"] = table.name
    return list(client.table_data_client.read_rows(request=request))


def sizes(messages):
    return [type(m).pb(m).ByteSize() for m in messages]


def test_a_ten_mebibyte_value_round_trips_through_the_classic_api(strata_only, data_table, client):
    table = data_table()
    value = blob(10 * MiB, 1)
    row = table.direct_row(b"big")
    row.set_cell("cf", b"q", value)
    row.commit()
    got = table.read_row(b"big")
    assert got.cells["cf"][b"q"][0].value == value
    messages = raw_messages(client, table)
    assert len(messages) >= 3, "the cell is split across messages"
    assert max(sizes(messages)) < CLIENT_LIMIT
    first = messages[0].chunks[0]
    assert first.value_size == len(value)


def test_large_values_round_trip_through_the_data_client(strata_only, data_table, data_client):
    table = data_table()
    t = data_client.get_table("default", table.table_id)
    values = {b"r%d" % i: blob(size, i) for i, size in enumerate([12 * MiB, 3 * MiB, 1, 0])}
    for key, value in values.items():
        t.mutate_row(key, [dm.SetCell("cf", b"q", value, timestamp_micros=1000)])
    rows = list(t.read_rows(ReadRowsQuery()))
    assert [r.row_key for r in rows] == sorted(values)
    for r in rows:
        assert r.cells[0].value == values[r.row_key]


def test_a_row_of_many_multi_mebibyte_cells_keeps_messages_small(strata_only, data_table, data_client, client):
    table = data_table()
    t = data_client.get_table("default", table.table_id)
    cells = {b"c%d" % i: blob(3 * MiB - 100 + i, 10 + i) for i in range(6)}
    t.mutate_row(b"wide", [dm.SetCell("cf", q, v) for q, v in cells.items()])
    [row] = list(t.read_rows(ReadRowsQuery(row_keys=[b"wide"])))
    assert {c.qualifier: c.value for c in row.cells} == cells
    messages = raw_messages(client, table)
    assert max(sizes(messages)) < CLIENT_LIMIT
    assert len(messages) >= 6, "each multi-MiB cell starts a message"


def test_many_rows_stream_in_bounded_messages(strata_only, data_table, data_client, client):
    table = data_table()
    t = data_client.get_table("default", table.table_id)
    value = os.urandom(100 * 1024)
    for batch in range(4):
        t.bulk_mutate_rows(
            [dm.RowMutationEntry(b"row%04d" % (batch * 50 + i), [dm.SetCell("cf", b"q", value)]) for i in range(50)]
        )
    rows = list(t.read_rows(ReadRowsQuery()))
    assert len(rows) == 200 and all(r.cells[0].value == value for r in rows)
    messages = raw_messages(client, table)
    assert 5 <= len(messages) <= 100, "rows share messages up to the target size"
    assert max(sizes(messages)) < CLIENT_LIMIT


def test_a_large_mutate_rows_request_is_accepted(data_table, data_client):
    table = data_table()
    t = data_client.get_table("default", table.table_id)
    value = blob(2 * MiB, 99)
    entries = [dm.RowMutationEntry(b"k%02d" % i, [dm.SetCell("cf", b"q", value)]) for i in range(12)]
    t.bulk_mutate_rows(entries)  # about 24 MiB in one or more requests
    assert sum(1 for _ in t.read_rows(ReadRowsQuery())) == 12
