import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli, startCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { testEnvironment } from '../../importers/mockoon/environment.js'

describe('a Mockoon environment on the command line', () => {
  it('serves with `understudy serve`, response files read beside the environment', async () => {
    const dir = tempDir()
    const env = testEnvironment()
    const routes = env['routes'] as Array<Record<string, unknown>>
    routes.push({
      uuid: 'file-route',
      type: 'http',
      method: 'get',
      endpoint: 'from-file',
      responseMode: null,
      responses: [
        {
          uuid: 'f',
          statusCode: 200,
          label: '',
          headers: [{ key: 'Content-Type', value: 'text/plain' }],
          body: '',
          bodyType: 'FILE',
          filePath: './bodies/hello.txt',
          rules: [],
          rulesOperator: 'OR',
          default: true,
          latency: 0,
          disableTemplating: false,
        },
      ],
    })
    writeFileSync(join(dir, 'env.json'), JSON.stringify(env))
    const bodies = join(dir, 'bodies')
    mkdirSync(bodies)
    writeFileSync(join(bodies, 'hello.txt'), 'hello from a file')
    const server = await startCli(['serve', join(dir, 'env.json'), '--port', '0'])
    expect((await fetch(`${server.url}/api/users/42`)).status).toBe(202)
    expect(await (await fetch(`${server.url}/api/from-file`)).text()).toBe('hello from a file')
  })

  it('imports with `understudy import`, warning about what has no equivalent', async () => {
    const dir = tempDir()
    const env = testEnvironment()
    ;(env['routes'] as Array<Record<string, unknown>>).push({
      uuid: 'random',
      type: 'http',
      method: 'get',
      endpoint: 'random',
      responseMode: 'RANDOM',
      responses: [
        { uuid: 'x', statusCode: 200, body: 'a', headers: [], rules: [], default: true },
        { uuid: 'y', statusCode: 200, body: 'b', headers: [], rules: [] },
      ],
    })
    writeFileSync(join(dir, 'env.json'), JSON.stringify(env))
    const out = join(dir, 'out.json')
    const result = await runCli(['import', join(dir, 'env.json'), '-o', out])
    expect(result.code).toBe(0)
    expect(result.stdout + result.stderr).toMatch(/mockoon/)
    expect(result.stdout + result.stderr).toMatch(/random responses have no equivalent/)
    const doc = JSON.parse(readFileSync(out, 'utf8')) as { cors?: unknown; transactions: unknown[] }
    expect(doc.cors).toBeDefined()
    expect(doc.transactions.length).toBeGreaterThan(10)
  })
})
