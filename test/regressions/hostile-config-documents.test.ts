import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startServer } from '../helpers/server.js'
import { adminCall } from '../helpers/admin.js'
import { runCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

/** Nine anchors, each a list of ten aliases of the one before: 10^9 values once expanded. */
const aliasBomb = [
  'a: &a ["x","x","x","x","x","x","x","x","x","x"]',
  ...'bcdefghi'.split('').map(
    (n, i) =>
      `${n}: &${n} [${Array<string>(10)
        .fill(`*${'abcdefghi'[i] ?? ''}`)
        .join(',')}]`,
  ),
  'transactions: []',
].join('\n')
const deepYaml = `transactions: ${'['.repeat(100_000)}${']'.repeat(100_000)}`
const deepJson = `{"transactions": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`

const mock = {
  transactions: [{ dsl: { requestDsl: { path: '/pets' }, responseDsl: { text: 'pets' } } }],
}

// Defect: PUT /config with a YAML alias bomb answered 500 ERR_INTERNAL (the yaml package's
// ReferenceError escaped); a YAML text nested 100,000 deep was refused as "Maximum call stack size
// exceeded", naming no limit. Both are refused with 400 naming the limit, and nothing is swapped.
describe('PUT /config refuses hostile documents with 400 naming the limit', () => {
  it('refuses a YAML alias bomb and keeps serving the previous configuration', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    const { status, body } = await adminCall(app, 'PUT', '/config', {
      text: aliasBomb,
      contentType: 'application/yaml',
    })
    expect(status).toBe(400)
    expect(body.error?.code).toBe('ERR_DSL_PARSE')
    expect(body.error?.message).toMatch(/YAML aliases .*limit of 1000/)
    expect(await (await fetch(`${app.url}/pets`)).text()).toBe('pets')
  })

  it('refuses YAML and JSON nested 100,000 deep, naming the 512-level bound', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    const yaml = await adminCall(app, 'PUT', '/config', {
      text: deepYaml,
      contentType: 'application/yaml',
    })
    expect(yaml.status).toBe(400)
    expect(yaml.body.error?.message).toContain('512 levels')
    const json = await adminCall(app, 'PUT', '/config', {
      text: deepJson,
      contentType: 'application/json',
    })
    expect(json.status).toBe(400)
    expect(json.body.error?.code).toBe('ERR_DSL_INVALID')
    expect(json.body.error?.details?.[0]?.message).toContain('512 levels')
    expect(await (await fetch(`${app.url}/pets`)).text()).toBe('pets')
  })
})

describe('serve refuses the same files with one line and a non-zero exit', () => {
  it('names the alias limit and the nesting bound', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'bomb.yaml'), aliasBomb)
    writeFileSync(join(dir, 'deep.yaml'), deepYaml)
    for (const [file, expected] of [
      ['bomb.yaml', /YAML aliases .*limit of 1000/],
      ['deep.yaml', /512 levels/],
    ] as const) {
      const result = await runCli(['serve', '--port', '0', join(dir, file)])
      expect(result.code).toBe(1)
      expect(result.stdout).not.toContain('listening on')
      const lines = result.stderr.trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(expected)
    }
  })
})
