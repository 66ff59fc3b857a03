#!/usr/bin/env bash
# Background lanes per storage type (issue 16, "a slow volume must never block work on a
# fast one"): writers of an ALL_SSD table, measured, while a COLD table on a slow HDD
# volume is written in the background. With one shared flush thread the SSD table's
# flushes queue behind the HDD's slow ones, and its writers wait for memory; with lanes
# per storage type (the default) they do not.
#
#   config   [engine] lanes_per_storage_type
#   tiered   true  (flush and compaction threads per storage type)
#   shared   false (one set of lanes for every volume)
#
# Volumes are directories on tmpfs ($BASE); the HDD volume is made slow with
# `inject_latency_ms` = HDD_MS (each write handed to the OS and each sync waits that long).
# The memstores are held tight (memstore_limit_mb = LIMIT_MB, memstore_flush_mb = FLUSH_MB)
# so that writers wait for flushes.
#
# Environment: STRATA_BIN, HDD_MS=2000, LIMIT_MB=64, FLUSH_MB=2, HOT_THREADS=8,
#   HOT_ROWS=10000 (per thread), COLD_THREADS=2, VALUE_SIZE=1000, RUNS=3,
#   CONFIGS="tiered shared", BASE=/dev/shm, PORT_BASE=19400, OUT (kept).
# Rounds alternate the configurations. Prints the hot table's writes/s, p50, p99, p99.9 and
# the slowest write per run, then the medians.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/bench/lib.sh"
STRATA_BIN=${STRATA_BIN:-$ROOT/target/release/strata}
[[ -x $STRATA_BIN ]] || { echo "no strata binary at $STRATA_BIN: cargo build --release -p strata" >&2; exit 1; }
HDD_MS=${HDD_MS:-2000}
LIMIT_MB=${LIMIT_MB:-64}
FLUSH_MB=${FLUSH_MB:-2}
HOT_THREADS=${HOT_THREADS:-8}
HOT_ROWS=${HOT_ROWS:-10000}
COLD_THREADS=${COLD_THREADS:-2}
VALUE_SIZE=${VALUE_SIZE:-1000}
RUNS=${RUNS:-3}
CONFIGS=${CONFIGS:-tiered shared}
BASE=${BASE:-/dev/shm}
PORT_BASE=${PORT_BASE:-19400}
GRPC_PORT=$PORT_BASE
HTTP_PORT=$((PORT_BASE + 1))
THRIFT_PORT=$((PORT_BASE + 2))
OUT=${OUT:-$(mktemp -d /tmp/strata-tier-lanes.XXXXXX)}
mkdir -p "$OUT"

DIR=
SERVER_PID=
COLD_PID=
cleanup() {
  [[ -z $COLD_PID ]] || { kill "$COLD_PID" 2>/dev/null || true; wait "$COLD_PID" 2>/dev/null || true; }
  if [[ -n $SERVER_PID ]]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  [[ -z $DIR ]] || rm -rf "$DIR"
}
trap cleanup EXIT

config() { # config NAME DIR
  local per_type=true
  [[ $1 == shared ]] && per_type=false
  cat <<EOF
data_dir = "$2/ssd0"
grpc_port = $GRPC_PORT
http_port = $HTTP_PORT
thrift_port = $THRIFT_PORT
log_level = "warn"
storage_policy = "ALL_SSD"
wal_storage_policy = "ALL_SSD"
[[volumes]]
path = "$2/ssd0"
storage_type = "ssd"
[[volumes]]
path = "$2/hdd0"
storage_type = "hdd"
name = "hdd0"
inject_latency_ms = $HDD_MS
[engine]
memstore_flush_mb = $FLUSH_MB
memstore_limit_mb = $LIMIT_MB
auto_split = false
lanes_per_storage_type = $per_type
[mover]
interval_s = 0
EOF
}

pe() { # pe TABLE THREADS ROWS [extra...]
  local table=$1 threads=$2 rows=$3
  shift 3
  "$STRATA_BIN" bench pe randomWrite --target thrift --port "$THRIFT_PORT" --table "$table" \
    --family f --threads "$threads" --rows "$rows" --value-size "$VALUE_SIZE" --quiet "$@"
}

one_run() { # one_run CONFIG ROUND
  local name=$1 round=$2 tag="$1.$2"
  DIR=$(mktemp -d "$BASE/strata-tier-lanes.XXXXXX")
  config "$name" "$DIR" >"$OUT/$name.toml"
  start_server "$OUT/$name.toml" "$OUT/$tag.server.log" "$HTTP_PORT"
  "$STRATA_BIN" shell --port "$THRIFT_PORT" -e \
    "create 'cold', {NAME => 'f', STORAGE_POLICY => 'COLD'}; create 'hot', 'f'" >/dev/null
  echo "== $name, round $round (load average $(cut -d' ' -f1 /proc/loadavg))" >&2
  pe cold "$COLD_THREADS" 100000000 >/dev/null 2>>"$OUT/bench.log" &
  COLD_PID=$!
  sleep 2 # the cold table's first flushes are under way
  pe hot "$HOT_THREADS" "$HOT_ROWS" --json >"$OUT/$tag.hot.json" 2>>"$OUT/bench.log"
  curl -sf "http://127.0.0.1:$HTTP_PORT/api/v1/background" >"$OUT/$tag.background.json"
  kill "$COLD_PID" 2>/dev/null || true
  wait "$COLD_PID" 2>/dev/null || true
  COLD_PID=
  kill "$SERVER_PID"
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
  rm -rf "$DIR"
  DIR=
}

{
  echo "HDD_MS=$HDD_MS LIMIT_MB=$LIMIT_MB FLUSH_MB=$FLUSH_MB HOT_THREADS=$HOT_THREADS HOT_ROWS=$HOT_ROWS"
  echo "COLD_THREADS=$COLD_THREADS VALUE_SIZE=$VALUE_SIZE RUNS=$RUNS BASE=$BASE"
  echo "strata: commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
} | tee "$OUT/settings.txt" >&2
for round in $(seq 1 "$RUNS"); do
  for name in $CONFIGS; do
    one_run "$name" "$round"
  done
done
python3 - "$OUT" $CONFIGS <<'EOF'
import json, statistics, sys, glob, os
out, configs = sys.argv[1], sys.argv[2:]
print("config\trun\twrites/s\tp50 us\tp99 us\tp99.9 us\tmax us")
medians = {}
for name in configs:
    rows = []
    for path in sorted(glob.glob(os.path.join(out, name + ".*.hot.json"))):
        with open(path) as f:
            phase = [json.loads(line) for line in f if line.strip()][-1]
        op = phase["operations"][0]
        row = (phase["ops_per_sec"], op["p50_us"], op["p99_us"], op["p999_us"], op["max_us"])
        rows.append(row)
        print("%s\t%s\t%.0f\t%d\t%d\t%d\t%d" % ((name, path.split(".")[-3]) + row))
    medians[name] = [statistics.median(r[i] for r in rows) for i in range(5)]
print("\nmedians")
for name, m in medians.items():
    print("%s\t%.0f writes/s\tp50 %d us\tp99 %d us\tp99.9 %d us\tmax %d us" % (name, *m))
EOF
echo "raw results: $OUT" >&2
