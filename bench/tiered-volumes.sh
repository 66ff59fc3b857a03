#!/usr/bin/env bash
# Seed 000's tiered-storage experiment ("HDFS HSM and HBase"), scaled to one machine
# (issue 16): a write-heavy YCSB load, then workload A (50 % reads, 50 % updates), through
# `strata server` and the Bigtable gRPC API, with the WAL and flushes on a fast volume and
# compactions on a slow one, against everything on the slow one; then the latency-aware
# volume chooser and WAL groups with one slow device.
#
# Every volume is a directory on tmpfs ($BASE), so the device itself costs nothing; a
# volume is made slow with `inject_latency_ms` (docs/operations.md, "Slow volumes for
# benchmarks"): each write handed to the OS and each sync there waits LATENCY_MS first.
#
#   config          volumes (type, + injected latency)       policies / engine keys
#   all-fast        ssd0 (ssd), hdd0 (hdd)                   WAL ALL_SSD, data ONE_SSD
#   fast-slow       ssd0 (ssd), hdd0 (hdd, +L)               WAL ALL_SSD, data ONE_SSD
#   all-slow        ssd0 (ssd, +L), hdd0 (hdd, +L)           WAL HOT, data HOT (all on hdd0)
#   chooser-on      ssd0 (ssd), ssd1 (ssd, +L)               ALL_SSD; WAL stays on ssd0
#   chooser-off     as chooser-on                            + avoid_slow_volumes = false
#   wal-1           ssd0 (ssd, +L), ssd1 (ssd)               ALL_SSD; the one WAL on ssd0
#   wal-per-volume  as wal-1                                 + wal_groups = "per_volume"
#   tight-on        ssd0 (ssd), ssd1 (ssd, +TIGHT_MS)        ALL_SSD, memstore_limit_mb =
#                                                            TIGHT_MB: writers wait for flushes
#   tight-off       as tight-on                              + avoid_slow_volumes = false
#
# ONE_SSD puts WAL segments and flushed files on ssd and compacted files on hdd (HBase's
# 1T_SSD_HDD case of the seed); HOT puts everything on hdd (1T_HDD).
#
# Environment: STRATA_BIN, RECORDS=100000, OPERATIONS=100000, THREADS=16, REGIONS=10,
#   LATENCY_MS=2, FLUSH_MB=2, RUNS=3, TIGHT_MS=20, TIGHT_MB=8, CONFIGS (a subset of the
#   names above, in order; the default leaves out tight-on and tight-off),
#   BASE=/dev/shm, PORT_BASE=19300 (grpc; http is PORT_BASE+1, thrift PORT_BASE+2),
#   OUT (kept; default a new directory under /tmp).
# Rounds alternate the configurations (round 1: every configuration, round 2: ...). The
# table of medians comes from bench/tiered/summarize.py; every run's JSON stays in $OUT.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/bench/lib.sh"
STRATA_BIN=${STRATA_BIN:-$ROOT/target/release/strata}
[[ -x $STRATA_BIN ]] || { echo "no strata binary at $STRATA_BIN: cargo build --release -p strata" >&2; exit 1; }
RECORDS=${RECORDS:-100000}
OPERATIONS=${OPERATIONS:-100000}
THREADS=${THREADS:-16}
REGIONS=${REGIONS:-10}
LATENCY_MS=${LATENCY_MS:-2}
FLUSH_MB=${FLUSH_MB:-2}
TIGHT_MS=${TIGHT_MS:-20}
TIGHT_MB=${TIGHT_MB:-8}
RUNS=${RUNS:-3}
CONFIGS=${CONFIGS:-all-fast fast-slow all-slow chooser-on chooser-off wal-1 wal-per-volume}
BASE=${BASE:-/dev/shm}
PORT_BASE=${PORT_BASE:-19300}
GRPC_PORT=$PORT_BASE
HTTP_PORT=$((PORT_BASE + 1))
THRIFT_PORT=$((PORT_BASE + 2))
OUT=${OUT:-$(mktemp -d /tmp/strata-tiered.XXXXXX)}
mkdir -p "$OUT"

DIR=
SERVER_PID=
cleanup() {
  if [[ -n $SERVER_PID ]]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  [[ -z $DIR ]] || rm -rf "$DIR"
}
trap cleanup EXIT

volume() { # volume PATH TYPE LATENCY_MS [NAME]
  printf '[[volumes]]\npath = "%s"\nstorage_type = "%s"\n' "$1" "$2"
  [[ $3 == 0 ]] || printf 'inject_latency_ms = %s\n' "$3"
  [[ -z ${4:-} ]] || printf 'name = "%s"\n' "$4"
}

config() { # config NAME DIR: the server's TOML for one configuration
  local name=$1 d=$2 L=$LATENCY_MS data=ONE_SSD wal=ALL_SSD engine=""
  local ssd0=0 second=(hdd0 hdd "$L")
  case $name in
    all-fast) second=(hdd0 hdd 0) ;;
    fast-slow) ;;
    all-slow) ssd0=$L data=HOT wal=HOT ;;
    chooser-on) second=(ssd1 ssd "$L") data=ALL_SSD ;;
    chooser-off) second=(ssd1 ssd "$L") data=ALL_SSD engine='avoid_slow_volumes = false' ;;
    wal-1) ssd0=$L second=(ssd1 ssd 0) data=ALL_SSD ;;
    wal-per-volume) ssd0=$L second=(ssd1 ssd 0) data=ALL_SSD engine='wal_groups = "per_volume"' ;;
    tight-on) second=(ssd1 ssd "$TIGHT_MS") data=ALL_SSD engine="memstore_limit_mb = $TIGHT_MB" ;;
    tight-off) second=(ssd1 ssd "$TIGHT_MS") data=ALL_SSD
      engine=$(printf 'memstore_limit_mb = %s\navoid_slow_volumes = false' "$TIGHT_MB") ;;
    *) echo "unknown configuration $name" >&2; exit 2 ;;
  esac
  cat <<EOF
data_dir = "$d/ssd0"
grpc_port = $GRPC_PORT
http_port = $HTTP_PORT
thrift_port = $THRIFT_PORT
log_level = "warn"
storage_policy = "$data"
wal_storage_policy = "$wal"
EOF
  volume "$d/ssd0" ssd "$ssd0"
  volume "$d/${second[0]}" "${second[1]}" "${second[2]}" "${second[0]}"
  printf '[engine]\nmemstore_flush_mb = %s\nauto_split = false\n%s\n' "$FLUSH_MB" "$engine"
  printf '[mover]\ninterval_s = 0\n'
}

api() { curl -sf "http://127.0.0.1:$HTTP_PORT/api/v1/$1"; }

one_run() { # one_run CONFIG ROUND
  local name=$1 round=$2 tag="$1.$2"
  DIR=$(mktemp -d "$BASE/strata-tiered.XXXXXX")
  config "$name" "$DIR" >"$OUT/$name.toml"
  start_server "$OUT/$name.toml" "$OUT/$tag.server.log" "$HTTP_PORT"
  printf '%s\t%s\t%s\n' "$name" "$round" "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/load.tsv"
  echo "== $name, round $round (load average $(cut -d' ' -f1 /proc/loadavg))" >&2
  "$STRATA_BIN" bench ycsb both a --target grpc --port "$GRPC_PORT" --presplit "$REGIONS" \
    --recordcount "$RECORDS" --operationcount "$OPERATIONS" --threads "$THREADS" \
    --json --quiet >"$OUT/$tag.bench.jsonl" 2>>"$OUT/bench.log"
  # Where files landed and what the background work and the WAL cost, before shutdown.
  api server >"$OUT/$tag.server.json"
  api background >"$OUT/$tag.background.json"
  api wal >"$OUT/$tag.wal.json"
  kill "$SERVER_PID"
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
  rm -rf "$DIR"
  DIR=
}

{
  echo "RECORDS=$RECORDS OPERATIONS=$OPERATIONS THREADS=$THREADS REGIONS=$REGIONS"
  echo "LATENCY_MS=$LATENCY_MS FLUSH_MB=$FLUSH_MB RUNS=$RUNS BASE=$BASE TIGHT_MS=$TIGHT_MS TIGHT_MB=$TIGHT_MB"
  echo "strata: $("$STRATA_BIN" --version 2>/dev/null || echo unknown), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "configs: $CONFIGS"
} | tee "$OUT/settings.txt" >&2
for round in $(seq 1 "$RUNS"); do
  for name in $CONFIGS; do
    one_run "$name" "$round"
  done
done
python3 "$ROOT/bench/tiered/summarize.py" "$OUT" $CONFIGS
echo "raw results: $OUT" >&2
