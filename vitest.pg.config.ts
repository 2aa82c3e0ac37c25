import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { defineConfig } from 'vitest/config'
import base from './vitest.config.js'

/*
 * The PostgreSQL run of `npm test` (scripts/test-pg-suites.sh sets UNDERSTUDY_TEST_STORE=postgres):
 * the store's unit tests, and every black-box suite that starts a platform, in process
 * (startTestPlatform, startMonitorPlatform) or through the command line (`understudy platform`;
 * test/helpers/cli.ts adds `--store`). Found by reading the files, so a new suite that starts a
 * platform runs on both stores without being listed here.
 */

const startsAPlatform = [
  /\bstartTestPlatform\(/,
  /\bstartMonitorPlatform\(/,
  /\[\s*'platform'\s*,/,
  /^\s*'platform',\s*$/m,
]

/**
 * Files that start platforms on the stores they choose themselves (a copy from SQLite to
 * PostgreSQL, PostgreSQL's own checks) or from an installed copy of the package (about packaging,
 * not the store): a second run would repeat the first.
 */
const sameOnBothStores = new Set<string>([
  'test/e2e/cli/admin-migrate.test.ts',
  'test/e2e/package/pack.test.ts',
  'test/e2e/platform/postgres-store.test.ts',
  'test/regressions/platform-without-optional-packages.test.ts',
  'test/regressions/postgres-store-nul-text.test.ts',
])

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return testFiles(path)
    return entry.name.endsWith('.test.ts') ? [path] : []
  })
}

const platformSuites = ['test/e2e', 'test/regressions']
  .flatMap(testFiles)
  .filter((file) => !sameOnBothStores.has(file))
  .filter((file) => {
    const source = readFileSync(file, 'utf8')
    return startsAPlatform.some((pattern) => pattern.test(source))
  })

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [...platformSuites, 'test/unit/store/**/*.test.ts'],
    // The PostgreSQL server's own tests start their own server and need no second run.
    exclude: ['test/unit/store/postgres/**'],
  },
})
