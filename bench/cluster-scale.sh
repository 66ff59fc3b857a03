#!/usr/bin/env bash
# Cluster scaling under equal CPU quotas: throughput of 1, 2 and 3 servers, each server
# process in a cgroup of its own limited to QUOTA cores, on one table of REGIONS regions
# spread evenly by the balancer. Clients connect without region awareness: ENTRY=spread
# gives each server's Thrift port an equal share of the client threads (a load balancer in
# front of the servers), ENTRY=one sends every thread to server 1 (one address). Each
# request for a region another server owns is forwarded one hop. ENTRY=owner gives every
# client the region map (`strata bench --route-by-region`, from getTableRegions through
# server 1) so each request goes straight to its region's server, as HBase's native client
# does: the cluster without the forwarding hop.
#
#   sudo-less as root: bench/cluster-scale.sh
#   env: STRATA_BIN (release build), QUOTA=0.35 cores per server, SERVERS="1 2 3",
#        WORKLOAD=randomRead (or randomWrite), THREADS=12 client threads in all,
#        ROWS=2500 rows per thread (the table: THREADS x ROWS rows), VALUE_SIZE=100,
#        REGIONS=12, ENTRY=spread|one|owner, REPEATS=3,
#        STORE=s3proxy|file (file: a local directory as the object store, so that writes,
#        one object PUT per group commit, are not bound by S3Proxy's own CPU)
#
# Needs cgroup v1's cpu controller at /sys/fs/cgroup/cpu (or cgroup v2 with cpu.max at
# /sys/fs/cgroup): the servers' quotas are what make 2 shared cores show scaling at all.
# etcd, S3Proxy and the clients run outside the quotas. Prints, per server count, the
# median ops/s over REPEATS, the servers' CPU per operation and the speedup over 1 server.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
QUOTA=${QUOTA:-0.35}
SERVERS=${SERVERS:-"1 2 3"}
WORKLOAD=${WORKLOAD:-randomRead}
THREADS=${THREADS:-12}
ROWS=${ROWS:-2500}
VALUE_SIZE=${VALUE_SIZE:-100}
REGIONS=${REGIONS:-12}
ENTRY=${ENTRY:-spread}
REPEATS=${REPEATS:-3}
STRATA_BIN=${STRATA_BIN:-$ROOT/target/release/strata}
[[ -x $STRATA_BIN ]] || { echo "no strata binary at $STRATA_BIN: cargo build --release -p strata" >&2; exit 1; }

DIR=$(mktemp -d /tmp/strata-scale.XXXXXX)
eval "$(scripts/etcd-env start)"
STORE=${STORE:-s3proxy}
S3PROXY_PID=
# Each cluster gets a store prefix of its own (STORE_ROOT/<cluster>).
if [[ $STORE == file ]]; then
  STORE_ROOT="file://$DIR/store"
else
  eval "$(scripts/s3proxy-env start)"
  STORE_ROOT=$STRATA_S3_TEST_STORE
fi
PIDS=()
GROUPS_MADE=()
stop_servers() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  PIDS=()
}
cleanup() {
  stop_servers
  for g in "${GROUPS_MADE[@]}"; do rmdir "$g" 2>/dev/null || true; done
  [[ -n $S3PROXY_PID ]] && scripts/s3proxy-env stop "$S3PROXY_PID" >/dev/null 2>&1 || true
  scripts/etcd-env stop "$ETCD_PID" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT

# limit PID: puts the process in a cgroup of its own with QUOTA cores.
limit() {
  local pid=$1 period=100000 quota
  quota=$(python3 -c "print(int($QUOTA * 100000))")
  if [[ -d /sys/fs/cgroup/cpu ]]; then
    local g=/sys/fs/cgroup/cpu/strata-scale-$pid
    mkdir -p "$g"; GROUPS_MADE+=("$g")
    echo "$period" >"$g/cpu.cfs_period_us"
    echo "$quota" >"$g/cpu.cfs_quota_us"
    echo "$pid" >"$g/cgroup.procs"
  elif [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then
    local g=/sys/fs/cgroup/strata-scale-$pid
    mkdir -p "$g"; GROUPS_MADE+=("$g")
    echo "$quota $period" >"$g/cpu.max"
    echo "$pid" >"$g/cgroup.procs"
  else
    echo "no cgroup cpu controller here" >&2; exit 1
  fi
}

wait_for() { for _ in $(seq 1 600); do grep -q "$2" "$1" && return; sleep 0.1; done; echo "timeout: $2 in $1" >&2; tail -5 "$1" >&2; exit 1; }

start_servers() { # start_servers N CLUSTER
  local n=$1 cluster=$2 i
  [[ $STORE == file ]] && mkdir -p "$DIR/store/$cluster"
  for i in $(seq 1 "$n"); do
    "$STRATA_BIN" server --cluster "$cluster" --etcd "$STRATA_ETCD_ENDPOINT" --store "$STORE_ROOT/$cluster" \
      --data-dir "$DIR/$cluster/s$i" --thrift-port "3809$i" --grpc-port 0 --http-port 0 --peer-port "3819$i" \
      >"$DIR/$cluster-s$i.log" 2>&1 &
    PIDS+=($!)
    limit "$!"
    if [[ $i -eq 1 ]]; then wait_for "$DIR/$cluster-s$i.log" "acting as master"; else wait_for "$DIR/$cluster-s$i.log" "standing by"; fi
  done
}

# Waits until the table's regions are spread over N servers as evenly as they go.
wait_balanced() { # wait_balanced N CLUSTER
  local n=$1 cluster=$2
  for _ in $(seq 1 300); do
    if "$STRATA_BIN" cluster status --etcd "$STRATA_ETCD_ENDPOINT" --cluster "$cluster" --json |
      python3 -c "
import json, sys
s = json.load(sys.stdin)
owners = {}
for r in s['regions']:
    if r['table'] == 'Scale' and r.get('owner') and r.get('state') == 'open':
        owners[r['owner']] = owners.get(r['owner'], 0) + 1
counts = sorted(owners.values())
sys.exit(0 if sum(counts) == $REGIONS and len(counts) == $n and counts[-1] - counts[0] <= 1 else 1)
"; then return; fi
    sleep 0.5
  done
  echo "regions never balanced over $n servers" >&2; exit 1
}

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# One measured run: every client process at once; prints "ops_per_sec cpu_us_per_op".
measure() { # measure N
  local n=$1 per=$((THREADS / n)) j outs=() t0=0 t1=0 p
  for p in "${PIDS[@]}"; do t0=$((t0 + $(ticks "$p"))); done
  local clients=()
  for j in $(seq 1 "$n"); do
    local port=38091 route=()
    [[ $ENTRY == spread ]] && port="3809$j"
    [[ $ENTRY == owner ]] && route=(--route-by-region)
    # Each process keeps the whole table's key space: per threads x (ROWS x n) rows.
    "$STRATA_BIN" bench pe "$WORKLOAD" --target thrift --port "$port" --table Scale "${route[@]}" \
      --value-size "$VALUE_SIZE" --threads "$per" --rows $((ROWS * n)) --seed $((RANDOM)) \
      --json --quiet >"$DIR/out$j" 2>/dev/null &
    clients+=($!)
    outs+=("$DIR/out$j")
  done
  for c in "${clients[@]}"; do wait "$c"; done
  for p in "${PIDS[@]}"; do t1=$((t1 + $(ticks "$p"))); done
  python3 - "$t0" "$t1" "$(getconf CLK_TCK)" "${outs[@]}" <<'PY'
import json, sys
t0, t1, tick = map(float, sys.argv[1:4])
phases = [json.loads(open(path).read().splitlines()[-1]) for path in sys.argv[4:]]
ops = sum(p["ops"] for p in phases)
# Throughput: every process ran at once, so the slowest one's time bounds the whole.
secs = max(p["secs"] for p in phases)
print(f"{ops / secs:.0f} {(t1 - t0) / tick / ops * 1e6:.1f}")
PY
}

echo "workload $WORKLOAD, $THREADS client threads ($ENTRY), $REGIONS regions, $((THREADS * ROWS)) rows of $VALUE_SIZE bytes, $QUOTA cores per server"
declare -A RESULT
for n in $SERVERS; do
  cluster="scale$$n$n"
  start_servers "$n" "$cluster"
  splits=$(python3 -c "
total, regions = $((THREADS * ROWS)), $REGIONS
print(', '.join(\"'%026d'\" % (total // regions * i) for i in range(1, regions)))")
  "$STRATA_BIN" shell --port 38091 -e "create 'Scale', 'info', SPLITS => [$splits]" >/dev/null
  wait_balanced "$n" "$cluster"
  "$STRATA_BIN" bench pe sequentialWrite --target thrift --port 38091 --table Scale \
    --value-size "$VALUE_SIZE" --threads "$THREADS" --rows "$ROWS" --quiet >/dev/null
  measure "$n" >/dev/null # warm
  runs=()
  for _ in $(seq 1 "$REPEATS"); do runs+=("$(measure "$n")"); done
  median=$(printf '%s\n' "${runs[@]}" | sort -n | sed -n "$(((REPEATS + 1) / 2))p")
  RESULT[$n]=$median
  echo "$n server(s): runs (ops/s cpu_us/op): ${runs[*]}; median $median"
  stop_servers
done
base=${RESULT[${SERVERS%% *}]%% *}
for n in $SERVERS; do
  ops=${RESULT[$n]%% *}
  python3 -c "print(f'$n server(s): {$ops:.0f} ops/s, {${RESULT[$n]##* }} us of server CPU per op, speedup {$ops / $base:.2f} (linear: $n)')"
done
