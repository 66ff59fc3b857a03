#!/usr/bin/env bash
# Server CPU per operation of the work tree against a base revision: both built in release
# mode, then each workload run with one build and the other in turn, so that a slow moment of
# a shared machine falls on both alike. Use it before a change to a hot path lands
# (README.md, "Development"; docs/performance.md keeps the figures).
#
#   bench/regress.sh BASE_REV
#     env: ROUNDS=3 (runs per build and workload),
#          WORKLOADS="thrift:pe thrift:ycsb-a thrift:ycsb-c" (TARGET:MODE pairs of
#            bench/cpu-per-op.sh; its size variables, THREADS, ROWS, RECORDS, OPERATIONS...,
#            are passed on),
#          KEEP=1 keeps the two binaries (target/regress/base and target/regress/head),
#          BASE_BIN=... HEAD_BIN=... measure two release builds made already (no build).
#
# BASE_REV is built from a temporary worktree into a target directory of its own
# (target/regress-base, kept between runs so its dependencies are built once), and the work
# tree as it is (committed or not) into the repository's. One shared target directory does
# not work: cargo names a workspace crate's build after its name and version, not its path,
# so the two trees' builds of a crate take turns in one slot, and by modification times the
# older tree's sources look already built (head got base's strata-server). Prints, per
# workload, every run's server µs/op, the medians and head / base.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BASE_REV=${1:?usage: bench/regress.sh BASE_REV}
ROUNDS=${ROUNDS:-3}
WORKLOADS=${WORKLOADS:-"thrift:pe thrift:ycsb-a thrift:ycsb-c"}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
OUT=$ROOT/target/regress
mkdir -p "$OUT"
base_sha=$(git rev-parse --verify "$BASE_REV^{commit}")

tree=$(mktemp -d /tmp/strata-regress.XXXXXX)
cleanup() {
    git worktree remove --force "$tree/src" 2>/dev/null || true
    rm -rf "$tree"
    [[ -n ${KEEP:-} ]] || rm -f "$OUT/base" "$OUT/head"
}
trap cleanup EXIT

if [[ -n ${BASE_BIN:-} && -n ${HEAD_BIN:-} ]]; then
    # Builds made already (release, of BASE_REV and of the work tree): measure only.
    cp "$BASE_BIN" "$OUT/base"
    cp "$HEAD_BIN" "$OUT/head"
else
    echo "regress: building base ${base_sha:0:12} (release)" >&2
    git worktree add --detach -q "$tree/src" "$base_sha"
    BASE_TARGET_DIR=$ROOT/target/regress-base
    (cd "$tree/src" && CARGO_TARGET_DIR=$BASE_TARGET_DIR cargo build --release -q -p strata)
    cp "$BASE_TARGET_DIR/release/strata" "$OUT/base"
    echo "regress: building the work tree (release)" >&2
    CARGO_TARGET_DIR=$TARGET_DIR cargo build --release -q -p strata
    cp "$TARGET_DIR/release/strata" "$OUT/head"
fi

# One run: server µs/op from bench/cpu-per-op.sh's summary line.
run() { # run BUILD TARGET MODE
    STRATA_BIN=$OUT/$1 bench/cpu-per-op.sh "$2" "$3" |
        sed -n 's/^server CPU [0-9.]* s = \([0-9.]*\) us\/op.*/\1/p'
}

printf '%-16s %-6s %s\n' workload build "server us/op per run"
results=()
for workload in $WORKLOADS; do
    target=${workload%%:*} mode=${workload#*:}
    base_runs=() head_runs=()
    for round in $(seq 1 "$ROUNDS"); do
        # Alternate which build goes first, so neither always follows the other.
        order=(base head)
        (( round % 2 == 0 )) && order=(head base)
        for build in "${order[@]}"; do
            us=$(run "$build" "$target" "$mode")
            [[ -n $us ]] || { echo "regress: no figure from $build $workload" >&2; exit 1; }
            if [[ $build == base ]]; then base_runs+=("$us"); else head_runs+=("$us"); fi
        done
    done
    printf '%-16s %-6s %s\n' "$workload" base "${base_runs[*]}" "" head "${head_runs[*]}"
    results+=("$workload ${base_runs[*]} | ${head_runs[*]}")
done

echo
python3 - "${results[@]}" <<'PY'
import statistics, sys
print(f"{'workload':16} {'base':>8} {'head':>8} {'head/base':>10}")
for line in sys.argv[1:]:
    name, runs = line.split(" ", 1)
    base, head = ([float(x) for x in part.split()] for part in runs.split("|"))
    b, h = statistics.median(base), statistics.median(head)
    print(f"{name:16} {b:8.1f} {h:8.1f} {h / b:10.2f}")
PY
