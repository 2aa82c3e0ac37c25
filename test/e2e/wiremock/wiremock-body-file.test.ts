import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { startWireMockStandIn } from '../../helpers/wiremock.js'

// WireMock reads a stub's bodyFileName from its root's __files/. Understudy reads it from the
// __files/ folder of what it serves; without one (or without the file) the stub is refused with
// WireMock's error shape naming the field.

const stub = {
  request: { method: 'GET', urlPath: '/file' },
  response: {
    status: 200,
    bodyFileName: 'hello.json',
    headers: { 'Content-Type': 'application/json' },
  },
}

describe('bodyFileName through the WireMock admin API', () => {
  it("serves the file from the served folder's __files/ (the WireMock root), and from the sibling of mappings/", async () => {
    const root = tempDir('understudy-wiremock-root-')
    mkdirSync(join(root, 'mappings'))
    mkdirSync(join(root, '__files', 'nested'), { recursive: true })
    writeFileSync(join(root, '__files', 'hello.json'), '{"hello":"file"}')
    writeFileSync(join(root, '__files', 'nested', 'n.txt'), 'nested')
    for (const served of [root, join(root, 'mappings')]) {
      const server = await startCli(['serve', served, '--port', '0', '--log-level', 'warn'])
      const created = await fetch(`${server.url}/__admin/mappings`, {
        method: 'POST',
        body: JSON.stringify(stub),
      })
      expect(created.status).toBe(201)
      // Read back as posted: the file name, not its content.
      expect(await created.json()).toMatchObject({ response: { bodyFileName: 'hello.json' } })
      const served1 = await fetch(`${server.url}/file`)
      expect(await served1.json()).toEqual({ hello: 'file' })
      await fetch(`${server.url}/__admin/mappings`, {
        method: 'POST',
        body: JSON.stringify({
          request: { url: '/n' },
          response: { bodyFileName: 'nested/n.txt' },
        }),
      })
      expect(await (await fetch(`${server.url}/n`)).text()).toBe('nested')
    }
  })

  it('refuses a bodyFileName that is missing, or when nothing served has __files/, naming the field', async () => {
    const root = tempDir('understudy-wiremock-root-')
    mkdirSync(join(root, '__files'))
    const withFiles = await startCli(['serve', root, '--port', '0', '--log-level', 'warn'])
    const without = await startWireMockStandIn()
    for (const server of [withFiles, without]) {
      const refused = await fetch(`${server.url}/__admin/mappings`, {
        method: 'POST',
        body: JSON.stringify(stub),
      })
      expect(refused.status).toBe(422)
      const body = (await refused.json()) as {
        errors: Array<{ code: number; source: { pointer: string }; title: string }>
      }
      expect(body.errors[0]).toMatchObject({
        code: 10,
        source: { pointer: '/response/bodyFileName' },
      })
      expect(body.errors[0]?.title).toContain('__files/hello.json')
      expect(
        (
          (await (await fetch(`${server.url}/__admin/mappings`)).json()) as {
            meta: { total: number }
          }
        ).meta.total,
      ).toBe(0)
    }
    const climbing = await fetch(`${withFiles.url}/__admin/mappings`, {
      method: 'POST',
      body: JSON.stringify({ request: { url: '/x' }, response: { bodyFileName: '../secret' } }),
    })
    expect(climbing.status).toBe(422)
    expect(
      ((await climbing.json()) as { errors: Array<{ source: { pointer: string } }> }).errors[0]
        ?.source.pointer,
    ).toBe('/response/bodyFileName')
  })
})
