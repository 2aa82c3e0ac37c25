#!/bin/bash
# Where a server's CPU goes under real load, by sampling (`perf record -e cpu-clock`, Debian's
# linux-perf), as samples per 1,000 requests: what callgrind's instruction counts leave out
# (cache misses, system calls, the kernel's side of the sockets) is in these. The server runs on
# CPU 1 with --perf-basic-prof (JIT frames named), autocannon on CPU 0 with 50 connections: a
# 3-second warm-up, then SAMPLE_SECONDS of sampling inside a load run two seconds longer.
#
#   bench/perf-sample.sh https understudy [CLI_DIR] # the paths suite's POST over TLS (HTTP/1.1)
#   bench/perf-sample.sh https bare                 # bench/servers/bare-tls.ts, BARE_KIND=https
#   bench/perf-sample.sh http  understudy|bare      # S2 over HTTP/1.1 (bare: bench/servers/bare-http.ts)
#   bench/perf-sample.sh h2    understudy|bare      # the HTTPS POST over h2 (bare: BARE_KIND=h2), with
#                                                   # nghttp2's h2load (10 clients of 5 streams)
# Environment: GET_PATH (GETs of that path instead of the POSTs; the paths document answers
# /api/hello), FLAGS (more Understudy flags, e.g. --no-inspection), SAMPLE_SECONDS (default 6), OUT
# (default a temp dir), PERF_EXTRA (more perf record flags, e.g. -g for call chains).
# Writes $OUT/dso.txt and $OUT/symbols.txt ("samples-per-1000-requests name" lines); compare two
# runs with `npx tsx bench/perf-compare.ts OUT_A OUT_B`.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 http|https|h2 understudy|bare [CLI_DIR]" >&2; exit 2; }
PROTOCOL=$1
SERVER=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLI_DIR=$(cd "${3:-$ROOT}" && pwd)
SAMPLE_SECONDS=${SAMPLE_SECONDS:-6}
[[ "$SAMPLE_SECONDS" =~ ^[1-9][0-9]*$ ]] ||
  { echo "SAMPLE_SECONDS must be a whole number of seconds, not '$SAMPLE_SECONDS'" >&2; exit 2; }
OUT=${OUT:-$(mktemp -d)}
AUTOCANNON="$ROOT/node_modules/.bin/autocannon"
command -v perf >/dev/null || { echo "perf is not installed (apt-get install linux-perf)" >&2; exit 2; }
if [ "$PROTOCOL" = h2 ]; then
  command -v h2load >/dev/null || { echo "h2load is not installed (apt-get install nghttp2-client)" >&2; exit 2; }
fi
mkdir -p "$OUT"
npx tsx "$ROOT/bench/callgrind-setup.ts" "$OUT"
# shellcheck source=bench/bench-server.sh
. "$ROOT/bench/bench-server.sh"
start_bench_server "$PROTOCOL" "$SERVER" "$CLI_DIR" "$OUT" taskset -c 1 node --perf-basic-prof
PID=$SERVER_PID
URL=$SERVER_URL
trap 'kill "$PID" 2>/dev/null || true' EXIT
# Certificates are self-signed: the load generator does not verify them.
export NODE_TLS_REJECT_UNAUTHORIZED=0 NODE_NO_WARNINGS=1
TARGET="$URL${GET_PATH:-/api/orders}"
LOAD_SECONDS=$((SAMPLE_SECONDS + 2))
if [ "$PROTOCOL" = h2 ]; then
  REQUEST=(-H "content-type: application/json" -d "$OUT/body.json")
else
  REQUEST=(-m POST -H content-type=application/json -i "$OUT/body.json")
fi
[ -n "${GET_PATH:-}" ] && REQUEST=()
if [ "$PROTOCOL" = h2 ]; then
  H2LOAD=(taskset -c 0 h2load -c 10 -m 5 -t 1 ${REQUEST[@]+"${REQUEST[@]}"} "$TARGET")
  "${H2LOAD[@]}" -D 3 >/dev/null 2>&1
  "${H2LOAD[@]}" -D "$LOAD_SECONDS" >"$OUT/load.txt" 2>&1 &
else
  taskset -c 0 "$AUTOCANNON" -c 50 -d 3 ${REQUEST[@]+"${REQUEST[@]}"} "$TARGET" >/dev/null 2>&1
  taskset -c 0 "$AUTOCANNON" -c 50 -d "$LOAD_SECONDS" --json ${REQUEST[@]+"${REQUEST[@]}"} "$TARGET" \
    >"$OUT/load.json" 2>/dev/null &
fi
LOAD=$!
sleep 1
# shellcheck disable=SC2086
perf record -q ${PERF_EXTRA:-} -F 2999 -e cpu-clock -p "$PID" -o "$OUT/perf.data" -- sleep "$SAMPLE_SECONDS" \
  2>/dev/null
wait "$LOAD"
if [ "$PROTOCOL" = h2 ]; then
  TOTAL=$(sed -n 's/^requests: [0-9]* total, [0-9]* started, \([0-9]*\) done.*/\1/p' "$OUT/load.txt")
else
  TOTAL=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).requests.total)' \
    "$OUT/load.json")
fi
# Requests in the sampled window: the load's rate times the window.
SAMPLED=$((TOTAL * SAMPLE_SECONDS / LOAD_SECONDS))
perf_table() {
  perf report -i "$OUT/perf.data" --no-children --sort "$1" -n -q 2>/dev/null |
    awk -v n="$SAMPLED" '$2 ~ /^[0-9]+$/ { c = $2; $1 = ""; $2 = ""; sub(/^ +/, ""); sub(/^\[.\] /, "");
      gsub(/\+0x[0-9a-f]+/, ""); gsub(/tid [0-9]+/, "tid"); printf "%.3f %s\n", c * 1000 / n, $0 }'
}
perf_table dso >"$OUT/dso.txt"
perf_table sym >"$OUT/symbols.txt"
WHAT=POST
[ -n "${GET_PATH:-}" ] && WHAT="GET $GET_PATH"
echo "$PROTOCOL $SERVER $WHAT ${FLAGS:-}: $SAMPLED requests sampled; samples per 1,000 requests: $(awk '{ s += $1 } END { printf "%.2f", s }' "$OUT/dso.txt") ($OUT)"
head -5 "$OUT/dso.txt"
