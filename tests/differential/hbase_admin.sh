#!/usr/bin/env bash
# Starts HBaseAdminHelper.java on the HBase anchor's classpath (flush / major compaction for
# the differential test; see HBaseAdminHelper.java). HBASE_ANCHOR_DIR: the anchor's scripts,
# default ../shared/anchors/hbase from the repository root.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
anchor="${HBASE_ANCHOR_DIR:-$here/../../../shared/anchors/hbase}"
. "$anchor/common.sh"
hbase_anchor_require_lib
mkdir -p "$HBASE_ANCHOR_LOGS"
mapfile -t OPTS < <(hbase_anchor_java_opts client)
exec "$JAVA" -Xmx256m "${OPTS[@]}" -Dhbase.log.file=admin-helper.log \
  -cp "$(hbase_anchor_classpath)" "$here/HBaseAdminHelper.java"
