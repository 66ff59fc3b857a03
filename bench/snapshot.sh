#!/usr/bin/env bash
# What a snapshot costs: a standalone server, a table of ROWS rows of VALUE_SIZE bytes in
# REGIONS regions (written with `strata bench pe sequentialWrite` over Thrift), then, from
# `strata shell`, the time of `snapshot`, `clone_snapshot`, a `count` of the clone,
# `restore_snapshot` and `delete_snapshot` (HBase shell's "Took" lines), and the bytes the
# data directory holds before and after (hard links: a snapshot adds next to nothing).
#
#   bench/snapshot.sh        env: STRATA_BIN (default target/release/strata), ROWS=1000000,
#                            VALUE_SIZE=1000, REGIONS=8
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
STRATA_BIN=${STRATA_BIN:-$ROOT/target/release/strata}
ROWS=${ROWS:-1000000}
VALUE_SIZE=${VALUE_SIZE:-1000}
REGIONS=${REGIONS:-8}
[[ -x $STRATA_BIN ]] || { echo "no strata binary at $STRATA_BIN: cargo build --release -p strata" >&2; exit 1; }

DIR=$(mktemp -d /tmp/strata-snapshot-bench.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$STRATA_BIN" server --data-dir "$DIR/data" --thrift-port "$PORT" --grpc-port 0 --http-port 0 \
    >"$DIR/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; rm -rf "$DIR"' EXIT
for _ in $(seq 1 100); do grep -q listening "$DIR/server.log" && break; sleep 0.1; done

shell() { "$STRATA_BIN" shell --port "$PORT" -e "$1"; }
# Split points between the benchmark's zero-padded row keys.
splits=$(python3 -c "
rows, n = $ROWS, $REGIONS
print(','.join(\"'%026d'\" % (rows * i // n) for i in range(1, n)))")
shell "create 'snap_src', 'info', {SPLITS => [$splits]}" >/dev/null
"$STRATA_BIN" bench pe sequentialWrite --target thrift --port "$PORT" --table snap_src \
    --family info --rows "$ROWS" --value-size "$VALUE_SIZE" --threads 1 --quiet >/dev/null
shell "flush 'snap_src'; major_compact 'snap_src'" >/dev/null
du_bytes() { du -sb "$DIR/data" | cut -f1; }
before=$(du_bytes)
took() { # label, shell command: prints the command's Took line
    local out
    out=$(shell "$2")
    printf '%-18s %s\n' "$1" "$(grep -o 'Took [0-9.]* seconds' <<<"$out" | tail -1)"
}
echo "table: $ROWS rows x $VALUE_SIZE B in $REGIONS regions, $(numfmt --to=iec "$before") on disk"
took snapshot "snapshot 'snap_src', 's1'"
echo "on disk after the snapshot: $(numfmt --to=iec "$(du_bytes)") (du counts each file once)"
took clone_snapshot "clone_snapshot 's1', 'snap_copy'"
took "count (clone)" "count 'snap_copy', INTERVAL => 100000000, CACHE => 10000"
took restore_snapshot "disable 'snap_src'; restore_snapshot 's1'"
took delete_snapshot "delete_snapshot 's1'"
