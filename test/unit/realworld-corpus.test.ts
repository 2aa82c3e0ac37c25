import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { conventionalRealworldDir, realworldDir, realworldFiles } from '../helpers/realworld.js'

// The suites that replay real-world files skip without the corpus. Where the corpus is present
// (CI runs with shared/ beside the clone), they must run: a skip there would hide a broken path.
describe('the real-world corpus', () => {
  // UNDERSTUDY_REALWORLD naming a directory that does not exist says "run without it" (the
  // suites then skip, saying so): test/regressions/tests-without-corpus.test.ts does that.
  const configured = process.env['UNDERSTUDY_REALWORLD']
  it.runIf(existsSync(configured ?? conventionalRealworldDir))(
    'is found and read whenever it is present, so that its suites never skip silently',
    () => {
      expect(realworldDir).not.toBeNull()
      for (const category of ['har', 'openapi', 'wiremock', 'postman']) {
        expect(realworldFiles(category).length, category).toBeGreaterThan(0)
      }
    },
  )
})
