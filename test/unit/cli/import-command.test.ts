import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { loadDefinitionText } from '../../../src/dsl/index.js'
import { runImportCommand } from '../../../src/cli/commands/import.js'
import { importFile } from '../../../importers/index.js'

const dir = mkdtempSync(join(tmpdir(), 'understudy-import-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function file(name: string, content: string | Uint8Array): string {
  const path = join(dir, name)
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, content)
  return path
}

/** Runs the command with captured output. */
async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        append(chunk.toString())
        done()
      },
    })
  const code = await runImportCommand(args, {
    stdout: sink((t) => {
      stdout += t
    }),
    stderr: sink((t) => {
      stderr += t
    }),
  })
  return { code, stdout, stderr }
}

const stubs = {
  mappings: [
    {
      name: 'hello',
      request: { method: 'GET', url: '/hello' },
      response: { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'hi' },
    },
    { name: 'state', request: { urlPath: '/s' }, response: { status: 204 }, scenarioName: 'x' },
  ],
}

/** stderr without the one-line summary the command ends with (tested in test/e2e/cli/terminal.test.ts). */
const warningsOf = (stderr: string): string =>
  stderr.replace(/^imported \d+ transactions? .*\n/m, '')

describe('understudy import', () => {
  it('prints the DSL as YAML that loads back to the imported document', async () => {
    const path = file('stubs.json', JSON.stringify(stubs))
    const { code, stdout, stderr } = await run(path)
    expect(code).toBe(0)
    expect(stdout).toMatch(/^transactions:\n {2}- name: hello\n/)
    expect(stdout).toContain('text: hi\n')
    const expected = importFile({ bytes: readFileSync(path), fileName: path }).document
    expect(loadDefinitionText(stdout, 'out.yaml')).toEqual(expected)
    // the scenario of stub "state" maps onto the DSL: no warning
    expect(stdout).toContain('scenario:')
    expect(warningsOf(stderr)).toBe('')
  })

  it('writes YAML to -o, and JSON when the name ends in .json', async () => {
    const path = file('stub.json', JSON.stringify(stubs.mappings[0]))
    const yamlOut = join(dir, 'out.yaml')
    const jsonOut = join(dir, 'out.json')
    expect((await run(path, '-o', yamlOut)).code).toBe(0)
    expect((await run(path, '--output', jsonOut)).stdout).toBe('')
    const fromYaml = loadDefinitionText(readFileSync(yamlOut, 'utf8'), 'out.yaml')
    const fromJson = loadDefinitionText(readFileSync(jsonOut, 'utf8'), 'out.json')
    expect(fromJson).toEqual(fromYaml)
    expect(JSON.parse(readFileSync(jsonOut, 'utf8'))).toHaveProperty('transactions')
  })

  it('keeps mock-service settings that differ from the defaults', async () => {
    const path = file(
      'settings.yaml',
      'thinkTime: 25\ntransactions:\n  - dsl: {requestDsl: {path: /a}}\n',
    )
    const { stdout } = await run(path)
    expect(stdout).toMatch(/^thinkTime:\n {2}type: fixed\n {2}duration: 25\ntransactions:/)
  })

  it('honours --format over detection', async () => {
    const path = file('stub-as.txt', JSON.stringify(stubs.mappings[0]))
    expect((await run(path, '--format', 'wiremock')).code).toBe(0)
    const { code, stderr } = await run(path, '-f', 'postman')
    expect(code).toBe(1)
    expect(stderr).toMatch(
      /^understudy import: Cannot import .*stub-as\.txt: expected a Postman collection/,
    )
  })

  it('imports a directory as a set: RR pairs and WireMock mappings with __files', async () => {
    file(
      'set/pairs/login-req.txt',
      'POST /login HTTP/1.1\nContent-Type: application/json\n\n{"u":"ada"}',
    )
    file(
      'set/pairs/login-rsp.txt',
      'HTTP/1.1 200 OK\nContent-Type: application/json\n\n{"ok":true}',
    )
    file(
      'set/wm/mappings/a.json',
      JSON.stringify({
        request: { url: '/a' },
        response: { bodyFileName: 'a.txt', headers: { 'Content-Type': 'text/plain' } },
      }),
    )
    file('set/wm/__files/a.txt', 'from a file')
    const { code, stdout, stderr } = await run(join(dir, 'set'))
    expect(warningsOf(stderr)).toBe('')
    expect(code).toBe(0)
    const doc = loadDefinitionText(stdout, 'out.yaml')
    expect(doc.transactions.map((t) => t.name)).toEqual(['pairs/login', 'ANY /a'])
    expect(stdout).toContain('text: from a file')
  })

  it('reads WireMock body files beside a single mapping file', async () => {
    const mapping = file(
      'single/mappings/m.json',
      JSON.stringify({
        mappings: [
          {
            name: 'found',
            request: { url: '/f' },
            response: { bodyFileName: 'f.txt', headers: { 'Content-Type': 'text/plain' } },
          },
          { name: 'missing', request: { url: '/m' }, response: { bodyFileName: 'gone.txt' } },
          {
            name: 'control',
            request: { url: '/c' },
            response: {
              base64Body: Buffer.from('a\u0001b').toString('base64'),
              headers: { 'Content-Type': 'text/plain' },
            },
          },
        ],
      }),
    )
    file('single/__files/f.txt', 'body from disk')
    const { code, stdout, stderr } = await run(mapping)
    expect(code).toBe(0)
    expect(stdout).toContain('text: body from disk')
    // a text body with control characters stays base64, which loads back byte for byte
    expect(stdout).toContain(`content: ${Buffer.from('a\u0001b').toString('base64')}`)
    expect(warningsOf(stderr)).toBe(
      `warning: ${mapping} /mappings/1: stub "missing": body file __files/gone.txt was not found; the body is empty\n`,
    )
  })

  it('prints warnings without a pointer as file: message', async () => {
    file('rr/ping-req.txt', 'GET /ping HTTP/1.1\n\n')
    file('rr/ping-rsp.txt', 'HTTP/1.1 200 OK\n\npong')
    const { code, stderr, stdout } = await run(`${join(dir, 'rr')}/`)
    expect(code).toBe(0)
    expect(warningsOf(stderr)).toBe('')
    expect(stdout).toContain('name: ping')
    const half = await run(join(dir, 'rr', 'ping-rsp.txt'))
    expect(warningsOf(half.stderr)).toBe(
      `warning: ${join(dir, 'rr', 'ping-rsp.txt')}: is the response half of pair ping; the pair is imported with ping-req.txt\n`,
    )
  })

  it('shows the first three problems of an invalid definition, and how many more', async () => {
    const bad = file(
      'many.yaml',
      'transactions:\n' +
        ['a', 'b', 'c', 'd', 'e'].map((k) => `  - dsl: {requestDsl: {${k}x: 1}}\n`).join(''),
    )
    const { code, stderr } = await run(bad)
    expect(code).toBe(1)
    expect(stderr).toMatch(
      /^understudy import: Invalid mock definition: 5 errors: \S*many\.yaml:2:\d+ .*; and 2 more\n$/,
    )
  })

  it('exits 1 with one line naming the file and position for a broken file', async () => {
    const path = file('broken.json', '{\n  "request": {\n')
    const { code, stdout, stderr } = await run(path)
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toMatch(
      new RegExp(
        `^understudy import: Cannot import ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not valid JSON or YAML: [^\\n]+ \\(line 3, column 1\\)\\n$`,
      ),
    )
  })

  it('exits 1 for an unknown format, a missing file and a DSL error', async () => {
    const unknown = await run(file('other.json', '{"steps": [], "trigger_url": "x"}'))
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/^understudy import: Unrecognised file format: .*Runscope.*\n$/)
    const missing = await run(join(dir, 'nope.json'))
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe(
      `understudy import: Cannot read ${join(dir, 'nope.json')}: no such file or directory\n`,
    )
    const dsl = await run(
      file('bad.yaml', 'transactions:\n  - dsl:\n      requestDsl: {metod: GET}\n'),
    )
    expect(dsl.code).toBe(1)
    expect(dsl.stderr).toMatch(
      /^understudy import: Invalid mock definition: .*bad\.yaml:3:\d+ \/transactions\/0\/dsl\/requestDsl\/metod: is not a known property[^\n]*\n$/,
    )
  })

  it('exits 2 with a one-line reason for bad arguments', async () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /^understudy import: expected a file or directory to import\n$/],
      [
        ['a.json', 'b.json'],
        /^understudy import: expected one file or directory, got 2: a\.json b\.json\n$/,
      ],
      [['a.json', '--bogus'], /^understudy import: unknown flag --bogus \(see --help\)\n$/],
      [
        ['a.json', '--format', 'mocoon'],
        /^understudy import: unknown format "mocoon"; expected one of dsl, transactions, har, openapi, rr, wiremock, postman, mockoon\n$/,
      ],
      [
        ['a.json', '--format'],
        /^understudy import: Option '-f, --format <value>' argument missing\n$/,
      ],
      [
        [join(dir, 'set'), '--format', 'rr'],
        /^understudy import: --format applies to a single file/,
      ],
      [['a.json', '-o', ''], /^understudy import: -o needs a file name\n$/],
    ]
    for (const [args, expected] of cases) {
      const { code, stderr, stdout } = await run(...args)
      expect(code, args.join(' ')).toBe(2)
      expect(stderr).toMatch(expected)
      expect(stdout).toBe('')
    }
  })

  it('prints help and exits 0', async () => {
    const { code, stdout } = await run('--help')
    expect(code).toBe(0)
    expect(stdout).toMatch(
      /^Usage: understudy import <file-or-directory> \[--format F\] \[-o out\.yaml\]/,
    )
  })

  it('exits 1 when the output cannot be written', async () => {
    const path = file('w.json', JSON.stringify(stubs.mappings[0]))
    const { code, stderr } = await run(path, '-o', join(dir, 'no-such-dir', 'out.yaml'))
    expect(code).toBe(1)
    expect(stderr).toMatch(/^understudy import: cannot write .*out\.yaml: /)
  })
})
