import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

// WireMock clients pointed at a runtime found `/__admin/...` treated as ordinary traffic on the
// mock port (404 no match) and unknown on the admin port. Both now answer WireMock's admin API,
// and a stub added on either serves on the mock port at once.

describe('WireMock admin paths on a runtime', () => {
  it('adds stubs through /__admin on the mock port and on the admin port of understudy run', async () => {
    const dir = tempDir()
    const file = join(dir, 'mock.json')
    writeFileSync(file, JSON.stringify({ request: { url: '/base' }, response: { body: 'base' } }))
    const server = await startCli([
      'run',
      '--mock',
      file,
      '--port',
      '0',
      '--admin-port',
      '0',
      '--log-level',
      'warn',
    ])
    await server.waitFor('stdout', /admin on http:\/\/\S+/)
    const adminUrl = /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1] ?? ''

    const onMockPort = await fetch(`${server.url}/__admin/mappings`, {
      method: 'POST',
      body: JSON.stringify({ request: { url: '/a' }, response: { body: 'via mock port' } }),
    })
    expect(onMockPort.status).toBe(201)
    const onAdminPort = await fetch(`${adminUrl}/__admin/mappings`, {
      method: 'POST',
      body: JSON.stringify({ request: { url: '/b' }, response: { body: 'via admin port' } }),
    })
    expect(onAdminPort.status).toBe(201)

    expect(await (await fetch(`${server.url}/a`)).text()).toBe('via mock port')
    expect(await (await fetch(`${server.url}/b`)).text()).toBe('via admin port')
    expect(await (await fetch(`${server.url}/base`)).text()).toBe('base')
    const listed = (await (await fetch(`${adminUrl}/__admin/mappings`)).json()) as {
      mappings: Array<{ request: { url: string } }>
      meta: { total: number }
    }
    // The mock file's stub is listed too, as written.
    expect(listed.meta.total).toBe(3)
    expect(listed.mappings.map((m) => m.request)).toEqual([
      { url: '/b' },
      { url: '/a' },
      { url: '/base' },
    ])
    // The runtime's own admin API still answers beside it.
    expect((await fetch(`${adminUrl}/health`)).status).toBe(200)
  })
})
