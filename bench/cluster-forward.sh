#!/usr/bin/env bash
# What forwarding costs in cluster mode: CPU per operation of the master (the clients'
# entry) and of the region's owner, for cached point reads (PE randomRead over Thrift), with
# the table's one region on the master itself and then moved to the other server.
#
#   bench/cluster-forward.sh          env: STRATA_BIN, THREADS=8, ROWS=5000, VALUE_SIZE=100
#
# Starts etcd and S3Proxy (scripts/etcd-env, scripts/s3proxy-env) and two servers on
# loopback, and stops them all by PID at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
THREADS=${THREADS:-8}
ROWS=${ROWS:-5000}
VALUE_SIZE=${VALUE_SIZE:-100}
STRATA_BIN=${STRATA_BIN:-$ROOT/target/release/strata}
[[ -x $STRATA_BIN ]] || { echo "no strata binary at $STRATA_BIN: cargo build --release -p strata" >&2; exit 1; }

DIR=$(mktemp -d /tmp/strata-forward.XXXXXX)
eval "$(scripts/etcd-env start)"
eval "$(scripts/s3proxy-env start)"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  scripts/s3proxy-env stop "$S3PROXY_PID" >/dev/null 2>&1 || true
  scripts/etcd-env stop "$ETCD_PID" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT

start_server() { # start_server INDEX
  local i=$1
  "$STRATA_BIN" server --cluster "fw$$" --etcd "$STRATA_ETCD_ENDPOINT" --store "$STRATA_S3_TEST_STORE" \
    --data-dir "$DIR/s$i" --thrift-port "2809$i" --grpc-port 0 --http-port 0 --peer-port "2819$i" \
    >"$DIR/s$i.log" 2>&1 &
  PIDS+=($!)
}
wait_for() { for _ in $(seq 1 300); do grep -qs "$2" "$1" && return; sleep 0.1; done; echo "timeout: $1" >&2; tail -5 "$1" >&2; exit 1; }
start_server 1
# Server 1 leads (administration from the shell needs a master); server 2's "standing by"
# comes after its "listening on" and names its server id.
wait_for "$DIR/s1.log" "acting as master"
start_server 2
wait_for "$DIR/s2.log" "listening on"
wait_for "$DIR/s2.log" "standing by"
MASTER=${PIDS[0]} OWNER=${PIDS[1]}
SID2=$(sed -n 's/.*as server \([0-9]*\);.*/\1/p' "$DIR/s2.log" | tail -1)
shell() { "$STRATA_BIN" shell --port 28091 -e "$1"; }
shell "balance_switch false" >/dev/null
common=(--target thrift --port 28091 --table Forward --value-size "$VALUE_SIZE" --threads "$THREADS")
"$STRATA_BIN" bench pe sequentialWrite "${common[@]}" --rows "$ROWS" --quiet >/dev/null

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
measure() { # measure LABEL
  "$STRATA_BIN" bench pe randomRead "${common[@]}" --rows "$ROWS" --quiet >/dev/null # warm
  local m0 o0 m1 o1
  m0=$(ticks "$MASTER"); o0=$(ticks "$OWNER")
  "$STRATA_BIN" bench pe randomRead "${common[@]}" --rows "$ROWS" --quiet >"$DIR/out"
  m1=$(ticks "$MASTER"); o1=$(ticks "$OWNER")
  python3 - "$1" "$m0" "$m1" "$o0" "$o1" "$(getconf CLK_TCK)" "$((THREADS * ROWS))" "$(grep -h 'ops/s' "$DIR/out" | head -1)" <<'PY'
import sys
label, m0, m1, o0, o1, tick, ops, line = sys.argv[1], *map(float, sys.argv[2:8]), sys.argv[8]
master, owner = (m1 - m0) / tick / ops * 1e6, (o1 - o0) / tick / ops * 1e6
print(f"{label}: master {master:.1f} us/op, other server {owner:.1f} us/op, total {master + owner:.1f} us/op; {line.strip()}")
PY
}
ENCODED=$(shell "list_regions 'Forward'" | sed -n 2p | awk -F'|' '{gsub(/ /, "", $2); print $2}')
shell "move '$ENCODED', '$(sed -n 's/.*as server \([0-9]*\);.*/\1/p' "$DIR/s1.log" | tail -1)'" >/dev/null
measure "region on the master (no hop)"
shell "move '$ENCODED', '$SID2'" >/dev/null
measure "region on the other server (one hop)"
