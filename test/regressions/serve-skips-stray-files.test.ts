import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createMockServer } from '../../src/index.js'
import { runCli, startCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

// Defect: one stray file in a served folder (notes.txt) stopped `serve` entirely: "it is a plain
// value, not a document". Files a directory scan finds that are no mock document are skipped,
// with one warning line naming them and saying how to exclude them.

const pets = '- dsl: { requestDsl: { method: GET, path: /pets }, responseDsl: { json: [] } }\n'

function folder(): string {
  const dir = tempDir('understudy-stray-')
  mkdirSync(join(dir, 'mocks'))
  writeFileSync(join(dir, 'mocks', 'pets.yaml'), pets)
  writeFileSync(join(dir, 'mocks', 'notes.txt'), 'remember to add the adoptions endpoint\n')
  writeFileSync(join(dir, 'mocks', 'package.json'), '{ "name": "not-a-mock" }\n')
  return dir
}

describe('serve of a folder holding files that are not mock documents', () => {
  it('serves the mock documents and names the skipped files in one warning line with the way to exclude them', async () => {
    const dir = folder()
    const server = await startCli(['serve', 'mocks', '--port', '0', '--log-format', 'json'], {
      cwd: dir,
    })
    expect((await fetch(`${server.url}/pets`)).status).toBe(200)
    await server.waitFor('stderr', '"msg":"loaded"')
    const warnings = server
      .stderr()
      .split('\n')
      .filter((line) => line.includes('not a mock document') || line.includes('not mock documents'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain(
      'skipped 2 files that are not mock documents: mocks/notes.txt, mocks/package.json',
    )
    expect(warnings[0]).toContain('--exclude')
    await server.stop()
  })

  it('says nothing of files left out with --exclude', async () => {
    const dir = folder()
    const server = await startCli(
      [
        'serve',
        'mocks',
        '--port',
        '0',
        '--log-format',
        'json',
        '--exclude',
        'notes.txt',
        '--exclude',
        'package.json',
      ],
      { cwd: dir },
    )
    await server.waitFor('stderr', '"msg":"loaded"')
    expect(server.stderr()).not.toContain('not mock documents')
    await server.stop()
  })

  it('still refuses a file named on the command line that is no mock document, and a broken mock document in the folder', async () => {
    const dir = folder()
    const named = await runCli(['serve', 'mocks/notes.txt', '--port', '0'], { cwd: dir })
    expect(named.code).toBe(1)
    expect(named.stderr).toContain('mocks/notes.txt')
    writeFileSync(join(dir, 'mocks', 'broken.yaml'), 'transactions: [ { dsl: \n')
    const broken = await runCli(['serve', 'mocks', '--port', '0'], { cwd: dir })
    expect(broken.code).toBe(1)
    expect(broken.stderr).toContain('broken.yaml')
  })

  it('skips them in the library too', async () => {
    const dir = folder()
    const mock = await createMockServer({ files: join(dir, 'mocks') })
    expect((await fetch(`${mock.url}/pets`)).status).toBe(200)
    await mock.close()
  })
})
