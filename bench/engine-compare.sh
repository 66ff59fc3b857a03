#!/usr/bin/env bash
# Strata's storage engine against RocksDB 7.8.3 (Debian's librocksdb), db_bench style.
#
# Builds bench/rocks-anchor in release (it contains both systems: Strata through strata-bench,
# RocksDB through the `rocksdb` crate), then runs the standard matrix
#   fillseq, fillrandom, overwrite, readrandom, readrandom-uncached, seekrandom
# for 100 B values (NUM_100 keys) and 1000 B values (NUM_1000 keys), RUNS times each with the
# two systems interleaved run by run, and prints every run, the medians and the
# Strata/RocksDB ratios. JSON lines go to $OUT. Databases live under /tmp and are removed.
#
# Needs once: apt-get install -y librocksdb-dev libclang-dev
# Extra arguments are passed to the binary (e.g. --threads 2 --durability skip).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:-$HOME/.cache/strata-anchors}
RUNS=${RUNS:-3}
NUM_100=${NUM_100:-1000000}
NUM_1000=${NUM_1000:-300000}
SYSTEMS=${SYSTEMS:-strata,rocksdb}
OUT=${OUT:-$CACHE/engine-compare}
DB=$(mktemp -d /tmp/strata-engine-compare.XXXXXX)
trap 'rm -rf "$DB"' EXIT

export ROCKSDB_LIB_DIR=${ROCKSDB_LIB_DIR:-/usr/lib/x86_64-linux-gnu}
export CARGO_TARGET_DIR=$CACHE/cargo-target-rocks
(cd "$ROOT/bench/rocks-anchor" && cargo build --release --locked)
BIN=$CARGO_TARGET_DIR/release/engine-compare
mkdir -p "$OUT"

for spec in "100 $NUM_100" "1000 $NUM_1000"; do
  read -r value_size num <<<"$spec"
  echo "== value size $value_size B, $num keys, $RUNS runs, systems $SYSTEMS"
  echo "   load: $(uptime)"
  # The table (runs, medians, ratios) goes to stderr, JSON lines to the file.
  "$BIN" --systems "$SYSTEMS" --num "$num" --value-size "$value_size" --repeat "$RUNS" \
    --db "$DB" --json "$@" >"$OUT/v$value_size.jsonl"
  echo "   load after: $(uptime)"
  echo "   JSON lines: $OUT/v$value_size.jsonl"
done
