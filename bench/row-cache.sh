#!/usr/bin/env bash
# The row cache on a Zipfian read workload: YCSB workload C (100 % reads) with the
# scrambled zipfian request distribution, on the embedded target, once with the row cache
# off and once with it on (the family the benchmark creates gets ROW_CACHE). Same seed, same
# data; each run loads its own temporary database.
#
#   bench/row-cache.sh        env: STRATA_BIN, RECORDS=200000, OPERATIONS=1000000,
#                             THREADS=2, ROW_CACHE_MB=256, BLOCK_CACHE_MB (default: the
#                             engine's 256)
#
# The row cache's hits, misses and size go to stderr at the end of the "on" run.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
STRATA_BIN=${STRATA_BIN:-$ROOT/target/release/strata}
[[ -x $STRATA_BIN ]] || { echo "no strata binary at $STRATA_BIN: cargo build --release -p strata" >&2; exit 1; }
RECORDS=${RECORDS:-200000}
OPERATIONS=${OPERATIONS:-1000000}
THREADS=${THREADS:-2}
ROW_CACHE_MB=${ROW_CACHE_MB:-256}

for mb in 0 "$ROW_CACHE_MB"; do
  echo "== row cache ${mb} MiB"
  "$STRATA_BIN" bench ycsb both c --distribution zipfian --quiet \
    --recordcount "$RECORDS" --operationcount "$OPERATIONS" --threads "$THREADS" \
    --row-cache-mb "$mb"
done
