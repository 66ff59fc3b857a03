#!/usr/bin/env bash
# Strata against Apache HBase through the same Thrift1 client code (`strata bench --target
# thrift`): starts the HBase anchor (../shared/anchors/hbase, Thrift on 127.0.0.1:9090,
# buffered binary), runs the workloads, stops it, then starts `strata server` on a temporary
# data dir and runs the same workloads. Prints throughput and p50/p99/p99.9 per workload with
# the Strata/HBase ratios, then a gRPC point-read run against Strata alone.
#
# Run it on a quiet machine; every knob is an environment variable:
#   THREADS=16 VALUE_SIZE=1024 ROWS=10000 (PE rows per thread) RECORDS=100000
#   OPERATIONS=200000 (YCSB; 10 fields x FIELD_LENGTH=100 bytes = 1 KB records)
#   GRPC_THREADS=16 GRPC_ROWS=100000 GRPC_READS=1000000 (1 KB rows, cached point reads)
#   STRATA_BIN (default: target/release/strata, or $CARGO_TARGET_DIR/release/strata)
#   HBASE_ANCHOR (default ../shared/anchors/hbase from the repository root),
#   STRATA_THRIFT_PORT=19090, STRATA_GRPC_PORT=50551, SKIP_HBASE=1, SKIP_GRPC=1,
#   KEEP_OUT=1 (keep the JSON results)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
THREADS=${THREADS:-16}
VALUE_SIZE=${VALUE_SIZE:-1024}
ROWS=${ROWS:-10000}
RECORDS=${RECORDS:-100000}
OPERATIONS=${OPERATIONS:-200000}
FIELD_LENGTH=${FIELD_LENGTH:-100}
GRPC_THREADS=${GRPC_THREADS:-16}
GRPC_ROWS=${GRPC_ROWS:-100000}
GRPC_READS=${GRPC_READS:-1000000}
HBASE_ANCHOR=${HBASE_ANCHOR:-$ROOT/../shared/anchors/hbase}
STRATA_THRIFT_PORT=${STRATA_THRIFT_PORT:-19090}
STRATA_GRPC_PORT=${STRATA_GRPC_PORT:-50551}
STRATA_BIN=${STRATA_BIN:-$ROOT/target/release/strata}
[[ -x $STRATA_BIN ]] || STRATA_BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release/strata
[[ -x $STRATA_BIN ]] || { echo "no strata binary at $STRATA_BIN: cargo build --release -p strata" >&2; exit 1; }

OUT=$(mktemp -d /tmp/strata-compare.XXXXXX)
SERVER_PID=
cleanup() {
  [[ -n $SERVER_PID ]] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
  [[ -n "${KEEP_OUT:-}" ]] || rm -rf "$OUT"
}
trap cleanup EXIT

bench() { # bench SYSTEM ARGS... : one strata bench run, JSON lines appended to $OUT/SYSTEM.jsonl
  local system=$1; shift
  echo "  [$system] strata bench $*" >&2
  "$STRATA_BIN" bench "$@" --json --quiet >>"$OUT/$system.jsonl" 2>>"$OUT/$system.log"
}

suite() { # suite SYSTEM PORT: the Thrift workloads
  local system=$1 port=$2
  local t=(--target thrift --port "$port" --threads "$THREADS")
  bench "$system" pe randomWrite "${t[@]}" --rows "$ROWS" --value-size "$VALUE_SIZE" --table PeRandom
  # randomRead, scanRange100 and increment run on sequentially written rows, as in PE.
  bench "$system" pe sequentialWrite randomRead scanRange100 increment "${t[@]}" \
    --rows "$ROWS" --value-size "$VALUE_SIZE" --table TestTable
  local y=(--recordcount "$RECORDS" --operationcount "$OPERATIONS" --field-length "$FIELD_LENGTH")
  bench "$system" ycsb load a "${t[@]}" "${y[@]}" --batch-size 1
  for w in a b c; do bench "$system" ycsb run "$w" "${t[@]}" "${y[@]}"; done
}

uptime | tee "$OUT/uptime-start"
if [[ -z "${SKIP_HBASE:-}" ]]; then
  echo "starting Apache HBase (anchor) ..." >&2
  "$HBASE_ANCHOR/start.sh" --clean >"$OUT/hbase-start.log" 2>&1
  if ! suite hbase 9090; then
    echo "HBase run failed; see $OUT/hbase.log" >&2
    KEEP_OUT=1
  fi
  "$HBASE_ANCHOR/stop.sh" >"$OUT/hbase-stop.log" 2>&1 || true
fi

echo "starting Strata ..." >&2
mkdir -p "$OUT/strata-data"
"$STRATA_BIN" server --data-dir "$OUT/strata-data" --thrift-port "$STRATA_THRIFT_PORT" \
  --grpc-port "$STRATA_GRPC_PORT" --http-port 0 >"$OUT/strata-server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do
  grep -q listening "$OUT/strata-server.log" 2>/dev/null && break
  sleep 0.1
done
grep -q listening "$OUT/strata-server.log" || { cat "$OUT/strata-server.log" >&2; exit 1; }
suite strata "$STRATA_THRIFT_PORT"
if [[ -z "${SKIP_GRPC:-}" ]]; then
  g=(--target grpc --port "$STRATA_GRPC_PORT" --table GrpcReads --value-size 1024)
  per_thread=$(( GRPC_ROWS / GRPC_THREADS ))
  # randomRead draws from rows x threads rows: the same table, read GRPC_READS times.
  if ! { bench grpc pe sequentialWrite "${g[@]}" --threads "$GRPC_THREADS" --rows "$per_thread" --batch-size 100 &&
         bench grpc pe randomRead "${g[@]}" --threads "$GRPC_THREADS" --rows "$(( GRPC_READS / GRPC_THREADS ))"; }; then
    echo "gRPC run failed (is the Bigtable Data API served?); see $OUT/grpc.log" >&2
    KEEP_OUT=1
  fi
fi
kill "$SERVER_PID" && wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=
uptime | tee "$OUT/uptime-end"

python3 - "$OUT" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
def load(name):
    p = out / f"{name}.jsonl"
    rows = {}
    if p.exists():
        for line in p.read_text().splitlines():
            phase = json.loads(line)
            for op in phase["operations"]:
                rows[(phase["phase"], op["op"])] = op
    return rows
hbase, strata, grpc = load("hbase"), load("strata"), load("grpc")
def ratio(a, b):
    return f"{a / b:6.2f}" if a and b else "     -"
print(f"\n{'workload / op':<30} {'system':<7} {'ops/s':>10} {'p50 us':>9} {'p99 us':>9} {'p99.9 us':>9} {'misses':>7}")
keys = list(dict.fromkeys(list(hbase) + list(strata)))
for key in keys:
    for name, rows in (("hbase", hbase), ("strata", strata)):
        op = rows.get(key)
        if op:
            print(f"{key[0] + ' / ' + key[1]:<30} {name:<7} {op['ops_per_sec']:>10.0f} {op['p50_us']:>9.0f} "
                  f"{op['p99_us']:>9.0f} {op['p999_us']:>9.0f} {op['misses']:>7}")
    h, s = hbase.get(key), strata.get(key)
    if h and s:
        print(f"{'':<30} {'S/H':<7} {ratio(s['ops_per_sec'], h['ops_per_sec']):>10} {ratio(s['p50_us'], h['p50_us']):>9} "
              f"{ratio(s['p99_us'], h['p99_us']):>9} {ratio(s['p999_us'], h['p999_us']):>9}")
for key, op in grpc.items():
    print(f"grpc {key[0] + ' / ' + key[1]:<25} {'strata':<7} {op['ops_per_sec']:>10.0f} {op['p50_us']:>9.0f} "
          f"{op['p99_us']:>9.0f} {op['p999_us']:>9.0f} {op['misses']:>7}")
PY
[[ -n "${KEEP_OUT:-}" ]] && echo "results kept in $OUT" >&2 || true
