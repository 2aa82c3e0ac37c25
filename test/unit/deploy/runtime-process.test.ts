import { readFileSync, readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DocumentFiles } from '../../../src/deploy/document-file.js'
import { residentBytes } from '../../../src/deploy/memory.js'
import { defaultRuntimeCommand } from '../../../src/deploy/runtime-command.js'
import { RuntimeProcess } from '../../../src/deploy/runtime-process.js'
import { textDocument } from '../../helpers/deployer.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { waitFor } from '../../helpers/wait.js'

/** A child that runs `script` with Node (the deployer appends nothing here: the args are the script's). */
function node(script: string, lines: string[] = []): RuntimeProcess {
  return RuntimeProcess.spawn({ executable: process.execPath, args: ['-e', script] }, [], (line) =>
    lines.push(line),
  )
}

describe('RuntimeProcess', () => {
  it('reads the endpoints from the ready lines, with or without HTTPS', async () => {
    const child = node(
      `process.stdout.write('listening on http://127.0.0.1:1234\\nhttps (h2, http/1.1) on https://127.0.0.1:1235\\nadmin on http://127.0.0.1:1236\\n'); setInterval(() => {}, 1000)`,
    )
    try {
      expect(await child.ready(5000)).toEqual({
        http: 'http://127.0.0.1:1234',
        https: 'https://127.0.0.1:1235',
        admin: 'http://127.0.0.1:1236',
      })
      expect(child.alive).toBe(true)
      expect(child.pid).toBeGreaterThan(0)
    } finally {
      await child.kill()
    }
    expect(child.alive).toBe(false)
  })

  it('waits for the admin line when the ready lines arrive in pieces', async () => {
    const child = node(
      `process.stdout.write('listening on http://127.0.0.1:1\\n'); setTimeout(() => process.stdout.write('admin on http://127.0.0.1:2\\n'), 200); setInterval(() => {}, 1000)`,
    )
    try {
      expect(await child.ready(5000)).toEqual({
        http: 'http://127.0.0.1:1',
        https: null,
        admin: 'http://127.0.0.1:2',
      })
    } finally {
      await child.kill()
    }
  })

  it("rejects with the command line's one-line reason when the runtime exits before it is ready", async () => {
    const lines: string[] = []
    const child = node(
      `process.stderr.write('{"level":30}\\nunderstudy run: Cannot listen on 127.0.0.1:80: permission denied\\n'); process.exit(1)`,
      lines,
    )
    await expect(child.ready(5000)).rejects.toMatchObject({
      code: 'ERR_DEPLOY_FAILED',
      message:
        'Deployment failed: Cannot listen on 127.0.0.1:80: permission denied (the runtime exited with code 1)',
    })
    expect(lines).toEqual([
      '{"level":30}',
      'understudy run: Cannot listen on 127.0.0.1:80: permission denied',
    ])
  })

  it('reports an executable that cannot be started', async () => {
    const child = RuntimeProcess.spawn(
      { executable: '/nonexistent/understudy', args: [] },
      [],
      () => {},
    )
    await expect(child.ready(5000)).rejects.toMatchObject({
      code: 'ERR_DEPLOY_FAILED',
      message: expect.stringContaining('ENOENT'),
    })
    expect(child.alive).toBe(false)
  })

  it('stop sends SIGTERM and kills after the grace period when the runtime ignores it', async () => {
    // Each child says 'ready' on stderr (the line callback) once its SIGTERM handler is installed.
    const politeLines: string[] = []
    const polite = node(
      `process.on('SIGTERM', () => process.exit(0)); process.stderr.write('ready\\n'); setInterval(() => {}, 1000)`,
      politeLines,
    )
    await waitFor(() => politeLines.includes('ready'), 'the polite child to be ready')
    expect(await polite.stop(5000)).toEqual({ code: 0, signal: null })
    const stubbornLines: string[] = []
    const stubborn = node(
      `process.on('SIGTERM', () => {}); process.stderr.write('ready\\n'); setInterval(() => {}, 1000)`,
      stubbornLines,
    )
    await waitFor(() => stubbornLines.includes('ready'), 'the stubborn child to be ready')
    const started = Date.now()
    expect(await stubborn.stop(300)).toEqual({ code: null, signal: 'SIGKILL' })
    // killed after the 300 ms grace (the child ignores SIGTERM and would never exit): a bound on hanging, far above the usual time, not a speed figure (the test machine is shared)
    expect(Date.now() - started).toBeLessThan(10_000)
  })
})

describe('DocumentFiles', () => {
  it('writes a document atomically under mocks/, reads it back and removes it', async () => {
    const dir = tempDir()
    const files = new DocumentFiles(dir)
    const document = textDocument({ '/a': 'A' }, { id: 3 })
    const path = await files.write(3, document)
    expect(path).toBe(`${dir}/mocks/3.json`)
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(document)
    await files.write(3, { ...document, capacity: 5 })
    expect((await files.read(3))?.capacity).toBe(5)
    // No temporary file is left behind.
    expect(readdirSync(`${dir}/mocks`)).toEqual(['3.json'])
    await files.remove(3)
    expect(await files.read(3)).toBeUndefined()
    await files.remove(3)
  })
})

describe('deploy helpers', () => {
  it('finds the built command line from the package root', () => {
    const command = defaultRuntimeCommand()
    expect(command.executable).toBe(process.execPath)
    expect(command.args[0]).toMatch(/dist\/src\/cli\/main\.js$/)
  })

  it('reads resident memory from /proc where there is one', async () => {
    const bytes = await residentBytes(process.pid)
    if (process.platform === 'linux') expect(bytes).toBeGreaterThan(10 * 1024 * 1024)
    expect(await residentBytes(2 ** 22 + 12345)).toBeNull()
  })
})
