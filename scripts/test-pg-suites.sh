#!/usr/bin/env sh
# Runs tests again with the platform on PostgreSQL (UNDERSTUDY_TEST_STORE=postgres;
# test/helpers/postgres.ts starts the server): `npm run test:pg:suites` passes vitest.pg.config.ts,
# which picks every suite that starts a platform, and the store's unit tests. Where PostgreSQL's binaries are absent the run is
# skipped, saying why, as the PostgreSQL tests inside the main run skip.
set -eu
if [ -z "${UNDERSTUDY_PG_BIN:-}" ] && ! command -v initdb >/dev/null 2>&1 &&
  ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  echo "PostgreSQL run skipped: initdb/pg_ctl not found (apt-get install -y postgresql, or set UNDERSTUDY_PG_BIN)"
  exit 0
fi
if [ "$(id -u)" = 0 ] && ! id -u postgres >/dev/null 2>&1; then
  echo "PostgreSQL run skipped: running as root and there is no postgres user to run initdb as"
  exit 0
fi
exec env UNDERSTUDY_TEST_STORE=postgres vitest run "$@"
