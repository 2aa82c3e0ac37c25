import { spawn } from 'node:child_process'
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { cliPath, runCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'

/*
 * `understudy run --mock` takes every format `serve` takes, as a container gets them: mounted
 * read-only, read by a user that is not root (the container's `node`), JSON or YAML whatever the
 * extension.
 */

const openapi = `openapi: 3.0.3
info: { title: pets, version: '1' }
paths:
  /pets/{id}:
    get:
      parameters: [{ name: id, in: path, required: true, schema: { type: integer } }]
      responses:
        '200':
          description: a pet
          content: { application/json: { example: { id: 1, name: Rex } } }
`
const har = JSON.stringify({
  log: {
    version: '1.2',
    creator: { name: 't', version: '1' },
    entries: [
      {
        startedDateTime: '2024-01-01T00:00:00Z',
        time: 1,
        request: {
          method: 'GET',
          url: 'http://api.test/pets/1',
          httpVersion: 'HTTP/1.1',
          headers: [],
          queryString: [],
          cookies: [],
          headersSize: -1,
          bodySize: 0,
        },
        response: {
          status: 200,
          statusText: 'OK',
          httpVersion: 'HTTP/1.1',
          headers: [{ name: 'Content-Type', value: 'application/json' }],
          cookies: [],
          content: { size: 2, mimeType: 'application/json', text: '{"id":1,"name":"Rex"}' },
          redirectURL: '',
          headersSize: -1,
          bodySize: 2,
        },
        cache: {},
        timings: { send: 0, wait: 1, receive: 0 },
      },
    ],
  },
})
const wiremock = JSON.stringify({
  mappings: [
    {
      request: { method: 'GET', url: '/pets/1' },
      response: { status: 200, jsonBody: { id: 1, name: 'Rex' } },
    },
  ],
})
const postman = JSON.stringify({
  info: {
    name: 'pets',
    schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
  },
  item: [
    {
      name: 'a pet',
      request: { method: 'GET', url: 'http://api.test/pets/1' },
      response: [
        {
          name: 'ok',
          originalRequest: { method: 'GET', url: 'http://api.test/pets/1' },
          code: 200,
          header: [{ key: 'Content-Type', value: 'application/json' }],
          body: '{"id":1,"name":"Rex"}',
        },
      ],
    },
  ],
})
const dslYamlAsJson =
  '# YAML mounted under a .json name\ntransactions:\n  - dsl: { requestDsl: { method: GET, path: /pets/1 }, responseDsl: { json: { id: 1 } } }\n'
const mockDocument = JSON.stringify({
  id: 5,
  name: 'pets',
  transactions: [
    {
      id: 1,
      name: 'pet',
      dsl: { requestDsl: { method: 'GET', path: '/pets/1' }, responseDsl: { json: { id: 1 } } },
    },
  ],
})

/** Writes `files` into a world-readable directory, each file read-only. */
function readOnlyFiles(files: Record<string, string>): string {
  const dir = tempDir('understudy-run-formats-')
  chmodSync(dir, 0o755)
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, name)
    mkdirSync(join(path, '..'), { recursive: true, mode: 0o755 })
    writeFileSync(path, text)
    chmodSync(path, 0o444)
  }
  return dir
}

/** Starts `understudy run` as user 65534 when this test runs as root; answers the mock's URL. */
async function startRun(mock: string): Promise<string> {
  const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
  const child = spawn(
    process.execPath,
    [cliPath, 'run', '--mock', mock, '--port', '0', '--log-level', 'warn'],
    { stdio: ['ignore', 'pipe', 'pipe'], ...asNobody },
  )
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  return await new Promise<string>((resolve, reject) => {
    let out = ''
    let err = ''
    const timer = setTimeout(() => reject(new Error(`no listening line\n${out}\n${err}`)), 20_000)
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString()
    })
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString()
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m !== null) {
        clearTimeout(timer)
        resolve(m[1] as string)
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`exited ${code}\n${out}\n${err}`))
    })
  })
}

const cases: Array<[string, Record<string, string>, string]> = [
  ['an OpenAPI description (YAML)', { 'openapi.yaml': openapi }, 'openapi.yaml'],
  ['a HAR recording', { 'traffic.har': har }, 'traffic.har'],
  ['WireMock mappings', { 'mappings.json': wiremock }, 'mappings.json'],
  [
    'a Postman collection',
    { 'pets.postman_collection.json': postman },
    'pets.postman_collection.json',
  ],
  [
    'request/response pairs in a directory',
    {
      'rr/pet-req.txt': 'GET /pets/1 HTTP/1.1\nHost: api.test\n\n',
      'rr/pet-rsp.txt': 'HTTP/1.1 200 OK\nContent-Type: application/json\n\n{"id":1}',
    },
    'rr',
  ],
  ['a DSL file in YAML named .json', { 'mock.json': dslYamlAsJson }, 'mock.json'],
  ['a mock-service document', { 'mock.json': mockDocument }, 'mock.json'],
]

describe('understudy run --mock with every format serve takes', () => {
  for (const [what, files, entry] of cases) {
    it(`serves ${what}, read-only, as a user that is not root`, async () => {
      const dir = readOnlyFiles(files)
      const url = await startRun(join(dir, entry))
      const res = await fetch(`${url}/pets/1`)
      expect(res.status, await res.clone().text()).toBe(200)
      expect(await res.json()).toMatchObject({ id: 1 })
    })
  }

  it('refuses a file it cannot serve with one line naming understudy import', async () => {
    const dir = readOnlyFiles({ 'notes.json': JSON.stringify({ hello: 'world' }) })
    const result = await runCli(['run', '--mock', join(dir, 'notes.json'), '--port', '0'])
    expect(result.code).toBe(1)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stderr).toContain('understudy import')
  })

  it('keeps the precise error of a DSL document with a mistake', async () => {
    const dir = readOnlyFiles({
      'mock.yaml': 'transactions:\n  - dsl: { requestDsl: { method: 7 } }\n',
    })
    const result = await runCli(['run', '--mock', join(dir, 'mock.yaml'), '--port', '0'])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/mock\.yaml:2:\d+/)
  })
})
