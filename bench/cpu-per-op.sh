#!/usr/bin/env bash
# CPU time per operation, server and client apart, through gRPC or Thrift: cached point reads
# (PE randomRead) or a YCSB core workload.
#
# Why: on a 2-core machine the client and the server share the cores, so throughput is bounded
# by 2 / (server CPU per op + client CPU per op). This prints both and that bound, to tell
# how far a target is from what the machine can do at all.
#
#   bench/cpu-per-op.sh [grpc|thrift] [pe|ycsb-a|ycsb-b|ycsb-c|...]
#     env: STRATA_BIN, THREADS=16
#     pe (default): ROWS=6250 per thread, VALUE_SIZE=1024; THREADS x ROWS rows written, then
#       each read once on average, every read a hit.
#     ycsb-X: RECORDS=100000 records of FIELD_COUNT=10 x FIELD_LENGTH=100 bytes loaded (in
#       batches of LOAD_BATCH=100, not measured), then OPERATIONS=200000 of workload X
#       measured, with the same options as bench/compare-hbase.sh. BEFORE="a b" first runs
#       those workloads on the loaded data, not measured (compare-hbase.sh runs C after A and
#       B: their updates leave many versions of hot rows in the memstore).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${1:-grpc}
MODE=${2:-pe}
THREADS=${THREADS:-16}
ROWS=${ROWS:-6250}
VALUE_SIZE=${VALUE_SIZE:-1024}
STRATA_BIN=${STRATA_BIN:-$ROOT/target/release/strata}
[[ -x $STRATA_BIN ]] || { echo "no strata binary at $STRATA_BIN: cargo build --release -p strata" >&2; exit 1; }

DIR=$(mktemp -d /tmp/strata-cpu.XXXXXX)
PORT=$((54000 + RANDOM % 1000))
case $TARGET in
  grpc) PORTS=(--thrift-port 0 --grpc-port "$PORT") ;;
  thrift) PORTS=(--thrift-port "$PORT" --grpc-port 0) ;;
  *) echo "target must be grpc or thrift" >&2; exit 2 ;;
esac
"$STRATA_BIN" server --data-dir "$DIR/data" "${PORTS[@]}" --http-port 0 >"$DIR/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DIR"' EXIT
for _ in $(seq 1 100); do grep -q listening "$DIR/server.log" && break; sleep 0.1; done

server_ticks() { awk '{print $14 + $15}' "/proc/$SERVER/stat"; }
measure() { # measure ARGS...: one `strata bench` run, client CPU to $DIR/time, server ticks around it
  before=$(server_ticks)
  /usr/bin/time -f "client_cpu %U %S" -o "$DIR/time" "$STRATA_BIN" bench "$@" --quiet >"$DIR/out"
  after=$(server_ticks)
}
case $MODE in
  pe)
    common=(--target "$TARGET" --port "$PORT" --table CpuPerOp --value-size "$VALUE_SIZE" --threads "$THREADS")
    "$STRATA_BIN" bench pe sequentialWrite "${common[@]}" --rows "$ROWS" --quiet >/dev/null
    measure pe randomRead "${common[@]}" --rows "$ROWS"
    OPS=$((THREADS * ROWS)) ;;
  ycsb-?)
    RECORDS=${RECORDS:-100000}
    OPERATIONS=${OPERATIONS:-200000}
    common=(--target "$TARGET" --port "$PORT" --threads "$THREADS" --recordcount "$RECORDS"
      --operationcount "$OPERATIONS" --field-count "${FIELD_COUNT:-10}"
      --field-length "${FIELD_LENGTH:-100}")
    "$STRATA_BIN" bench ycsb load a "${common[@]}" --batch-size "${LOAD_BATCH:-100}" --quiet >/dev/null
    for w in ${BEFORE:-}; do "$STRATA_BIN" bench ycsb run "$w" "${common[@]}" --quiet >/dev/null; done
    measure ycsb run "${MODE#ycsb-}" "${common[@]}"
    OPS=$OPERATIONS ;;
  *) echo "mode must be pe or ycsb-<workload>" >&2; exit 2 ;;
esac
grep -h "ops/s" "$DIR/out" | head -1
read -r _ user sys <"$DIR/time"
python3 - "$before" "$after" "$(getconf CLK_TCK)" "$user" "$sys" "$OPS" <<'PY'
import sys
before, after, tick, user, sys_, ops = map(float, sys.argv[1:])
server = (after - before) / tick
client = user + sys_
print(f"server CPU {server:.2f} s = {server / ops * 1e6:.1f} us/op; "
      f"client CPU {client:.2f} s = {client / ops * 1e6:.1f} us/op; "
      f"bound on 2 cores: {2 / ((server + client) / ops):,.0f} ops/s "
      f"(server alone on 2 cores: {2 / (server / ops):,.0f})")
PY
