import { readFileSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'

/** Field 19 of /proc/<task>/stat: the nice value. */
function niceOf(statPath: string): number {
  const stat = readFileSync(statPath, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
}

const moduleUrl = new URL('../../../src/config/thread-priority.ts', import.meta.url).href

describe.runIf(process.platform === 'linux')('lowerThreadPriority', () => {
  it('lowers the calling thread only, not its process', async () => {
    const before = niceOf('/proc/thread-self/stat')
    const source = `
      const { parentPort } = require('node:worker_threads')
      const { readFileSync } = require('node:fs')
      import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(moduleUrl)}) }).then((m) => {
        const lowered = m.lowerThreadPriority(${before + 7})
        const stat = readFileSync('/proc/thread-self/stat', 'utf8')
        parentPort.postMessage({ lowered, nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) })
      })`
    const worker = new Worker(source, { eval: true })
    const answer = await new Promise<{ lowered: boolean; nice: number }>((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
    })
    await worker.terminate()
    expect(answer).toEqual({ lowered: true, nice: before + 7 })
    // the thread that called it elsewhere keeps its priority
    expect(niceOf('/proc/thread-self/stat')).toBe(before)
  })
})
