#!/bin/bash
# Sourced by bench/callgrind.sh and bench/perf-sample.sh: starts the server a measurement looks at
# and waits for its `listening on` line. Not run on its own.
#
#   start_bench_server PROTOCOL SERVER CLI_DIR OUT NODE_COMMAND...
#
# PROTOCOL/SERVER: http/understudy (S2, or MOCK), http/bare (bench/servers/bare-http.ts),
# https|h2/understudy (the paths document, or MOCK, with a TLS listener), https|h2/bare
# (bench/servers/bare-tls.ts, BARE_KIND=PROTOCOL). OUT holds what bench/callgrind-setup.ts wrote
# (documents, certificate) and receives server.log. NODE_COMMAND is how node is launched (under
# valgrind, pinned with taskset...), node's own flags included. FLAGS (environment) adds flags to
# Understudy's command line. Sets SERVER_PID and SERVER_URL; on failure prints why and returns
# non-zero (2: unknown PROTOCOL/SERVER).

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

start_bench_server() {
  local protocol=$1 server=$2 cli_dir=$3 out=$4
  shift 4
  local log="$out/server.log"
  # shellcheck disable=SC2086
  case "$protocol/$server" in
    http/understudy)
      "$@" "$cli_dir/dist/src/cli/main.js" run --mock "${MOCK:-$out/s2.json}" --port 0 \
        --log-level warn ${FLAGS:-} >"$log" 2>&1 &
      ;;
    http/bare)
      (cd "$BENCH_ROOT" && BARE_BODY='{"hello":"world"}' exec "$@" --import tsx \
        bench/servers/bare-http.ts) >"$log" 2>&1 &
      ;;
    https/understudy | h2/understudy)
      "$@" "$cli_dir/dist/src/cli/main.js" run --mock "${MOCK:-$out/paths.json}" --port 0 \
        --tls-port 0 --tls-cert "$out/cert.pem" --tls-key "$out/key.pem" --log-level warn \
        ${FLAGS:-} >"$log" 2>&1 &
      ;;
    https/bare | h2/bare)
      (cd "$BENCH_ROOT" && BARE_KIND=$protocol TLS_CERT="$out/cert.pem" TLS_KEY="$out/key.pem" \
        exec "$@" --import tsx bench/servers/bare-tls.ts) >"$log" 2>&1 &
      ;;
    *)
      echo "usage: $0 http|https|h2 understudy|bare [CLI_DIR]" >&2
      return 2
      ;;
  esac
  SERVER_PID=$!
  local scheme=https
  [ "$protocol" = http ] && scheme=http
  SERVER_URL=""
  # Up to two minutes: under valgrind, start-up takes most of one.
  for _ in $(seq 1 240); do
    SERVER_URL=$(grep -o "$scheme://[0-9.:]*" "$log" | head -1 || true)
    [ -n "$SERVER_URL" ] && return 0
    sleep 0.5
  done
  echo "the server did not start: $(cat "$log")" >&2
  kill "$SERVER_PID" 2>/dev/null || true
  return 1
}
