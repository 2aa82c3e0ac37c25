import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

// A WireMock stub whose `url` (or urlPath...) is not a string used to be imported without a word
// as a stub matching every URL; it is now reported (and the WireMock admin API refuses it).

describe('a WireMock url that is not a string', () => {
  it('is reported by the importer instead of silently matching every URL', async () => {
    const file = join(tempDir(), 'stub.json')
    writeFileSync(file, JSON.stringify({ request: { url: 5 }, response: { body: 'x' } }))
    const result = await runCli(['import', file, '--format', 'wiremock'])
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(/request url must be a string; not matched/)
  })
})
