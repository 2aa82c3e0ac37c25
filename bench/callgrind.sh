#!/bin/bash
# Instructions per request of a server's main thread under callgrind: a figure that does not move
# with the machine's load (unlike CPU time). The server runs under valgrind with instrumentation
# off; after a warm-up, instrumentation is switched on for a fixed number of POSTs and dumped.
# The main thread (file *.1-01) holds the request work; V8's optimizing compiler and GC helpers run
# on other threads. Add --perf-basic-prof to NODE_EXTRA to name JIT frames (/tmp/perf-PID.map).
#
#   bench/callgrind.sh http  understudy [CLI_DIR] # S2 (10 transactions, $.shipping.kind) over HTTP/1.1
#   bench/callgrind.sh http  bare                 # bench/servers/bare-http.ts
#   bench/callgrind.sh https understudy [CLI_DIR] # the paths suite's POST over TLS (HTTP/1.1)
#   bench/callgrind.sh https bare                 # bench/servers/bare-tls.ts, BARE_KIND=https
#   bench/callgrind.sh h2    understudy|bare      # the same over h2 (bare: BARE_KIND=h2)
# Environment: N (measured requests, default 4000), WARM (default 40000), OUT (default a temp dir),
# MOCK (another document for the http/https Understudy runs, e.g. a grown one), FLAGS (more
# Understudy flags, e.g. --no-inspection), GET_PATH (GETs of that path instead of the POSTs, over
# HTTP/1.1 and HTTPS; the paths document answers /api/hello),
# CG_EXTRA (more callgrind flags: "--cache-sim=yes --branch-sim=yes" for cache misses and
# mispredicted branches, "--dump-instr=yes" with NODE_EXTRA=--print-opt-code for costs by
# instruction of the optimized code, printed to $OUT/server.log).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 http|https|h2 understudy|bare [CLI_DIR]" >&2; exit 2; }
PROTOCOL=$1
SERVER=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLI_DIR=$(cd "${3:-$ROOT}" && pwd)
N=${N:-4000}
WARM=${WARM:-40000}
OUT=${OUT:-$(mktemp -d)}
AUTOCANNON="$ROOT/node_modules/.bin/autocannon"
mkdir -p "$OUT"
npx tsx "$ROOT/bench/callgrind-setup.ts" "$OUT"
# shellcheck source=bench/bench-server.sh
. "$ROOT/bench/bench-server.sh"
# shellcheck disable=SC2206
CG=(valgrind --tool=callgrind --instr-atstart=no --smc-check=all-non-file --separate-threads=yes
  "--callgrind-out-file=$OUT/callgrind.out" ${CG_EXTRA:-})
# shellcheck disable=SC2086
start_bench_server "$PROTOCOL" "$SERVER" "$CLI_DIR" "$OUT" "${CG[@]}" node ${NODE_EXTRA:-}
PID=$SERVER_PID
URL=$SERVER_URL
if [ "$PROTOCOL" = h2 ]; then
  npx tsx "$ROOT/bench/callgrind-h2.ts" "$URL" "$PID" "$WARM" "$N" "$OUT/body.json"
else
  # Certificates are self-signed: the load generator does not verify them.
  export NODE_TLS_REJECT_UNAUTHORIZED=0 NODE_NO_WARNINGS=1
  if [ -n "${GET_PATH:-}" ]; then
    REQUEST=()
  else
    REQUEST=(-m POST -H content-type=application/json -i "$OUT/body.json")
  fi
  "$AUTOCANNON" -c 10 -a "$WARM" ${REQUEST[@]+"${REQUEST[@]}"} "$URL${GET_PATH:-/api/orders}" >/dev/null 2>&1
  callgrind_control -i on "$PID" >/dev/null
  # The 10 connections are new: their TLS handshakes fall inside the window (same for every server).
  "$AUTOCANNON" -c 10 -a "$N" ${REQUEST[@]+"${REQUEST[@]}"} "$URL${GET_PATH:-/api/orders}" 2>&1 | grep -E "requests in" || true
  callgrind_control -d "$PID" >/dev/null
  callgrind_control -i off "$PID" >/dev/null
fi
sleep 1
kill "$PID"
wait "$PID" 2>/dev/null || true
MAIN=$(grep -m1 '^summary:' "$OUT"/callgrind.out.1-01 | awk '{print $2}')
echo "$PROTOCOL $SERVER ($CLI_DIR): $((MAIN / N)) instructions per request on the main thread" \
  "($MAIN over $N requests; files in $OUT)"
