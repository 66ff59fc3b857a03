#!/usr/bin/env bash
# Server CPU per operation and p99 latency of HBase's own workloads through HBase's native RPC,
# Strata against Apache HBase: the same unchanged Java clients (PerformanceEvaluation from
# hbase-mapreduce 2.6.4's tests jar with --nomapred, and YCSB 0.17 with our binding
# strataycsb.HBaseNativeDB), connected through each server's ZooKeeper, one system after the
# other on a quiet machine:
#
#   strata  `strata server` (release build) on a temporary data dir, native RPC + ZooKeeper
#           facade on free ports; its CPU is the server process's.
#   hbase   the HBase anchor (../shared/anchors/hbase, started --clean --no-thrift: HMaster +
#           RegionServer + ZooKeeper in one JVM); its CPU is the anchor's JVMs (the pid files
#           of start.sh). Stopped at the end, also on failure.
#
# Per system, in order (PE with THREADS clients, YCSB with THREADS threads, 1000-byte values):
#   PE randomWrite on its own table (after a buffered one that creates it, not measured;
#   measured with --autoFlush=true: one Put per RPC, each timed by PE),
#   sequentialWrite of TestTable (not measured), a short randomRead warm-up (not measured),
#   then randomRead, scanRange100 and increment on TestTable; YCSB usertable in 10 regions,
#   load (measured, not in the targets), then workloads A, C and E.
# Then, on Strata only, the same single-row Gets and Puts (PE's keys, 1000-byte values, THREADS
# connections) through Strata's Thrift1 server, with a small standard-library Python client
# (getRow / mutateRow, buffered binary): once paced at the rate the native run reached, once as
# fast as it goes. A server's CPU per operation depends on the request rate (an idle server pays
# a wake-up per request), so the paced run is the like-for-like comparison with the native path.
#
# Server CPU per op = (utime + stime of the server processes, /proc/PID/stat, read before the
# client JVM starts and after it exits) / operations. It includes the client's connection
# setup and whatever the server does in the background meanwhile (HBase's chores, flushes and
# compactions; Strata's flushes); the idle rate of each server is printed for scale. p99 is the
# tool's own: PE's per-client latency histogram (the highest p99 of the clients) and YCSB's
# 99thPercentileLatency of each operation type.
#
#   bench/hbase-native.sh
#     env: THREADS=4, PE_ROWS=10000 (rows per PE client), PE_SCANS=1000 (scanRange100 scans per
#       client), RECORDS=20000, OPS=20000 (YCSB A and C), E_OPS=2000, SYSTEMS="strata hbase",
#       SKIP_THRIFT=1 (no Thrift runs), STRATA_BIN (default target/release/strata, then
#       $CARGO_TARGET_DIR/release/strata), HBASE_ANCHOR (default ../shared/anchors/hbase),
#       KEEP_OUT=1 keeps every log in the output directory.
# Needs java 17+, mvn (first run: scripts/hbase-workloads-test's classpath), python3.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
THREADS=${THREADS:-4}
PE_ROWS=${PE_ROWS:-10000}
PE_SCANS=${PE_SCANS:-1000}
PE_WARM=${PE_WARM:-1000}
RECORDS=${RECORDS:-20000}
OPS=${OPS:-20000}
E_OPS=${E_OPS:-2000}
SYSTEMS=${SYSTEMS:-"strata hbase"}
VALUE=1000
HBASE_ANCHOR=${HBASE_ANCHOR:-$ROOT/../shared/anchors/hbase}
STRATA_BIN=${STRATA_BIN:-$ROOT/target/release/strata}
[[ -x $STRATA_BIN ]] || STRATA_BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release/strata
[[ -x $STRATA_BIN ]] || { echo "no strata binary at $STRATA_BIN: cargo build --release -p strata" >&2; exit 1; }

# The classpath and compiled classes of scripts/hbase-workloads-test (Maven on its first run).
CLASSPATH_=$(HBASE_WORKLOADS_SETUP_ONLY=1 scripts/hbase-workloads-test)

OUT=$(mktemp -d /tmp/strata-hbase-native.XXXXXX)
SERVER_PID=
ANCHOR_UP=
cleanup() {
  if [[ -n $SERVER_PID ]]; then kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null || true; fi
  if [[ -n $ANCHOR_UP ]]; then "$HBASE_ANCHOR/stop.sh" >>"$OUT/hbase-stop.log" 2>&1 || "$HBASE_ANCHOR/stop.sh" --kill >>"$OUT/hbase-stop.log" 2>&1 || true; fi
  if [[ -n "${KEEP_OUT:-}" ]]; then echo "logs kept in $OUT" >&2; else rm -rf "$OUT"; fi
}
trap cleanup EXIT

ticks() { # ticks PID...: utime + stime of the processes, in clock ticks
  local t=0 p
  for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done
  echo "$t"
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

write_conf() { # write_conf ZK_PORT: the clients' hbase-site.xml and logging into $OUT/conf
  mkdir -p "$OUT/conf"
  cat >"$OUT/conf/hbase-site.xml" <<EOF
<?xml version="1.0"?>
<configuration>
  <property><name>hbase.zookeeper.quorum</name><value>127.0.0.1</value></property>
  <property><name>hbase.zookeeper.property.clientPort</name><value>$1</value></property>
  <property><name>hbase.client.retries.number</name><value>5</value></property>
</configuration>
EOF
  printf '%s\n' 'org.slf4j.simpleLogger.defaultLogLevel=warn' \
    'org.slf4j.simpleLogger.log.org.apache.hadoop.hbase.PerformanceEvaluation=info' >"$OUT/conf/simplelogger.properties"
  printf '%s\n' 'log4j.rootLogger=warn, err' 'log4j.appender.err=org.apache.log4j.ConsoleAppender' \
    'log4j.appender.err.target=System.err' 'log4j.appender.err.layout=org.apache.log4j.PatternLayout' \
    'log4j.appender.err.layout.ConversionPattern=%p %c: %m%n' >"$OUT/conf/log4j.properties"
}
jrun() {
  java -XX:+IgnoreUnrecognizedVMOptions -Xmx1g \
    -Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true \
    --add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED \
    --add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/java.lang.reflect=ALL-UNNAMED \
    --add-opens java.base/java.util=ALL-UNNAMED --add-exports java.base/jdk.internal.misc=ALL-UNNAMED \
    -cp "$OUT/conf:$CLASSPATH_" "$@"
}

# measure SYSTEM WORKLOAD KIND OPS CMD...: runs CMD with the server's CPU ticks read around it;
# one line to $OUT/runs.tsv for the summary, which reads the tool's output ($OUT/SYSTEM-WORKLOAD.log).
measure() {
  local system=$1 workload=$2 kind=$3 ops=$4; shift 4
  local log="$OUT/$system-$workload.log" t0 t1 w0 w1 rc=0
  echo "  [$system] $workload" >&2
  t0=$(ticks "${PIDS[@]}"); w0=$(date +%s.%N)
  "$@" >"$log" 2>&1 || rc=$?
  t1=$(ticks "${PIDS[@]}"); w1=$(date +%s.%N)
  [[ $rc == 0 ]] || { echo "  [$system] $workload exited $rc; see $log" >&2; KEEP_OUT=1; }
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$system" "$workload" "$kind" "$ops" $((t1 - t0)) "$w0" "$w1" "$rc" >>"$OUT/runs.tsv"
}
idle() { # idle SYSTEM: the server's CPU over 5 quiet seconds
  local t0 t1
  t0=$(ticks "${PIDS[@]}"); sleep 5; t1=$(ticks "${PIDS[@]}")
  printf '%s\tidle\tidle\t0\t%s\t0\t5\t0\n' "$1" $((t1 - t0)) >>"$OUT/runs.tsv"
}
quiet() { "$@" >>"$OUT/setup.log" 2>&1 || { echo "setup step failed: $*; see $OUT/setup.log" >&2; KEEP_OUT=1; tail -20 "$OUT/setup.log" >&2; exit 1; }; }

pe_rate() { # pe_rate LOG OPS: the operations a second of a PE run (OPS / the slowest client's time)
  python3 - "$@" <<'PY'
import re, sys
ms = [int(m) for m in re.findall(r"Finished TestClient-\d+ in (\d+)ms", open(sys.argv[1]).read())]
print(f"{int(sys.argv[2]) / (max(ms) / 1000):.0f}" if ms else 0)
PY
}

# thrift_client PORT randomRead|randomWrite TABLE KEYS RATE: THREADS connections, PE_ROWS calls
# each, of Thrift1 getRow (checking a 1000-byte info0:0) or mutateRow (one 1000-byte info0:0),
# rows drawn at random from PE's keys 0..KEYS-1; RATE calls a second in all (0: unpaced). One
# JSON line: ops, ops/s, p50/p99 in µs, misses, errors.
thrift_client() {
  python3 - "$@" "$THREADS" "$PE_ROWS" "$VALUE" <<'PY'
import json, random, socket, struct, sys, threading, time

port, op, table, keys, rate, threads, per_thread, value = sys.argv[1:9]
port, keys, threads, per_thread, value, rate = int(port), int(keys), int(threads), int(per_thread), int(value), float(rate)
table, column = table.encode(), b"info0:0"

def text(b):
    return struct.pack(">i", len(b)) + b

def field(kind, fid):
    return struct.pack(">bh", kind, fid)

def request(seq, row, payload):
    """A strict binary-protocol CALL of getRow or mutateRow with empty attributes."""
    name = b"getRow" if op == "randomRead" else b"mutateRow"
    args = field(11, 1) + text(table) + field(11, 2) + text(row)
    if op == "randomRead":
        args += field(13, 3) + struct.pack(">bbi", 11, 11, 0)
    else:  # list<Mutation> with one Mutation {1: isDelete, 2: column, 3: value, 4: writeToWAL}
        mutation = (field(2, 1) + b"\x00" + field(11, 2) + text(column) + field(11, 3) + text(payload)
                    + field(2, 4) + b"\x01" + b"\x00")
        args += field(15, 3) + struct.pack(">bi", 12, 1) + mutation + field(13, 4) + struct.pack(">bbi", 11, 11, 0)
    return struct.pack(">I", 0x80010001) + text(name) + struct.pack(">i", seq) + args + b"\x00"

class Reader:
    """Reads one reply from a buffered stream into Python values (structs as {field id: value})."""
    def __init__(self, f):
        self.f = f
    def take(self, n):
        b = self.f.read(n)
        if len(b) != n:
            raise EOFError("connection closed")
        return b
    def value(self, t):
        fixed = {2: ">?", 3: ">b", 4: ">d", 6: ">h", 8: ">i", 10: ">q"}
        if t in fixed:
            return struct.unpack(fixed[t], self.take(struct.calcsize(fixed[t])))[0]
        if t == 11:
            return self.take(struct.unpack(">i", self.take(4))[0])
        if t == 12:
            out = {}
            while (ft := self.take(1)[0]) != 0:
                fid = struct.unpack(">h", self.take(2))[0]
                out[fid] = self.value(ft)
            return out
        if t == 13:
            kt, vt, n = struct.unpack(">bbi", self.take(6))
            return dict((self.value(kt), self.value(vt)) for _ in range(n))
        if t in (14, 15):
            et, n = struct.unpack(">bi", self.take(5))
            return [self.value(et) for _ in range(n)]
        raise ValueError(f"thrift type {t}")
    def reply(self):
        kind = struct.unpack(">I", self.take(4))[0] & 0xff
        self.take(struct.unpack(">i", self.take(4))[0] + 4)  # method name, seqid
        body = self.value(12)
        if kind != 2 or any(fid != 0 for fid in body):
            raise RuntimeError(f"exception reply: {body}")
        return body

lat, misses, errors, lock = [], [0], [], threading.Lock()

def client(i):
    rnd, mine, miss = random.Random(42 + i), [], 0
    payload = bytes(rnd.getrandbits(8) for _ in range(value))
    interval = threads / rate if rate > 0 else 0
    try:
        sock = socket.create_connection(("127.0.0.1", port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        reader, start = Reader(sock.makefile("rb")), time.perf_counter()
        for n in range(per_thread):
            if interval and (wait := start + n * interval - time.perf_counter()) > 0:
                time.sleep(wait)
            t0 = time.perf_counter()
            sock.sendall(request(n, b"%026d" % rnd.randrange(keys), payload))
            body = reader.reply()
            mine.append(time.perf_counter() - t0)
            if op == "randomRead":
                rows = body.get(0) or [{}]
                cell = rows[0].get(2, {}).get(column)
                miss += cell is None or len(cell.get(1, b"")) != value
        sock.close()
    except Exception as e:
        errors.append(repr(e))
    with lock:
        lat.extend(mine)
        misses[0] += miss

t0 = time.perf_counter()
ts = [threading.Thread(target=client, args=(i,)) for i in range(threads)]
for t in ts:
    t.start()
for t in ts:
    t.join()
secs = time.perf_counter() - t0
lat.sort()
pct = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1e6 if lat else None
print(json.dumps({"ops": len(lat), "ops_per_sec": len(lat) / secs, "p50_us": pct(0.5),
                  "p99_us": pct(0.99), "misses": misses[0], "errors": errors[:3]}))
sys.exit(1 if errors else 0)
PY
}

native_suite() { # native_suite SYSTEM: every PE and YCSB step through the native client
  local s=$1 pe=(jrun org.apache.hadoop.hbase.PerformanceEvaluation --nomapred --valueSize=$VALUE)
  local y=(jrun site.ycsb.Client -db strataycsb.HBaseNativeDB -threads "$THREADS" -p table=usertable
    -p columnfamily=family -p recordcount="$RECORDS" -P tests/java/hbase-workloads/workloads/workload-a)
  quiet jrun strataycsb.Tool drop PeRandom
  quiet jrun strataycsb.Tool drop TestTable
  idle "$s"
  # PE's tables are created (pre-split in 4 at PE's split points) outside the measured runs:
  # a buffered randomWrite (PE's default) creates PeRandom and warms the write path.
  quiet "${pe[@]}" --table=PeRandom --presplit=4 --rows="$PE_ROWS" randomWrite "$THREADS"
  measure "$s" randomWrite pe $((THREADS * PE_ROWS)) "${pe[@]}" --table=PeRandom --autoFlush=true --rows="$PE_ROWS" randomWrite "$THREADS"
  quiet "${pe[@]}" --presplit=4 --rows="$PE_ROWS" sequentialWrite "$THREADS"
  quiet "${pe[@]}" --rows="$PE_WARM" randomRead "$THREADS"
  measure "$s" randomRead pe $((THREADS * PE_ROWS)) "${pe[@]}" --rows="$PE_ROWS" randomRead "$THREADS"
  # PE draws the scans' start rows from the first THREADS x PE_SCANS rows of the table.
  measure "$s" scanRange100 pe $((THREADS * PE_SCANS)) "${pe[@]}" --rows="$PE_SCANS" scanRange100 "$THREADS"
  measure "$s" increment pe $((THREADS * PE_ROWS)) "${pe[@]}" --rows="$PE_ROWS" increment "$THREADS"
  quiet jrun strataycsb.Tool create usertable family 10
  measure "$s" ycsb-load ycsb "$RECORDS" "${y[@]}" -load -p operationcount="$OPS"
  measure "$s" ycsb-a ycsb "$OPS" "${y[@]}" -t -p operationcount="$OPS"
  y[-1]=tests/java/hbase-workloads/workloads/workload-c
  measure "$s" ycsb-c ycsb "$OPS" "${y[@]}" -t -p operationcount="$OPS"
  y[-1]=tests/java/hbase-workloads/workloads/workload-e
  measure "$s" ycsb-e ycsb "$E_OPS" "${y[@]}" -t -p operationcount="$E_OPS"
}

echo "hbase-native: THREADS=$THREADS PE_ROWS=$PE_ROWS PE_SCANS=$PE_SCANS RECORDS=$RECORDS OPS=$OPS E_OPS=$E_OPS; output in $OUT" >&2
uptime >"$OUT/uptime-start"
for system in $SYSTEMS; do
  case $system in
    strata)
      zk=$(free_port); hb=$(free_port); th=$(free_port)
      echo "starting strata server ($STRATA_BIN) ..." >&2
      "$STRATA_BIN" server --data-dir "$OUT/strata-data" --listen 127.0.0.1 --thrift-port "$th" \
        --http-port 0 --grpc-port 0 --hbase-port "$hb" --zookeeper-port "$zk" >"$OUT/strata-server.log" 2>&1 &
      SERVER_PID=$!
      for _ in $(seq 1 100); do grep -q listening "$OUT/strata-server.log" && break; sleep 0.1; done
      grep -q listening "$OUT/strata-server.log" || { cat "$OUT/strata-server.log" >&2; exit 1; }
      PIDS=("$SERVER_PID")
      write_conf "$zk"
      native_suite strata
      if [[ -z "${SKIP_THRIFT:-}" ]]; then
        # PeRandom and TestTable hold PE's rows 0..THREADS x PE_ROWS - 1 in info0:0.
        for op in randomWrite randomRead; do
          table=TestTable; [[ $op == randomWrite ]] && table=PeRandom
          rate=$(pe_rate "$OUT/strata-$op.log" $((THREADS * PE_ROWS)))
          measure strata-thrift "$op@native-rate" thrift $((THREADS * PE_ROWS)) \
            thrift_client "$th" "$op" "$table" $((THREADS * PE_ROWS)) "$rate"
          measure strata-thrift "$op@unpaced" thrift $((THREADS * PE_ROWS)) \
            thrift_client "$th" "$op" "$table" $((THREADS * PE_ROWS)) 0
        done
      fi
      kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID= ;;
    hbase)
      echo "starting the HBase anchor ..." >&2
      ANCHOR_UP=1
      "$HBASE_ANCHOR/start.sh" --clean --no-thrift >"$OUT/hbase-start.log" 2>&1 || { cat "$OUT/hbase-start.log" >&2; exit 1; }
      run_dir=${HBASE_ANCHOR_RUN:-${HBASE_ANCHOR_CACHE:-$HOME/.cache/strata-anchors/hbase}/run}
      PIDS=()
      for f in "$run_dir"/hbase-*.pid; do p=$(cat "$f"); kill -0 "$p" 2>/dev/null && PIDS+=("$p"); done
      [[ ${#PIDS[@]} -gt 0 ]] || { echo "no anchor JVM found from $run_dir/hbase-*.pid" >&2; exit 1; }
      write_conf 2181
      native_suite hbase
      "$HBASE_ANCHOR/stop.sh" >>"$OUT/hbase-stop.log" 2>&1 || "$HBASE_ANCHOR/stop.sh" --kill >>"$OUT/hbase-stop.log" 2>&1
      ANCHOR_UP= ;;
    *) echo "unknown system $system (strata, hbase)" >&2; exit 2 ;;
  esac
done
uptime >"$OUT/uptime-end"
echo "load average at the start: $(sed 's/.*load average: //' "$OUT/uptime-start"); at the end: $(sed 's/.*load average: //' "$OUT/uptime-end")"

python3 - "$OUT" "$(getconf CLK_TCK)" <<'PY'
import json, re, sys
out, hz = sys.argv[1], int(sys.argv[2])
runs = {}
for line in open(f"{out}/runs.tsv"):
    system, workload, kind, ops, ticks, w0, w1, rc = line.rstrip("\n").split("\t")
    runs[(system, workload)] = dict(kind=kind, ops=int(ops), cpu=int(ticks) / hz,
                                    secs=float(w1) - float(w0), rc=int(rc))

def parse(system, workload, r):
    """Adds p99 (per op type), ops/s and problems from the tool's output."""
    r["p99"], r["problems"] = {}, []
    if r["rc"] != 0:
        r["problems"].append(f"exit {r['rc']}")
    text = open(f"{out}/{system}-{workload}.log", errors="replace").read()
    if r["kind"] == "pe":
        p99s = [float(m) for m in re.findall(r"Latency \(us\) : .*?, 99th=([0-9.]+)", text)]
        ms = [int(m) for m in re.findall(r"Finished TestClient-\d+ in (\d+)ms over \d+ rows", text)]
        if p99s:
            r["p99"]["op"] = max(p99s)
        if ms:
            r["rate"] = r["ops"] / (max(ms) / 1000)
        if len(ms) != THREADS_OF(text):
            r["problems"].append(f"{len(ms)} PE clients finished")
    elif r["kind"] == "ycsb":
        ok, total = 0, 0
        for sec, key, val in re.findall(r"^\[([\w-]+)\], ([^,]+), (.+)$", text, re.M):
            if sec == "OVERALL" and key.startswith("Throughput"):
                r["rate"] = float(val)
            elif sec in ("OVERALL", "CLEANUP") or sec.startswith("TOTAL"):
                continue
            elif sec.endswith("-FAILED") and key == "Operations":
                r["problems"].append(f"{sec} {val}")
            elif key == "Operations":
                total += int(val)
            elif key == "99thPercentileLatency(us)":
                r["p99"][sec.lower()] = float(val)
            elif key == "Return=OK":
                ok += int(val)
        if ok != r["ops"] or total != r["ops"]:
            r["problems"].append(f"{ok} OK of {total}, expected {r['ops']}")
    elif r["kind"] == "thrift":
        lines = [l for l in text.splitlines() if l.startswith("{")]
        if lines:
            res = json.loads(lines[-1])
            r["p99"]["op"], r["rate"] = res["p99_us"], res["ops_per_sec"]
            if res["misses"] or res["errors"] or res["ops"] != r["ops"]:
                r["problems"].append(f"{res['ops']} calls, {res['misses']} misses, errors {res['errors']}")
        else:
            r["problems"].append("no result line")

def THREADS_OF(text):
    m = re.search(r'"numClientThreads":(\d+)', text)
    return int(m.group(1)) if m else -1

for (system, workload), r in runs.items():
    if workload != "idle":
        parse(system, workload, r)

def us(r):
    return r["cpu"] / r["ops"] * 1e6
def p99(r):
    return max(r["p99"].values()) if r["p99"] else None
def fmt(x, spec=",.0f"):
    return "-" if x is None else format(x, spec)
def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "-"

print("\nidle server CPU: " + ", ".join(
    f"{s} {runs[(s, 'idle')]['cpu'] / 5 * 1000:.0f} ms/s" for s in ("strata", "hbase") if (s, "idle") in runs))
print(f"\n{'workload':<14} {'ops':>7} | {'HBase ops/s':>11} {'Strata ops/s':>12} | {'server CPU us/op H':>18} {'S':>7} {'S/H':>5} | "
      f"{'p99 us H':>9} {'S':>9} {'S/H':>5} | p99 per op type (Strata)")
order = ["randomWrite", "randomRead", "scanRange100", "increment", "ycsb-load", "ycsb-a", "ycsb-c", "ycsb-e"]
for w in order:
    h, s = runs.get(("hbase", w)), runs.get(("strata", w))
    if not (h or s):
        continue
    any_ = h or s
    types = " ".join(f"{k}={v:,.0f}" for k, v in sorted((s or h)["p99"].items())) if (s or h)["p99"] else ""
    print(f"{w:<14} {any_['ops']:>7} | {fmt(h and h.get('rate')):>11} {fmt(s and s.get('rate')):>12} | "
          f"{fmt(h and us(h), '.1f'):>18} {fmt(s and us(s), '.1f'):>7} {ratio(s and us(s), h and us(h)):>5} | "
          f"{fmt(h and p99(h)):>9} {fmt(s and p99(s)):>9} {ratio(s and p99(s), h and p99(h)):>5} | {types}")
thrift = [w for (sys_, w) in runs if sys_ == "strata-thrift"]
if thrift:
    print("\nStrata, the same operation through the native RPC (Java PE) and Thrift1 (Python client):")
    print(f"{'workload':<14} {'path':<22} {'ops':>7} {'ops/s':>8} {'server CPU us/op':>17} {'vs native':>9} {'p99 us':>8}")
    for w in ("randomWrite", "randomRead"):
        n = runs.get(("strata", w))
        rows = [("native (PE)", n)] + [(f"thrift {k.split('@')[1]}", runs[("strata-thrift", k)])
                                       for k in thrift if k.startswith(w + "@")]
        for path, r in rows:
            if r:
                print(f"{w:<14} {path:<22} {r['ops']:>7} {fmt(r.get('rate')):>8} {us(r):>17.1f} "
                      f"{ratio(us(r), n and us(n)):>9} {fmt(p99(r)):>8}")
bad = [(k, r["problems"]) for k, r in runs.items() if r.get("problems")]
for (system, w), problems in bad:
    print(f"PROBLEM {system} {w}: {'; '.join(problems)}")
sys.exit(1 if bad else 0)
PY
