import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

// WireMock lists every stub, those it loaded from files included, and reads, edits and removes
// them by id like the others. `GET /__admin/mappings` used to list only the stubs sent through the
// API, so a suite that found a file's stub by listing could not touch it.

type Mapping = Record<string, unknown> & {
  id: string
  request: Record<string, unknown>
  metadata?: { understudy?: Record<string, unknown> }
}

const FILE_ID = '8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7'

async function serveFolder(): Promise<string> {
  const dir = tempDir('understudy-wiremock-files-')
  mkdirSync(join(dir, 'mappings'))
  mkdirSync(join(dir, '__files'))
  writeFileSync(
    join(dir, 'mappings', 'a.json'),
    JSON.stringify({
      id: FILE_ID,
      name: 'a',
      request: { method: 'GET', url: '/a' },
      response: { status: 200, body: 'A' },
      metadata: { team: 'x' },
    }),
  )
  writeFileSync(
    join(dir, 'mappings', 'b.json'),
    JSON.stringify({
      mappings: [
        {
          request: { method: 'GET', urlPath: '/b' },
          response: { status: 201, bodyFileName: 'b.txt' },
        },
      ],
    }),
  )
  writeFileSync(join(dir, '__files', 'b.txt'), 'B')
  writeFileSync(
    join(dir, 'c.yaml'),
    [
      'transactions:',
      '  - name: c',
      '    dsl:',
      '      requestDsl: { method: GET, path: /c, headers: [{ key: X-A, matcherName: equals, matchingValue: v }] }',
      '      responseDsl: { status: 202, text: C }',
    ].join('\n'),
  )
  const server = await startCli(['serve', dir, '--port', '0', '--log-level', 'warn'])
  return server.url
}

async function list(url: string): Promise<{ mappings: Mapping[]; meta: { total: number } }> {
  return (await (await fetch(`${url}/__admin/mappings`)).json()) as {
    mappings: Mapping[]
    meta: { total: number }
  }
}

describe('GET /__admin/mappings lists the stubs loaded from files', () => {
  it('lists WireMock files as written and other transactions in WireMock JSON with their source marked', async () => {
    const url = await serveFolder()
    const listed = await list(url)
    expect(listed.meta.total).toBe(3)
    const a = listed.mappings.find((m) => m.id === FILE_ID)
    expect(a).toEqual({
      id: FILE_ID,
      uuid: FILE_ID,
      name: 'a',
      request: { method: 'GET', url: '/a' },
      response: { status: 200, body: 'A' },
      metadata: { team: 'x' },
    })
    const b = listed.mappings.find((m) => m.request['urlPath'] === '/b')
    expect(b).toMatchObject({
      request: { method: 'GET', urlPath: '/b' },
      response: { status: 201, bodyFileName: 'b.txt' },
    })
    expect(b?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    const c = listed.mappings.find((m) => m.request['urlPath'] === '/c')
    expect(c).toMatchObject({
      name: 'c',
      priority: 5,
      request: { method: 'GET', headers: { 'X-A': { equalTo: 'v' } } },
      response: { status: 202, body: 'C' },
    })
    expect(c?.metadata?.understudy).toMatchObject({
      source: 'transaction',
      transaction: { name: 'c' },
    })
    // Ids stay the same from one listing to the next.
    expect((await list(url)).mappings.map((m) => m.id)).toEqual(listed.mappings.map((m) => m.id))

    const one = await fetch(`${url}/__admin/mappings/${c?.id ?? ''}`)
    expect(one.status).toBe(200)
    expect(await one.json()).toEqual(c)
    const found = (await (
      await fetch(`${url}/__admin/mappings/find-by-metadata`, {
        method: 'POST',
        body: JSON.stringify({ matchesJsonPath: '$.team' }),
      })
    ).json()) as { mappings: Mapping[] }
    expect(found.mappings.map((m) => m.id)).toEqual([FILE_ID])
  })

  it('removes and replaces a file stub by id, and a reset brings the files back', async () => {
    const url = await serveFolder()
    const c = (await list(url)).mappings.find((m) => m.request['urlPath'] === '/c')
    expect((await fetch(`${url}/__admin/mappings/${FILE_ID}`, { method: 'DELETE' })).status).toBe(
      200,
    )
    expect((await fetch(`${url}/a`)).status).toBe(404)
    expect((await fetch(`${url}/__admin/mappings/${FILE_ID}`)).status).toBe(404)
    expect((await list(url)).meta.total).toBe(2)

    const edited = await fetch(`${url}/__admin/mappings/${c?.id ?? ''}`, {
      method: 'PUT',
      body: JSON.stringify({
        request: { urlPath: '/c' },
        response: { status: 203, body: 'edited' },
      }),
    })
    expect(edited.status).toBe(200)
    const served = await fetch(`${url}/c`, { headers: { 'x-a': 'v' } })
    expect([served.status, await served.text()]).toEqual([203, 'edited'])
    const after = await list(url)
    expect(after.meta.total).toBe(2)
    expect(after.mappings.find((m) => m.id === c?.id)).toEqual({
      id: c?.id,
      uuid: c?.id,
      request: { urlPath: '/c' },
      response: { status: 203, body: 'edited' },
    })

    const journal = (await (await fetch(`${url}/__admin/requests`)).json()) as {
      requests: Array<{ stubMapping?: { id?: string } }>
    }
    expect(journal.requests[0]?.stubMapping?.id).toBe(c?.id)

    await fetch(`${url}/__admin/mappings/reset`, { method: 'POST' })
    expect(await (await fetch(`${url}/a`)).text()).toBe('A')
    expect(await (await fetch(`${url}/c`, { headers: { 'x-a': 'v' } })).text()).toBe('C')
    expect((await list(url)).meta.total).toBe(3)
  })

  it('names a file stub as the one that served a request in the journal', async () => {
    const url = await serveFolder()
    await fetch(`${url}/b`)
    const journal = (await (await fetch(`${url}/__admin/requests`)).json()) as {
      requests: Array<{ stubMapping?: { request?: unknown } }>
    }
    expect(journal.requests[0]?.stubMapping?.request).toEqual({ method: 'GET', urlPath: '/b' })
  })
})
