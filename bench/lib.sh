# Shared by the benchmark scripts that start one standalone server per run (source it).

# start_server CONFIG LOG HTTP_PORT: starts `$STRATA_BIN server --config CONFIG` in the
# background with its output in LOG, sets SERVER_PID, and waits up to 20 s for /readyz;
# prints LOG and exits if the server never gets ready.
start_server() {
  local config=$1 log=$2 http_port=$3
  "$STRATA_BIN" server --config "$config" >"$log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 200); do
    curl -sf "http://127.0.0.1:$http_port/readyz" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  cat "$log" >&2
  exit 1
}
