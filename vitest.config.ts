import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    // Black-box tests start real servers and child processes; give them room on a 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 2,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'importers/**/*.ts'],
      // `importers/**` also matches test helpers under test/importers/: test code is not measured.
      exclude: ['test/**'],
      reporter: ['text-summary'],
      // `npm test` fails when coverage drops below the level the code had when the threshold was
      // set (a little under it, for the run-to-run noise of timing-dependent branches). Raise it
      // when coverage rises; never lower it.
      thresholds: { statements: 87.4, branches: 78.9, functions: 87.95, lines: 89.1 },
    },
  },
})
