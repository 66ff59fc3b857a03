#!/usr/bin/env bash
# Write acknowledgement latency and throughput of a cluster-mode server, side by side with
# the standalone server, through the same Thrift client (strata bench pe sequentialWrite):
#   standalone          local WAL segments
#   cluster file://     WAL objects in a local directory
#   file:// +20ms       the same with STORE_LATENCY_MS (default 20) added to every store
#                       call (--store-latency-ms): a simulated distant store
#   cluster S3Proxy     WAL objects through s3:// to S3Proxy 4.1 (filesystem backend)
#   via standby         the S3Proxy cluster again, the client on a standby that passes its
#                       connection to the master (the forwarding hop)
#   cluster MinIO       opt-in (MINIO=1): WAL objects through s3:// to a single-drive MinIO
#                       (scripts/minio-env; its first use builds MinIO from source, about
#                       10 min). Last, once the S3Proxy servers and S3Proxy have stopped:
#                       it runs beside the same idle servers as the S3Proxy row.
# It also counts etcd's KV and Txn requests during each cluster run (from etcd's /metrics):
# data operations make none; a flush makes one manifest-pointer commit per family.
#
#   bench/cluster-ack.sh            env: STRATA_BIN (default target/release/strata),
#                                   THREADS="1 8", ROWS=2000 per thread, VALUE_SIZE=100,
#                                   STORE_LATENCY_MS=20, SLOW_ROWS=500 per thread (for the
#                                   simulated store, where one write takes 20 ms or more),
#                                   MINIO=1 adds the MinIO row (MINIO_BIN: its binary)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
STRATA_BIN=${STRATA_BIN:-$ROOT/target/release/strata}
THREADS=${THREADS:-1 8}
ROWS=${ROWS:-2000}
VALUE_SIZE=${VALUE_SIZE:-100}
STORE_LATENCY_MS=${STORE_LATENCY_MS:-20}
SLOW_ROWS=${SLOW_ROWS:-500}
MINIO=${MINIO:-0}
[[ -x $STRATA_BIN ]] || { echo "no strata binary at $STRATA_BIN: cargo build --release -p strata" >&2; exit 1; }

DIR=$(mktemp -d /tmp/strata-cluster-ack.XXXXXX)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    sleep 1
    if [[ -n ${ETCD_PID:-} ]]; then scripts/etcd-env stop "$ETCD_PID" >/dev/null 2>&1 || true; fi
    if [[ -n ${S3PROXY_PID:-} ]]; then scripts/s3proxy-env stop "$S3PROXY_PID" >/dev/null 2>&1 || true; fi
    if [[ -n ${MINIO_PID:-} ]]; then scripts/minio-env stop "$MINIO_PID" >/dev/null 2>&1 || true; fi
    rm -rf "$DIR"
}
# Stop only what this run starts, never a server whose PID the caller's environment holds.
unset ETCD_PID S3PROXY_PID MINIO_PID
trap cleanup EXIT
scripts/etcd-env start >"$DIR/etcd.env"
scripts/s3proxy-env start >"$DIR/s3.env"
# shellcheck disable=SC1091
. "$DIR/etcd.env"
# shellcheck disable=SC1091
. "$DIR/s3.env"

wait_for() { # log text
    for _ in $(seq 1 600); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    echo "'$2' not in $1:" >&2; tail -20 "$1" >&2; exit 1
}

etcd_requests() { # KV and Txn calls handled so far
    curl -s "$STRATA_ETCD_ENDPOINT/metrics" \
        | awk '/^grpc_server_handled_total/ && /grpc_service="etcdserverpb.KV"/ {n += $2} END {printf "%d\n", n}'
}

run_pe() { # label port [rows]
    local label=$1 port=$2 rows=${3:-$ROWS} before after
    for t in $THREADS; do
        before=$(etcd_requests)
        "$STRATA_BIN" bench pe sequentialWrite --target thrift --port "$port" --threads "$t" \
            --rows "$rows" --value-size "$VALUE_SIZE" --json 2>/dev/null >"$DIR/pe.json"
        after=$(etcd_requests)
        python3 - "$label" "$t" "$((after - before))" "$DIR/pe.json" <<'PY'
import json, sys
label, threads, etcd, path = sys.argv[1:5]
for line in open(path):
    r = json.loads(line)
    op = r["operations"][0]
    extra = "" if label == "standalone" else "  etcd KV/Txn requests %s" % etcd
    print("%-16s threads %-2s %8.0f writes/s  p50 %7.0f us  p99 %7.0f us%s" % (
        label, threads, r["ops_per_sec"], op["p50_us"], op["p99_us"], extra))
PY
    done
}

# Each server gets its own peer port (base + 100): they all run at once on one host.
start_server() { # name store port-base [extra server flags...]
    local name=$1 store=$2 base=$3
    shift 3
    "$STRATA_BIN" server --cluster "ack$base" --etcd "$STRATA_ETCD_ENDPOINT" --store "$store" \
        --data-dir "$DIR/$name" --thrift-port "$base" --grpc-port 0 --http-port 0 \
        --peer-port $((base + 100)) "$@" \
        >"$DIR/$name.log" 2>&1 &
    PIDS+=($!)
}

"$STRATA_BIN" server --data-dir "$DIR/standalone" --thrift-port 18190 --grpc-port 0 --http-port 0 \
    >"$DIR/standalone.log" 2>&1 &
PIDS+=($!)
wait_for "$DIR/standalone.log" "listening on"
run_pe standalone 18190

mkdir -p "$DIR/objects"
start_server file "file://$DIR/objects" 18191
wait_for "$DIR/file.log" "listening on"
run_pe "cluster file://" 18191

mkdir -p "$DIR/slow-objects"
start_server slow "file://$DIR/slow-objects" 18194 --store-latency-ms "$STORE_LATENCY_MS"
wait_for "$DIR/slow.log" "listening on"
run_pe "file:// +${STORE_LATENCY_MS}ms" 18194 "$SLOW_ROWS"

start_server s3 "$STRATA_S3_TEST_STORE" 18192
S3_SERVER_PID=${PIDS[-1]}
wait_for "$DIR/s3.log" "listening on"
# S3Proxy is a JVM: warm it up (not measured) so the first S3 figures are not its JIT's.
"$STRATA_BIN" bench pe sequentialWrite --target thrift --port 18192 --threads 8 --rows 1000 \
    --value-size "$VALUE_SIZE" --quiet >/dev/null 2>&1 || true
run_pe "cluster S3Proxy" 18192
"$STRATA_BIN" server --cluster ack18192 --etcd "$STRATA_ETCD_ENDPOINT" --store "$STRATA_S3_TEST_STORE" \
    --data-dir "$DIR/standby" --thrift-port 18193 --grpc-port 0 --http-port 0 --peer-port 18293 \
    >"$DIR/standby.log" 2>&1 &
STANDBY_PID=$!
PIDS+=("$STANDBY_PID")
wait_for "$DIR/standby.log" "standing by"
run_pe "via standby" 18193

if [[ $MINIO == 1 ]]; then
    # The S3Proxy cluster (master and standby) and S3Proxy stop first: MinIO then runs beside
    # the same idle servers as S3Proxy did (standalone, file://, +20ms), and is not slowed
    # down by two more.
    kill "$S3_SERVER_PID" "$STANDBY_PID"
    wait "$S3_SERVER_PID" "$STANDBY_PID" || true
    left=()
    for pid in "${PIDS[@]}"; do
        [[ $pid == "$S3_SERVER_PID" || $pid == "$STANDBY_PID" ]] || left+=("$pid")
    done
    PIDS=("${left[@]}")
    scripts/s3proxy-env stop "$S3PROXY_PID"
    unset S3PROXY_PID
    scripts/minio-env start >"$DIR/minio.env"
    # Its AWS_* and STRATA_S3_TEST_STORE replace S3Proxy's, for the servers started from here on.
    # shellcheck disable=SC1091
    . "$DIR/minio.env"
    start_server minio "$STRATA_S3_TEST_STORE" 18195
    wait_for "$DIR/minio.log" "listening on"
    # The same warm-up as S3Proxy's (MinIO has no JIT), so the two rows run the same workload.
    "$STRATA_BIN" bench pe sequentialWrite --target thrift --port 18195 --threads 8 --rows 1000 \
        --value-size "$VALUE_SIZE" --quiet >/dev/null 2>&1 || true
    run_pe "cluster MinIO" 18195
fi
