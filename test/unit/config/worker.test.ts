import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import type { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { spawnWorker } from '../../../src/config/index.js'
import { tempDir } from '../../helpers/temp-dir.js'

async function firstMessage(worker: Worker): Promise<unknown> {
  try {
    return await new Promise((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
    })
  } finally {
    await worker.terminate()
  }
}

describe('spawnWorker', () => {
  it('starts the TypeScript module through tsx when the caller runs from the sources', async () => {
    const answer = await firstMessage(
      spawnWorker(import.meta.url, './fixtures/hello-worker', { workerData: { n: 1 } }),
    )
    expect(answer).toEqual({ data: { n: 1 }, from: '.ts' })
  })

  it('starts the compiled module, without tsx, when the caller is compiled', async () => {
    const dir = tempDir()
    writeFileSync(
      join(dir, 'hello-worker.js'),
      "import { parentPort, workerData } from 'node:worker_threads'\nparentPort.postMessage({ data: workerData, from: '.js' })\n",
    )
    writeFileSync(join(dir, 'package.json'), '{"type": "module"}')
    const library = pathToFileURL(
      resolve(import.meta.dirname, '../../../dist/src/config/worker.js'),
    ).href
    const caller = pathToFileURL(join(dir, 'caller.js')).href
    const script = `
      const { spawnWorker } = await import(${JSON.stringify(library)})
      const worker = spawnWorker(${JSON.stringify(caller)}, './hello-worker', { workerData: 'compiled', execArgv: [] })
      worker.once('message', (m) => { console.log(JSON.stringify(m)); worker.terminate() })
    `
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--input-type=module',
      '-e',
      script,
    ])
    expect(JSON.parse(stdout)).toEqual({ data: 'compiled', from: '.js' })
  })
})
