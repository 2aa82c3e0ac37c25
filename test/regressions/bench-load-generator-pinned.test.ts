import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { canPin } from '../../bench/child.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const pinnable = canPin && existsSync('/proc/self/task')

// The bench process is the load generator, on CPU 0; the servers run on CPU 1. Pinning only its
// main thread left V8's garbage-collection and compiler threads free to run on the servers' core.
describe.skipIf(!pinnable)('the bench pins its load generator', () => {
  it('pins every thread of the process, not only the main one', () => {
    // A child process: pinning this test worker would slow the rest of the suite.
    const script = `
      import { readdirSync, readFileSync } from 'node:fs'
      import { pinThisProcess } from './bench/child.ts'
      pinThisProcess(0)
      const tasks = readdirSync('/proc/self/task')
      const cpus = tasks.map((t) => /Cpus_allowed_list:\\s*(\\S+)/.exec(readFileSync('/proc/self/task/' + t + '/status', 'utf8'))?.[1])
      console.log(JSON.stringify(cpus))
    `
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: root, encoding: 'utf8' },
    )
    const cpus = JSON.parse(out.trim()) as string[]
    // Node starts its V8 platform threads before any script runs: more than one task.
    expect(cpus.length).toBeGreaterThan(1)
    expect(new Set(cpus)).toEqual(new Set(['0']))
  })
})
