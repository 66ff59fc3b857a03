#!/usr/bin/env python3
"""Sends the same REST requests to HBase's REST server and to Strata's gateway and reports
where the answers differ (status, media type, Location / X-Timestamp headers, body with
server-assigned timestamps and scanner ids masked).

Opt-in, not part of CI. Start both first:
  ../shared/anchors/hbase/start.sh --no-thrift && scripts/hbase-rest-anchor/run.sh start
  cargo run -p strata-rest --example serve -- --data-dir /tmp/strata-rest-cmp --port 18081
  python3 tests/rest/compare.py --hbase http://127.0.0.1:8081 --strata http://127.0.0.1:18081
"""

import argparse
import base64
import http.client
import json
import re
import sys
import urllib.parse

TABLE = "rest_cmp"


def b64(data):
    return base64.b64encode(data if isinstance(data, bytes) else data.encode()).decode()


def cellset(rows):
    """rows: [(row, [(column, ts or None, value)])] -> JSON CellSet text."""
    out = []
    for key, cells in rows:
        items = []
        for column, ts, value in cells:
            cell = {"column": b64(column), "$": b64(value)}
            if ts is not None:
                cell["timestamp"] = ts
            items.append(cell)
        out.append({"key": b64(key), "Cell": items})
    return json.dumps({"Row": out})


def xml_cellset(key, cells):
    inner = "".join(
        f'<Cell column="{b64(c)}" timestamp="{ts}">{b64(v)}</Cell>' for c, ts, v in cells)
    return f'<?xml version="1.0" encoding="UTF-8"?><CellSet><Row key="{b64(key)}">{inner}</Row></CellSet>'


def steps():
    """(name, method, path, headers, body, compare_body) in order; later steps depend on
    earlier ones."""
    t = TABLE
    J, X, O = "application/json", "text/xml", "application/octet-stream"
    schema = json.dumps({"name": t, "ColumnSchema": [{"name": "cf", "VERSIONS": "3"}, {"name": "cf2"}]})
    return [
        ("cleanup", "DELETE", f"/{t}/schema", {}, None, False),
        ("version/cluster text", "GET", "/version/cluster", {}, None, True),
        ("version/cluster json", "GET", "/version/cluster", {"Accept": J}, None, True),
        ("version/cluster xml", "GET", "/version/cluster", {"Accept": X}, None, True),
        ("version json", "GET", "/version", {"Accept": J}, None, False),
        ("create table", "PUT", f"/{t}/schema", {"Content-Type": J}, schema, True),
        ("schema json", "GET", f"/{t}/schema", {"Accept": J}, None, True),
        ("schema xml", "GET", f"/{t}/schema", {"Accept": X}, None, True),
        ("put json cellset", "PUT", f"/{t}/row1", {"Content-Type": J},
         cellset([("row1", [("cf:a", 100, "v100"), ("cf:b", 100, "b")]),
                  ("row2", [("cf:a", 100, "r2")])]), True),
        ("put json newer", "POST", f"/{t}/row1", {"Content-Type": J},
         cellset([("row1", [("cf:a", 200, "v200"), ("cf:a", 300, "v300")])]), True),
        ("put xml cellset", "PUT", f"/{t}/row3", {"Content-Type": X},
         xml_cellset("row3", [("cf:a", 100, "x"), ("cf2:z", 100, "z")]), True),
        ("put raw value", "PUT", f"/{t}/row%2F4/cf:a/100", {"Content-Type": O}, "raw", True),
        ("put raw no column", "PUT", f"/{t}/row5", {"Content-Type": O}, "raw", False),
        ("get row default (xml)", "GET", f"/{t}/row1", {}, None, True),
        ("get row json", "GET", f"/{t}/row1", {"Accept": J}, None, True),
        ("get row v=3", "GET", f"/{t}/row1?v=3", {"Accept": J}, None, True),
        ("get column at ts", "GET", f"/{t}/row1/cf:a/200", {"Accept": J}, None, True),
        ("get column ts range", "GET", f"/{t}/row1/cf:a/100,300?v=3", {"Accept": J}, None, True),
        ("get two columns", "GET", f"/{t}/row1/cf:a,cf:b", {"Accept": J}, None, True),
        ("get family", "GET", f"/{t}/row3/cf2", {"Accept": J}, None, True),
        ("get encoded row", "GET", f"/{t}/row%2F4", {"Accept": J}, None, True),
        ("get raw", "GET", f"/{t}/row1/cf:a", {"Accept": O}, None, True),
        ("get raw two columns", "GET", f"/{t}/row1", {"Accept": O}, None, False),
        ("get missing row", "GET", f"/{t}/nope", {"Accept": J}, None, False),
        ("get missing table", "GET", "/no_such_table/row", {"Accept": J}, None, False),
        ("get missing family", "GET", f"/{t}/row1/nofam:a", {"Accept": J}, None, False),
        ("get protobuf", "GET", f"/{t}/row1", {"Accept": "application/x-protobuf"}, None, False),
        ("multiget", "GET", f"/{t}/multiget?row=row1&row=row2&row=nope", {"Accept": J}, None, True),
        ("multiget v=2", "GET", f"/{t}/multiget?row=row1&v=2", {"Accept": J}, None, True),
        ("multiget none", "GET", f"/{t}/multiget?row=nope", {"Accept": J}, None, False),
        ("glob scan", "GET", f"/{t}/row*", {"Accept": J}, None, True),
        ("glob with family", "GET", f"/{t}/row*/cf2", {"Accept": J}, None, True),
        ("row range", "GET", f"/{t}/row1,row3", {"Accept": J}, None, True),
        ("table list json", "GET", "/", {"Accept": J}, None, True),
        ("regions json", "GET", f"/{t}/regions", {"Accept": J}, None, False),
        ("scanner open", "PUT", f"/{t}/scanner", {"Content-Type": X},
         f'<Scanner batch="2" startRow="{b64("row1")}" endRow="{b64("row3")}"/>', True),
        ("scanner next 1", "GET", "{scanner}", {"Accept": J}, None, True),
        ("scanner next 2", "GET", "{scanner}", {"Accept": J}, None, True),
        ("scanner next 3", "GET", "{scanner}", {"Accept": J}, None, True),
        ("scanner close", "DELETE", "{scanner}", {}, None, True),
        ("scanner after close", "GET", "{scanner}", {"Accept": J}, None, False),
        ("scanner json filter", "PUT", f"/{t}/scanner", {"Content-Type": J},
         json.dumps({"batch": 10, "filter": json.dumps({"type": "PrefixFilter", "value": b64("row2")})}), True),
        ("filtered next", "GET", "{scanner}", {"Accept": J}, None, True),
        ("scanner columns+time", "PUT", f"/{t}/scanner", {"Content-Type": J},
         json.dumps({"batch": 100, "column": [b64("cf:a")], "startTime": 150, "endTime": 400}), True),
        ("columns+time next", "GET", "{scanner}", {"Accept": X}, None, True),
        ("scanner for n and c", "PUT", f"/{t}/scanner", {"Content-Type": X}, '<Scanner batch="100"/>', True),
        ("next n=1", "GET", "{scanner}?n=1", {"Accept": J}, None, True),
        ("next c=2", "GET", "{scanner}?c=2", {"Accept": J}, None, True),
        ("empty glob", "GET", f"/{t}/zzz*", {"Accept": J}, None, True),
        ("empty glob xml", "GET", f"/{t}/zzz*", {"Accept": X}, None, True),
        ("multiget column path", "GET", f"/{t}/multiget/cf:b?row=row1&row=row3", {"Accept": J}, None, True),
        ("multiget encoded row", "GET", f"/{t}/multiget?row=row%252F4", {"Accept": J}, None, True),
        ("put without row key", "PUT", f"/{t}/row6", {"Content-Type": J},
         json.dumps({"Row": [{"Cell": [{"column": b64("cf:k"), "timestamp": 5, "$": b64("nokey")}]}]}), True),
        ("get row6", "GET", f"/{t}/row6", {"Accept": J}, None, True),
        ("put missing family", "PUT", f"/{t}/row6", {"Content-Type": J},
         cellset([("row6", [("nofam:k", 5, "x")])]), False),
        ("put raw X-Timestamp", "PUT", f"/{t}/row7/cf:r", {"Content-Type": O, "X-Timestamp": "77"}, "seven", True),
        ("get raw row7", "GET", f"/{t}/row7/cf:r", {"Accept": O}, None, True),
        ("get any accept", "GET", f"/{t}/row7", {"Accept": "*/*"}, None, True),
        ("get time range to 0", "GET", f"/{t}/row1/cf:a/100,0", {"Accept": J}, None, True),
        ("delete missing row", "DELETE", f"/{t}/nope", {}, None, True),
        ("delete row at ts", "DELETE", f"/{t}/row2/100", {}, None, True),
        ("after row ts delete", "GET", f"/{t}/row2", {"Accept": J}, None, False),
        ("schema post update", "POST", f"/{t}/schema", {"Content-Type": J},
         json.dumps({"name": t, "ColumnSchema": [{"name": "cf3"}]}), True),
        ("schema after post", "GET", f"/{t}/schema", {"Accept": J}, None, False),
        ("schema put replace", "PUT", f"/{t}/schema", {"Content-Type": J}, schema, True),
        ("schema after replace", "GET", f"/{t}/schema", {"Accept": J}, None, False),
        ("table list text", "GET", "/", {}, None, True),
        ("delete column at ts", "DELETE", f"/{t}/row1/cf:a/200", {}, None, True),
        ("after column delete", "GET", f"/{t}/row1?v=3", {"Accept": J}, None, True),
        ("delete family", "DELETE", f"/{t}/row3/cf2", {}, None, True),
        ("after family delete", "GET", f"/{t}/row3", {"Accept": J}, None, True),
        ("delete row", "DELETE", f"/{t}/row1", {}, None, True),
        ("after row delete", "GET", f"/{t}/row1", {"Accept": J}, None, False),
        ("bad json body", "PUT", f"/{t}/row1", {"Content-Type": J}, "{", False),
        ("text body", "PUT", f"/{t}/row1", {"Content-Type": "text/plain"}, "x", False),
        ("bad timestamp", "GET", f"/{t}/row1/cf:a/abc", {"Accept": J}, None, False),
        ("table without row", "GET", f"/{t}", {"Accept": J}, None, False),
        ("exists", "GET", f"/{t}/exists", {}, None, True),
        ("exists missing", "GET", "/no_such_table/exists", {}, None, True),
        ("ns cleanup", "DELETE", "/namespaces/cmp_ns", {}, None, False),
        ("ns create", "POST", "/namespaces/cmp_ns", {}, None, True),
        ("ns create again", "POST", "/namespaces/cmp_ns", {}, None, True),
        ("ns alter missing", "PUT", "/namespaces/cmp_missing", {}, None, True),
        ("ns list json", "GET", "/namespaces", {"Accept": J}, None, True),
        ("ns list xml", "GET", "/namespaces", {"Accept": X}, None, True),
        ("ns get json", "GET", "/namespaces/cmp_ns", {"Accept": J}, None, True),
        ("ns get xml", "GET", "/namespaces/cmp_ns", {"Accept": X}, None, True),
        ("ns table create", "PUT", "/cmp_ns:nt/schema", {"Content-Type": J},
         json.dumps({"name": "cmp_ns:nt", "ColumnSchema": [{"name": "cf"}]}), True),
        ("ns tables json", "GET", "/namespaces/cmp_ns/tables", {"Accept": J}, None, True),
        ("table list with ns", "GET", "/", {"Accept": J}, None, True),
        ("ns drop non-empty", "DELETE", "/namespaces/cmp_ns", {}, None, False),
        ("ns table drop", "DELETE", "/cmp_ns:nt/schema", {}, None, True),
        ("ns drop", "DELETE", "/namespaces/cmp_ns", {}, None, True),
        ("ns drop missing", "DELETE", "/namespaces/cmp_ns", {}, None, True),
        ("drop table", "DELETE", f"/{t}/schema", {}, None, True),
        ("schema after drop", "GET", f"/{t}/schema", {"Accept": J}, None, False),
    ]


def request(base, method, path, headers, body):
    url = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    data = body.encode() if isinstance(body, str) else body
    conn.request(method, path, body=data, headers=headers)
    resp = conn.getresponse()
    payload = resp.read()
    conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, payload


def mask(body):
    text = body.decode("utf-8", "replace")
    text = re.sub(r'("timestamp":\s*|timestamp=")\d{13,}', r"\1NOW", text)
    try:
        return json.loads(text)
    except ValueError:
        return text.strip()


def media(headers):
    return headers.get("content-type", "").split(";")[0].strip()


def run(hbase, strata):
    scanners = {hbase: None, strata: None}
    matched, differed = [], []
    for name, method, path, headers, body, compare_body in steps():
        answers = {}
        for base in (hbase, strata):
            real = path.replace("{scanner}", scanners[base] or "/none/scanner/0")
            status, hdrs, payload = request(base, method, real, headers, body)
            if "location" in hdrs and "/scanner/" in hdrs["location"]:
                scanners[base] = urllib.parse.urlsplit(hdrs["location"]).path
            answers[base] = (status, media(hdrs), "x-timestamp" in hdrs, mask(payload))
        h, s = answers[hbase], answers[strata]
        diffs = []
        if h[0] != s[0]:
            diffs.append(f"status {h[0]} vs {s[0]}")
        if h[1] != s[1] and (h[3] or s[3]):
            diffs.append(f"content-type {h[1]!r} vs {s[1]!r}")
        if h[2] != s[2]:
            diffs.append("X-Timestamp presence")
        if compare_body and h[3] != s[3]:
            diffs.append(f"body\n      hbase:  {str(h[3])[:300]}\n      strata: {str(s[3])[:300]}")
        elif not compare_body and h[3] != s[3]:
            diffs.append(f"(body not compared)\n      hbase:  {str(h[3])[:200]}\n      strata: {str(s[3])[:200]}")
        line = f"{method} {path} [{name}]"
        (differed if [d for d in diffs if not d.startswith("(")] else matched).append((line, diffs))
    for line, diffs in matched:
        print(f"MATCH  {line}" + (f"\n    {diffs[0]}" if diffs else ""))
    for line, diffs in differed:
        print(f"DIFFER {line}")
        for d in diffs:
            print(f"    {d}")
    print(f"\n{len(matched)} matched, {len(differed)} differed")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hbase", default="http://127.0.0.1:8081")
    parser.add_argument("--strata", default="http://127.0.0.1:18081")
    args = parser.parse_args()
    sys.exit(run(args.hbase, args.strata))


if __name__ == "__main__":
    main()
