#!/usr/bin/env bash
# YCSB core workloads A-F, Strata against the real Apache HBase 2.6.1 anchor, one after the
# other on this machine with the same YCSB client, workload files, record count, operation
# count and threads:
#   - Strata: `strata server` (release build) through the Cloud Bigtable API with YCSB's
#     unmodified `googlebigtable2` binding (BIGTABLE_EMULATOR_HOST, plaintext gRPC);
#   - HBase: ../shared/anchors/hbase (HMaster + RS + ZK in one JVM) through YCSB's `hbase2`
#     binding (HBase's native RPC).
# Both tables are pre-split into $REGIONS regions on YCSB's key prefixes. Each system gets a
# load phase, then A B C F D E (the order YCSB recommends). Raw YCSB outputs go to $OUT and
# bench/ycsb/summarize.py prints throughput, p50/p99/p99.9 per operation and the ratios.
#
# Needs once (see ../shared/anchors/bench-tools/README.md): the YCSB bindings built with
#   MODS=hbase2,googlebigtable2 ../shared/anchors/bench-tools/ycsb-setup.sh bindings <YCSB src>
# and the HBase anchor's jars (../shared/anchors/hbase/setup.sh).
#
# Env: RECORDS (100000) OPS (100000) E_OPS (10000) THREADS (16) REGIONS (10) RUNS (1)
#      SYSTEMS (strata,hbase) WLS ("a b c f d e") OUT (under $CACHE/ycsb-compare)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:-$HOME/.cache/strata-anchors}
TOOLS=${BENCH_TOOLS:-$(cd "$ROOT/../shared/anchors/bench-tools" && pwd)}
ANCHOR=${HBASE_ANCHOR:-$(cd "$ROOT/../shared/anchors/hbase" && pwd)}
RECORDS=${RECORDS:-100000}
OPS=${OPS:-100000}
E_OPS=${E_OPS:-10000}
THREADS=${THREADS:-16}
REGIONS=${REGIONS:-10}
RUNS=${RUNS:-1}
SYSTEMS=${SYSTEMS:-strata,hbase}
WLS=${WLS:-a b c f d e}
OUT=${OUT:-$CACHE/ycsb-compare/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
export CACHE

for binding in googlebigtable2 hbase2; do
  if ! ls "$CACHE/ycsb-src/$binding"/target/*-binding-*.jar >/dev/null 2>&1; then
    echo "YCSB binding $binding is not built; see the header of $0" >&2
    exit 1
  fi
done

# run_workloads NAME BINDING [YCSB args...]: load, then each workload, one file per phase.
run_workloads() {
  local name=$1 binding=$2 run=$3
  shift 3
  local common=(-p recordcount="$RECORDS" -threads "$THREADS"
    -p hdrhistogram.percentiles=50,99,99.9 "$@")
  echo "== $name run $run: load ($RECORDS records, $THREADS threads); $(uptime)"
  "$TOOLS/ycsb.sh" load "$binding" a "${common[@]}" -p operationcount="$RECORDS" \
    >"$OUT/$name-r$run-load.txt" 2>&1 || { tail -20 "$OUT/$name-r$run-load.txt"; return 1; }
  for w in $WLS; do
    local ops=$OPS
    [ "$w" = e ] && ops=$E_OPS
    echo "   workload $w ($ops ops)"
    "$TOOLS/ycsb.sh" run "$binding" "$w" "${common[@]}" -p operationcount="$ops" \
      >"$OUT/$name-r$run-$w.txt" 2>&1 || { tail -20 "$OUT/$name-r$run-$w.txt"; return 1; }
  done
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

run_strata() {
  local run=$1
  (cd "$ROOT" && cargo build --release -q -p strata)
  local python data grpc thrift pid
  python=$("$ROOT/scripts/python-env")
  data=$(mktemp -d /tmp/strata-ycsb.XXXXXX)
  grpc=$(free_port)
  thrift=$(free_port)
  STRATA_LOG=warn "$ROOT/target/release/strata" server --data-dir "$data" --grpc-port "$grpc" \
    --thrift-port "$thrift" --http-port 0 >"$OUT/strata-r$run-server.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do
    grep -q listening "$OUT/strata-r$run-server.log" && break
    sleep 0.1
  done
  export BIGTABLE_EMULATOR_HOST=127.0.0.1:$grpc
  "$python" "$ROOT/bench/ycsb/create_usertable.py" "$REGIONS"
  run_workloads strata googlebigtable2 "$run" -p googlebigtable2.project=p \
    -p googlebigtable2.instance=ycsb -p googlebigtable2.family=cf \
    -p googlebigtable2.use-batching=false
  unset BIGTABLE_EMULATOR_HOST
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" || true
  rm -rf "$data"
}

run_hbase() {
  local run=$1
  "$ANCHOR/start.sh" --clean --no-thrift
  # shellcheck source=/dev/null
  . "$ANCHOR/common.sh"
  local conf=$OUT/hbase-client-conf
  mkdir -p "$conf"
  cat >"$conf/hbase-site.xml" <<XML
<?xml version="1.0"?>
<configuration>
  <property><name>hbase.zookeeper.quorum</name><value>127.0.0.1</value></property>
  <property><name>hbase.zookeeper.property.clientPort</name><value>$HBASE_ANCHOR_ZK_PORT</value></property>
</configuration>
XML
  mapfile -t opts < <(hbase_anchor_java_opts client)
  "$JAVA" -Xmx512m "${opts[@]}" -cp "$(hbase_anchor_classpath)" \
    "$ROOT/bench/ycsb/CreateUsertable.java" "$REGIONS" 2>&1 | grep -v -E '^(SLF4J|WARNING)' | tail -2
  EXTRA_CP=$conf run_workloads hbase hbase2 "$run" -p columnfamily=family
  "$ANCHOR/stop.sh"
}

for run in $(seq 1 "$RUNS"); do
  for system in ${SYSTEMS//,/ }; do
    "run_$system" "$run"
  done
done
python3 "$ROOT/bench/ycsb/summarize.py" "$OUT"
echo "raw YCSB outputs: $OUT"
