#!/usr/bin/env bash
# Seed 001's "BlockCache Showdown", scaled to this machine: random 1 KiB point reads
# (PE randomRead through the Thrift1 client of `strata bench`) over a database several
# times larger than the memory its server may use, with
#   l1       the in-memory block cache alone (HBase: LruBlockCache),
#   l2-shm   L1 + a second level in a file on tmpfs (HBase: CombinedBlockCache, file: BucketCache),
#   l2-disk  L1 + a second level in a file on disk (the same, the file on disk),
# for Strata and then for the HBase anchor, each server process in a cgroup (v1 memory
# controller) limited to MEM_LIMIT_MB, page cache and tmpfs pages included: the tmpfs L2
# counts against the limit, as the seed counted its tmpfs BucketCache in the process's RAM;
# the disk L2 does not (only its page cache does). The HBase Thrift gateway JVM (stateless,
# a client of the region server) runs outside the cgroup.
#
# Per system: load ROWS rows of 1 KiB (PE sequentialWrite, LOAD_THREADS threads, batches of
# 100; outside the cgroup), flush, major-compact and wait. Per configuration: drop the OS
# caches, start the server in a fresh cgroup, warm up with WARM_READS random reads (L1 and L2
# fill), then RUNS measured runs of READS random reads each (THREADS client threads, a new
# seed per run); report the median of the runs. Also, once: random 64 KiB reads of the raw
# store files in a cgroup of the same limit (what a block read from the device costs here).
#
# About 12 minutes with the defaults (HBase's share ~8). Root only (cgroups, drop_caches).
# Figures and how to read them: docs/performance.md, "Two cache levels under a memory
# limit". Every knob is an environment variable:
#   ROWS=3000000 (~3 GiB of 1 KiB values)  MEM_LIMIT_MB=1024  L1_MB=256  L2_SHM_MB=256
#   L2_DISK_MB=4096  THREADS=5  WARM_READS=150000  READS=50000  RUNS=3  LOAD_THREADS=8
#   SYSTEMS="strata hbase"  CONFIGS="l1 l2-shm l2-disk"  HBASE_LOAD_HEAP=2g
#   HBASE_HEAP_MB=448: the HBase JVM's heap in l1, its LruBlockCache being L1_MB of it.
#   In HBase 2, a CombinedBlockCache keeps data blocks in the BucketCache only and index
#   and bloom blocks in the LruBlockCache, so the l2 configurations move L1's memory into
#   the BucketCache: LruBlockCache HBASE_L2_LRU_MB=32, heap HBASE_L2_HEAP_MB (default
#   HBASE_HEAP_MB - L1_MB + HBASE_L2_LRU_MB), BucketCache L1_MB + the L2 size.
#   STRATA_BIN, HBASE_ANCHOR=../shared/anchors/hbase from the repository root (copied,
#   never modified),
#   OUT (default: a new /tmp/strata-cache-levels.XXXXXX; on disk: the disk L2 goes there),
#   SHM_DIR=/dev/shm, STRATA_PORT=19190, STRATA_HTTP_PORT=19191 (cache statistics),
#   DROP_CACHES=1, KEEP_OUT=1 (keep the databases too; the results always stay in OUT)
#   BLOCK_KB: Strata's data block size (default 64, HBase's; Thrift1's createTable cannot
#   set HBase's, so use it with SYSTEMS=strata)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROWS=${ROWS:-3000000}
MEM_LIMIT_MB=${MEM_LIMIT_MB:-1024}
L1_MB=${L1_MB:-256}
L2_SHM_MB=${L2_SHM_MB:-256}
L2_DISK_MB=${L2_DISK_MB:-4096}
THREADS=${THREADS:-5}
WARM_READS=${WARM_READS:-150000}
READS=${READS:-50000}
RUNS=${RUNS:-3}
LOAD_THREADS=${LOAD_THREADS:-8}
SYSTEMS=${SYSTEMS:-"strata hbase"}
CONFIGS=${CONFIGS:-"l1 l2-shm l2-disk"}
HBASE_HEAP_MB=${HBASE_HEAP_MB:-448}
HBASE_L2_LRU_MB=${HBASE_L2_LRU_MB:-32}
HBASE_L2_HEAP_MB=${HBASE_L2_HEAP_MB:-$(( HBASE_HEAP_MB - L1_MB + HBASE_L2_LRU_MB ))}
HBASE_LOAD_HEAP=${HBASE_LOAD_HEAP:-2g}
HBASE_ANCHOR=${HBASE_ANCHOR:-$ROOT/../shared/anchors/hbase}
SHM_DIR=${SHM_DIR:-/dev/shm}
STRATA_PORT=${STRATA_PORT:-19190}
STRATA_HTTP_PORT=${STRATA_HTTP_PORT:-19191}
DROP_CACHES=${DROP_CACHES:-1}
BLOCK_KB=${BLOCK_KB:-}
STRATA_BIN=${STRATA_BIN:-$ROOT/target/release/strata}
[[ -x $STRATA_BIN ]] || STRATA_BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release/strata
[[ -x $STRATA_BIN ]] || { echo "no strata binary at $STRATA_BIN: cargo build --release -p strata" >&2; exit 1; }
CG_ROOT=/sys/fs/cgroup/memory
[[ -w $CG_ROOT ]] || { echo "needs the cgroup v1 memory controller at $CG_ROOT (and root)" >&2; exit 1; }

OUT=${OUT:-$(mktemp -d /tmp/strata-cache-levels.XXXXXX)}
mkdir -p "$OUT"
SHM=$SHM_DIR/strata-cache-levels.$$
PER_THREAD_LOAD=$(( ROWS / LOAD_THREADS ))
ROWS=$(( PER_THREAD_LOAD * LOAD_THREADS ))
SERVER_PID=
CGROUP=
HB=$OUT/hbase-anchor                   # a copy of the anchor's scripts, with our conf
export HBASE_ANCHOR_RUN=$OUT/hbase-run

log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

cg_make() { # cg_make NAME: a memory cgroup limited to MEM_LIMIT_MB, in $CGROUP
  CGROUP=$CG_ROOT/strata-cache-levels-$$-$1
  mkdir -p "$CGROUP"
  echo $(( MEM_LIMIT_MB << 20 )) >"$CGROUP/memory.limit_in_bytes"
}
cg_report() { # cg_report FILE: the cgroup's peak usage and limit hits
  [[ -n $CGROUP && -d $CGROUP ]] || return 0
  { echo "max_usage_mb $(( $(cat "$CGROUP/memory.max_usage_in_bytes") >> 20 ))"
    echo "failcnt $(cat "$CGROUP/memory.failcnt")"
    grep -E '^(total_)?(cache|rss|shmem) ' "$CGROUP/memory.stat"; } >"$1" 2>/dev/null || true
}
cg_drop() {
  [[ -n $CGROUP && -d $CGROUP ]] || return 0
  echo 0 >"$CGROUP/memory.force_empty" 2>/dev/null || true
  rmdir "$CGROUP" 2>/dev/null || true
  CGROUP=
}
in_cg() { # in_cg CMD...: runs CMD inside $CGROUP
  bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CGROUP" "$@"
}
drop_caches() {
  sync
  [[ $DROP_CACHES == 1 ]] && { echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || log "cannot drop caches"; }
  return 0
}

stop_strata() {
  [[ -n $SERVER_PID ]] || return 0
  kill "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
}
stop_hbase() {
  [[ -x $HB/stop.sh ]] && "$HB/stop.sh" >>"$OUT/hbase-stop.log" 2>&1 || true
}
cleanup() {
  stop_strata
  [[ $SYSTEMS == *hbase* ]] && stop_hbase
  rm -rf "$SHM"
  cg_drop
  if [[ -z ${KEEP_OUT:-} ]]; then
    rm -rf "$OUT/strata-data" "$HBASE_ANCHOR_RUN" "$OUT/l2-disk"
  fi
}
trap cleanup EXIT

bench() { # bench NAME ARGS...: one `strata bench` run, JSON appended to $OUT/NAME.jsonl
  local name=$1; shift
  "$STRATA_BIN" bench "$@" --json --quiet >>"$OUT/$name.jsonl" 2>>"$OUT/bench.log"
}

# reads SYSTEM CONFIG PORT: warm-up, then RUNS measured runs of random reads.
reads() {
  local system=$1 config=$2 port=$3 run
  local r=(pe randomRead --target thrift --port "$port" --threads "$THREADS" --key-rows "$ROWS")
  log "$system $config: warm-up, $WARM_READS reads"
  bench "warm-$system-$config" "${r[@]}" --rows $(( WARM_READS / THREADS )) --seed 1000
  for run in $(seq 1 "$RUNS"); do
    echo "$system $config run $run load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/load.txt"
    bench "$system-$config" "${r[@]}" --rows $(( READS / THREADS )) --seed "$run"
    log "$system $config run $run: $(tail -1 "$OUT/$system-$config.jsonl" | python3 -c \
      'import json,sys; o=json.load(sys.stdin)["operations"][0]; print("%.0f reads/s p50 %.0f p99 %.0f p99.9 %.0f us, misses %d" % (o["ops_per_sec"], o["p50_us"], o["p99_us"], o["p999_us"], o["misses"]))')"
  done
}

# ------------------------------------------------------------------------ Strata
strata_config() { # strata_config CONFIG: the server's config file for CONFIG
  local f=$OUT/strata-$1.toml
  { echo "[engine]"; echo "block_cache_mb = $L1_MB"
    case $1 in
      l2-shm) echo "l2_cache_path = \"$SHM/strata-l2\""; echo "l2_cache_mb = $L2_SHM_MB" ;;
      l2-disk) echo "l2_cache_path = \"$OUT/l2-disk/strata-l2\""; echo "l2_cache_mb = $L2_DISK_MB" ;;
    esac; } >"$f"
  echo "$f"
}
start_strata() { # start_strata CONFIG [cg]: server on $OUT/strata-data
  local cfg; cfg=$(strata_config "$1")
  local cmd=("$STRATA_BIN" server --config "$cfg" --data-dir "$OUT/strata-data" \
    --thrift-port "$STRATA_PORT" --grpc-port 0 --http-port "$STRATA_HTTP_PORT")
  # `bash -c ... exec`: $! is the server itself (a backgrounded function would be a subshell).
  if [[ ${2:-} == cg ]]; then
    bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CGROUP" "${cmd[@]}" >"$OUT/strata-$1.log" 2>&1 &
  else "${cmd[@]}" >"$OUT/strata-$1.log" 2>&1 & fi
  SERVER_PID=$!
  for _ in $(seq 1 300); do grep -q listening "$OUT/strata-$1.log" 2>/dev/null && return; sleep 0.1; done
  cat "$OUT/strata-$1.log" >&2; exit 1
}
shell() { "$STRATA_BIN" shell --port "$1" "${@:2}" >>"$OUT/shell.log" 2>&1; }

run_strata() {
  log "Strata: loading $ROWS rows"
  mkdir -p "$OUT/strata-data"
  start_strata load
  if [[ -n $BLOCK_KB ]]; then # else the benchmark creates the table: 64 KiB blocks (HBase's default)
    shell "$STRATA_PORT" -e "create 'TestTable', {NAME => 'info', VERSIONS => 1, BLOOMFILTER => 'ROW', BLOCKSIZE => $(( BLOCK_KB << 10 ))}"
  fi
  bench strata-load pe sequentialWrite --target thrift --port "$STRATA_PORT" \
    --threads "$LOAD_THREADS" --rows "$PER_THREAD_LOAD" --batch-size 100 --value-size 1024
  shell "$STRATA_PORT" -e "flush 'TestTable'" -e "major_compact 'TestTable'"
  stop_strata
  du -sm "$OUT/strata-data" | cut -f1 >"$OUT/strata-db-mb"
  log "Strata: $(cat "$OUT/strata-db-mb") MiB on disk"
  probe_device
  local config
  for config in $CONFIGS; do
    mkdir -p "$SHM" "$OUT/l2-disk"
    drop_caches
    cg_make "strata-$config"
    start_strata "$config" cg
    reads strata "$config" "$STRATA_PORT"
    curl -s "http://127.0.0.1:$STRATA_HTTP_PORT/api/v1/cache" >"$OUT/strata-$config-cache.json" || true
    cg_report "$OUT/strata-$config-memory.txt"
    stop_strata
    cg_drop
    rm -rf "$SHM" "$OUT/l2-disk"
  done
}

# probe_device: random 64 KiB reads of the store files in a cgroup of the same limit.
probe_device() {
  drop_caches
  cg_make probe
  in_cg python3 - "$OUT/strata-data" >"$OUT/device-probe.txt" <<'PY' || true
import os, random, sys, time
files = []
for d, _, names in os.walk(sys.argv[1]):
    files += [os.path.join(d, n) for n in names if os.path.getsize(os.path.join(d, n)) > 1 << 24]
fds = [(os.open(f, os.O_RDONLY), os.path.getsize(f)) for f in files]
rng, lat = random.Random(7), []
for _ in range(20000):
    fd, size = rng.choice(fds)
    off = rng.randrange(0, size - 65536)
    t = time.perf_counter(); os.pread(fd, 65536, off); lat.append(time.perf_counter() - t)
lat.sort()
q = lambda p: lat[min(len(lat) - 1, int(len(lat) * p))] * 1e6
print(f"device 64KiB reads={len(lat)} p50_us={q(.5):.0f} p99_us={q(.99):.0f} p999_us={q(.999):.0f}")
PY
  cg_drop
  log "$(cat "$OUT/device-probe.txt")"
}

# ------------------------------------------------------------------------ HBase
hbase_heap() { # hbase_heap CONFIG: the region server JVM's heap in MiB
  if [[ $1 == l1 ]]; then echo "$HBASE_HEAP_MB"; else echo "$HBASE_L2_HEAP_MB"; fi
}
hbase_conf() { # hbase_conf CONFIG: writes the copy's hbase-site.xml for CONFIG
  local extra="" lru_mb=$L1_MB heap
  heap=$(hbase_heap "$1")
  [[ $1 == l2-* ]] && lru_mb=$HBASE_L2_LRU_MB
  if [[ $1 != load ]]; then
    extra+="<property><name>hfile.block.cache.size</name><value>$(python3 -c "print(round($lru_mb / $heap, 4))")</value></property>"
    extra+="<property><name>hbase.regionserver.global.memstore.size</name><value>0.2</value></property>"
  fi
  case $1 in
    l2-shm) extra+="<property><name>hbase.bucketcache.ioengine</name><value>file:$SHM/bucket.cache</value></property>"
            extra+="<property><name>hbase.bucketcache.size</name><value>$(( L1_MB + L2_SHM_MB ))</value></property>" ;;
    l2-disk) extra+="<property><name>hbase.bucketcache.ioengine</name><value>file:$OUT/l2-disk/bucket.cache</value></property>"
             extra+="<property><name>hbase.bucketcache.size</name><value>$(( L1_MB + L2_DISK_MB ))</value></property>" ;;
  esac
  sed "s#</configuration>#$extra</configuration>#" "$HBASE_ANCHOR/conf/hbase-site.xml" >"$HB/conf/hbase-site.xml"
}
start_hbase() { # start_hbase CONFIG [cg]
  hbase_conf "$1"
  if [[ ${2:-} == cg ]]; then
    HBASE_ANCHOR_MASTER_HEAP=$(hbase_heap "$1")m in_cg "$HB/start.sh" --no-thrift >>"$OUT/hbase-start.log" 2>&1
  else
    HBASE_ANCHOR_MASTER_HEAP=$HBASE_LOAD_HEAP "$HB/start.sh" --no-thrift >>"$OUT/hbase-start.log" 2>&1
  fi
  "$HB/start.sh" >>"$OUT/hbase-start.log" 2>&1
}
# Waits until no region of TestTable has a compaction output in .tmp for 15 s.
wait_compactions() {
  local table=$HBASE_ANCHOR_RUN/data/hbase/data/default/TestTable quiet=0
  for _ in $(seq 1 200); do
    if find "$table" -path '*/.tmp/*' -type f 2>/dev/null | grep -q .; then quiet=0; else quiet=$((quiet + 1)); fi
    (( quiet >= 3 )) && return 0
    sleep 5
  done
  log "HBase compactions still running after 1000 s"
}

run_hbase() {
  local port
  for port in 2181 9090 16000 16020; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      log "port $port is in use (another HBase anchor?): skipping HBase"; return 1
    fi
  done
  rm -rf "$HB"; mkdir -p "$HB"
  cp -r "$HBASE_ANCHOR"/{common.sh,start.sh,stop.sh,status.sh,conf} "$HB/"
  log "HBase: loading $ROWS rows"
  start_hbase load
  bench hbase-load pe sequentialWrite --target thrift --port 9090 \
    --threads "$LOAD_THREADS" --rows "$PER_THREAD_LOAD" --batch-size 100 --value-size 1024
  stop_hbase # a clean shutdown flushes every region
  local config first=1
  for config in $CONFIGS; do
    mkdir -p "$SHM" "$OUT/l2-disk"
    drop_caches
    cg_make "hbase-$config"
    start_hbase "$config" cg
    if (( first )); then
      log "HBase: major compaction"
      shell 9090 -e "major_compact 'TestTable'"
      sleep 10; wait_compactions
      drop_caches
      first=0
    fi
    reads hbase "$config" 9090
    cg_report "$OUT/hbase-$config-memory.txt"
    stop_hbase
    cg_drop
    rm -rf "$SHM" "$OUT/l2-disk"
  done
  # Now: files a compaction replaced are archived when their region closes.
  du -sm "$HBASE_ANCHOR_RUN/data/hbase/data/default/TestTable" | cut -f1 >"$OUT/hbase-db-mb"
  log "HBase: $(cat "$OUT/hbase-db-mb") MiB on disk"
}

log "out: $OUT; rows $ROWS; limit $MEM_LIMIT_MB MiB; L1 $L1_MB MiB; L2 shm $L2_SHM_MB / disk $L2_DISK_MB MiB; load $(cut -d' ' -f1-3 /proc/loadavg)"
for system in $SYSTEMS; do "run_$system"; done
log "done; load $(cut -d' ' -f1-3 /proc/loadavg)"

python3 "$ROOT/bench/block-cache-levels.py" "$OUT" "$ROWS" "$L1_MB" "$MEM_LIMIT_MB"
[[ -n ${KEEP_OUT:-} ]] && echo "results kept in $OUT" >&2 || true
