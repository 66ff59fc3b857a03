#!/usr/bin/env bash
# HBase's own REST server (org.apache.hadoop.hbase.rest.RESTServer, hbase-rest 2.6.1) next to
# the HBase anchor (HBASE_ANCHOR, default ../shared/anchors/hbase from the repository root),
# for comparing Strata's REST gateway with it (tests/rest/compare.py). Loopback only; jars
# come from Maven Central into $HOME/.cache/strata-anchors/hbase-rest.
#
#   scripts/hbase-rest-anchor/run.sh setup   # resolve the jars (once)
#   scripts/hbase-rest-anchor/run.sh start   # needs the anchor HBase up (its start.sh --no-thrift)
#   scripts/hbase-rest-anchor/run.sh stop
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
HBASE_ANCHOR="${HBASE_ANCHOR:-$ROOT/../shared/anchors/hbase}"
# shellcheck source=/dev/null
source "$HBASE_ANCHOR/common.sh"

REST_CACHE="${REST_CACHE:-$HOME/.cache/strata-anchors/hbase-rest}"
REST_LIB="$REST_CACHE/lib-$HBASE_VERSION"
REST_CONF="$REST_CACHE/conf"
REST_PORT="${HBASE_REST_PORT:-8081}"
REST_PID_FILE="$REST_CACHE/hbase-rest.pid"

setup() {
  mkdir -p "$REST_CACHE"
  if [ ! -f "$REST_LIB/.complete" ]; then
    mvn -B -q -Dstyle.color=never -f "$HERE/pom.xml" -Dmaven.repo.local="$HBASE_ANCHOR_M2" \
      -Dhbase.version="$HBASE_VERSION" -Drest.lib.dir="$REST_LIB" dependency:copy-dependencies
    touch "$REST_LIB/.complete"
  fi
  # The anchor's configuration plus the REST server's address; its info server is off.
  mkdir -p "$REST_CONF"
  cp "$ANCHOR_CONF_DIR"/* "$REST_CONF/"
  local extra="<property><name>hbase.rest.host</name><value>127.0.0.1</value></property>"
  extra+="<property><name>hbase.rest.port</name><value>$REST_PORT</value></property>"
  extra+="<property><name>hbase.rest.info.port</name><value>-1</value></property>"
  sed -i "s#</configuration>#$extra</configuration>#" "$REST_CONF/hbase-site.xml"
}

start() {
  setup
  mkdir -p "$HBASE_ANCHOR_LOGS"
  mapfile -t OPTS < <(hbase_anchor_java_opts rest)
  # Hadoop drags in servlet-api 2.5; the REST server's Jetty needs the 3.1 API first.
  local cp="$REST_CONF:$(ls "$REST_LIB"/javax.servlet-api-*.jar | head -1):$REST_LIB/*"
  nohup "$JAVA" -Xmx512m "${OPTS[@]}" -cp "$cp" \
    org.apache.hadoop.hbase.rest.RESTServer start > "$HBASE_ANCHOR_LOGS/rest.out" 2>&1 &
  echo $! > "$REST_PID_FILE"
  for _ in $(seq 1 120); do
    if curl -sf "http://127.0.0.1:$REST_PORT/version/cluster" > /dev/null; then
      echo "hbase-rest listening on 127.0.0.1:$REST_PORT (pid $(cat "$REST_PID_FILE"))"
      return 0
    fi
    sleep 1
  done
  echo "hbase-rest did not come up; see $HBASE_ANCHOR_LOGS/rest.out and rest.log" >&2
  return 1
}

stop() {
  local pid
  if pid="$(pid_is_ours "$REST_PID_FILE" rest)"; then
    kill "$pid"
    echo "stopped hbase-rest (pid $pid)"
  fi
  rm -f "$REST_PID_FILE"
}

case "${1:-}" in
  setup) setup ;;
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 setup|start|stop" >&2; exit 2 ;;
esac
