import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { cliPath } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'

const MiB = 1024 * 1024

/**
 * A fresh process (V8's young generation at its start-up size) that runs a start allocating what
 * a large compile does, 600,000 objects that all live, through withYoungGenerationHeld with the
 * launch flags given, then a load whose objects live a few turns of the event loop. Prints the
 * young generation's size after each, in MiB.
 */
function youngGenerationOf(launchFlags: string[]): { afterStart: number; afterLoad: number } {
  const dir = tempDir()
  const script = join(dir, 'probe.mjs')
  const module = pathToFileURL(join(dirname(cliPath), 'young-generation.js')).href
  writeFileSync(
    script,
    `import { getHeapSpaceStatistics } from 'node:v8'
import { withYoungGenerationHeld } from ${JSON.stringify(module)}
const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size
const kept = []
const afterStart = await withYoungGenerationHeld(async () => {
  for (let i = 0; i < 600_000; i++) kept.push({ i, name: 't' + i, list: [i] })
  return young()
}, JSON.parse(process.argv[2]))
const window = []
for (let turn = 0; turn < 400; turn++) {
  const batch = []
  for (let i = 0; i < 5_000; i++) batch.push({ turn, i, s: 'r' + i })
  window.push(batch)
  if (window.length > 8) window.shift()
  await new Promise((resolve) => setImmediate(resolve))
}
console.log(JSON.stringify({ afterStart: afterStart / ${MiB}, afterLoad: young() / ${MiB}, kept: kept.length }))
`,
  )
  const out = execFileSync(process.execPath, [script, JSON.stringify(launchFlags)], {
    encoding: 'utf8',
    timeout: 30_000,
  })
  return JSON.parse(out) as { afterStart: number; afterLoad: number }
}

// The young generation while a runtime starts (src/cli/young-generation.ts): held where it is, then
// left to V8, which grows it for the load as before; V8 alone takes start-up to 32 MiB.
describe('withYoungGenerationHeld', () => {
  it('keeps start-up from growing the young generation, and lets a load grow it after', () => {
    const { afterStart, afterLoad } = youngGenerationOf([])
    expect(afterStart).toBeLessThanOrEqual(8)
    expect(afterLoad).toBe(32)
  })

  it("leaves V8's growth alone when the launch flags size the young generation", () => {
    const { afterStart, afterLoad } = youngGenerationOf(['--max-semi-space-size=16'])
    expect(afterStart).toBe(32)
    expect(afterLoad).toBe(32)
  })
})
