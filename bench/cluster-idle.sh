#!/usr/bin/env bash
# What an idle cluster costs: a local cluster (scripts/local-cluster: etcd, S3Proxy and N
# servers) holding TABLES tables of REGIONS regions each and serving no requests. Over
# WINDOW seconds it reports each server's CPU (user + system, from /proc/<pid>/stat) and
# the KV requests etcd handled (from etcd's /metrics), per second.
#
#   bench/cluster-idle.sh        env: STRATA_BIN (default target/release/strata), N=3,
#                                TABLES=8, REGIONS=4, WINDOW=30
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export STRATA_BIN=${STRATA_BIN:-$ROOT/target/release/strata}
N=${N:-3}
TABLES=${TABLES:-8}
REGIONS=${REGIONS:-4}
WINDOW=${WINDOW:-30}
[[ -x $STRATA_BIN ]] || { echo "no strata binary at $STRATA_BIN: cargo build --release -p strata" >&2; exit 1; }
state=target/local-cluster
trap 'scripts/local-cluster down >/dev/null 2>&1 || true' EXIT
scripts/local-cluster up "$N" >/dev/null
# shellcheck disable=SC1091
. "$state/env"

splits() { # a SPLITS list for REGIONS regions
    local out=() i
    for ((i = 1; i < REGIONS; i++)); do out+=("'r$i'"); done
    local IFS=,
    echo "[${out[*]}]"
}
script=""
for ((t = 0; t < TABLES; t++)); do
    script+="create 'idle$t', 'f', {SPLITS => $(splits)}; "
done
"$STRATA_BIN" shell --port 19091 -e "$script" >/dev/null
sleep 10 # let the balancer spread the regions and the servers settle

cpu_ticks() { # pid -> utime + stime, in clock ticks
    awk '{print $14 + $15}' "/proc/$1/stat"
}
etcd_requests() {
    curl -s "$STRATA_ETCD_ENDPOINT/metrics" \
        | awk '/^grpc_server_handled_total/ && /grpc_service="etcdserverpb.KV"/ {n += $2} END {printf "%d\n", n}'
}
declare -A before
for i in $(seq 1 "$N"); do before[$i]=$(cpu_ticks "$(cat "$state/server$i.pid")"); done
etcd_before=$(etcd_requests)
sleep "$WINDOW"
etcd_after=$(etcd_requests)
hz=$(getconf CLK_TCK)
echo "idle cluster: $N servers, $TABLES tables x $REGIONS regions, ${WINDOW}s"
total=0
for i in $(seq 1 "$N"); do
    after=$(cpu_ticks "$(cat "$state/server$i.pid")")
    ticks=$((after - before[$i]))
    total=$((total + ticks))
    awk -v t="$ticks" -v hz="$hz" -v w="$WINDOW" -v i="$i" \
        'BEGIN {printf "server%d  CPU %.1f%% of a core\n", i, 100 * t / hz / w}'
done
awk -v t="$total" -v hz="$hz" -v w="$WINDOW" -v n="$N" \
    'BEGIN {printf "mean     CPU %.1f%% of a core per server\n", 100 * t / hz / w / n}'
awk -v r="$((etcd_after - etcd_before))" -v w="$WINDOW" -v n="$N" \
    'BEGIN {printf "etcd     %.1f KV requests/s (%.1f per server)\n", r / w, r / w / n}'
