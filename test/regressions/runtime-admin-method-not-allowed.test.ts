import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startCli, type CliServer } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

// Defect: a runtime's admin API answered a known path with another method 405 without `Allow`
// (the platform's APIs named the allowed methods), and took `/health/` but not `//health`. Its
// routes now go through the router every server of the product uses.

let server: CliServer | undefined

afterAll(async () => {
  await server?.stop()
})

describe("a runtime's admin API", () => {
  it('names the allowed methods in Allow on 405, and reads paths as the platform does', async () => {
    const dir = tempDir('understudy-admin-405-')
    writeFileSync(
      join(dir, 'pets.yaml'),
      'transactions:\n  - dsl:\n      requestDsl: { method: GET, path: /pets }\n      responseDsl: { json: [] }\n',
    )
    server = await startCli(['serve', dir, '--port', '0', '--admin-port', '0'])
    await server.waitFor('stdout', /admin on http:\/\/\S+/)
    const admin = /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1] ?? ''

    const health = await fetch(`${admin}/health`, { method: 'DELETE' })
    expect(health.status).toBe(405)
    expect(health.headers.get('allow')).toBe('GET')
    expect(((await health.json()) as { error: { code: string } }).error.code).toBe(
      'ERR_API_METHOD_NOT_ALLOWED',
    )

    const config = await fetch(`${admin}/config/`, { method: 'POST', body: '{}' })
    expect(config.status).toBe(405)
    expect(config.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'PUT'])

    const ui = await fetch(`${admin}/__ui/`, { method: 'POST' })
    expect(ui.status).toBe(405)
    expect(ui.headers.get('allow')).toBe('GET, HEAD')

    expect((await fetch(`${admin}//health`)).status).toBe(200)
    expect((await fetch(`${admin}/no-such-thing`)).status).toBe(404)
  }, 60_000)
})
