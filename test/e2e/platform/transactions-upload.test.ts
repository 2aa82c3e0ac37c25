import { strToU8, zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { importFile } from '../../../importers/index.js'
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js'
import { itRealworld, readRealworld } from '../../helpers/realworld.js'
import {
  createService,
  envelope,
  expectError,
  expectScoped,
  formOf,
  transactionsPath,
} from './catalog-helpers.js'

interface Created {
  id: number
  name: string
  serviceId: number
  serviceName: string
  tags: string[]
  dslType: string
  link: string
  dsl: { requestDsl: { method?: string; path?: string }; responseDsl: { status: number } }
}

async function upload(
  platform: TestPlatform,
  fields: Record<string, string>,
  files: Parameters<typeof formOf>[1],
  query = '',
): Promise<Response> {
  return platform.request(`${transactionsPath(platform)}${query}`, {
    method: 'POST',
    body: formOf(fields, files),
  })
}

async function total(platform: TestPlatform): Promise<number | undefined> {
  return (await envelope<unknown[]>(await platform.request(transactionsPath(platform)))).total
}

const HAR_FILE = 'microcks-api-pastries.har'
const OPENAPI_FILE = 'petstore-v3.oas30.yaml'

const dslFile = JSON.stringify({
  transactions: [
    {
      name: 'hello',
      tags: ['from-file'],
      dsl: { requestDsl: { method: 'GET', path: '/hello' }, responseDsl: { text: 'hi' } },
    },
  ],
})

describe('/api/v1 transactions: multipart upload', () => {
  itRealworld(
    'imports a real HAR file into the service: 200, an array of Transactions with dslType HAR_DSL',
    async () => {
      const platform = await startTestPlatform()
      const serviceId = await createService(platform, 'pastries')
      const bytes = readRealworld('har', HAR_FILE)
      const expected = importFile({ bytes, fileName: HAR_FILE }).document.transactions
      const res = await upload(platform, { serviceId: String(serviceId) }, [
        { name: HAR_FILE, bytes },
      ])
      expect(res.status).toBe(200)
      const body = await envelope<Created[]>(res)
      expect(body.warnings).toBeUndefined()
      expect(body.result).toHaveLength(expected.length)
      expect(body.result.map((t) => t.name)).toEqual(expected.map((t) => t.name))
      for (const t of body.result) {
        expect(t).toMatchObject({ serviceId, serviceName: 'pastries', dslType: 'HAR_DSL' })
        expect(t.link).toBe(`/api/v1/workspaces/${platform.workspaceId}/transactions/${t.id}`)
      }
      expect(await total(platform)).toBe(expected.length)
    },
  )

  itRealworld(
    'imports a real OpenAPI file, and returns the importer warnings with verbose=true',
    async () => {
      const platform = await startTestPlatform()
      const serviceId = await createService(platform, 'petstore')
      const res = await upload(platform, { serviceId: String(serviceId), verbose: 'true' }, [
        { field: 'source', name: OPENAPI_FILE, bytes: readRealworld('openapi', OPENAPI_FILE) },
      ])
      expect(res.status).toBe(200)
      const body = await envelope<Created[]>(res)
      expect(body.result.length).toBeGreaterThan(0)
      expect(new Set(body.result.map((t) => t.dslType))).toEqual(new Set(['OPENAPI_DSL']))
      expect(Array.isArray(body.warnings)).toBe(true)
      const har = await upload(platform, { serviceId: String(serviceId), verbose: 'true' }, [
        { name: HAR_FILE, bytes: readRealworld('har', HAR_FILE) },
      ])
      const harBody = await envelope<Created[]>(har)
      expect(harBody.warnings?.length).toBeGreaterThan(0)
      expect(harBody.warnings?.[0]).toMatchObject({
        message: expect.any(String) as unknown,
        file: HAR_FILE,
      })
    },
  )

  it('imports the DSL, records GENERIC_DSL and creates the tags it names', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    const res = await upload(platform, { serviceId: String(serviceId) }, [
      { name: 'hello.json', bytes: dslFile },
    ])
    expect(res.status).toBe(200)
    const { result } = await envelope<Created[]>(res)
    expect(result).toMatchObject([
      {
        name: 'hello',
        tags: ['from-file'],
        dslType: 'GENERIC_DSL',
        dsl: { requestDsl: { method: 'GET', path: '/hello' } },
      },
    ])
    const tags = await envelope<Array<{ name: string }>>(await platform.request('/api/v1/tags'))
    expect(tags.result.map((t) => t.name)).toEqual(['from-file'])
  })

  it("imports a zip of RR pairs and WireMock mappings, recording each part's dslType", async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    const zip = zipSync({
      'pairs/login-req.txt': strToU8(
        'POST /login HTTP/1.1\r\nHost: api.example.com\r\nContent-Type: application/json\r\n\r\n{"user":"ada"}',
      ),
      'pairs/login-rsp.txt': strToU8(
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"ok":true}',
      ),
      'mappings/status.json': strToU8(
        JSON.stringify({
          request: { method: 'GET', url: '/status' },
          response: { status: 200, body: 'up' },
        }),
      ),
    })
    const res = await upload(platform, { serviceId: String(serviceId) }, [
      { name: 'mocks.zip', bytes: zip, type: 'application/zip' },
    ])
    expect(res.status).toBe(200)
    const { result } = await envelope<Created[]>(res)
    const byType = Object.fromEntries(result.map((t) => [t.dsl.requestDsl.method, t.dslType]))
    expect(byType).toEqual({ GET: 'WIREMOCK_DSL', POST: 'RR_PAIR' })
  })

  it('round-trips exported transactions: what GET answers uploads again', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    await upload(platform, { serviceId: String(serviceId) }, [
      { name: 'hello.json', bytes: dslFile },
    ])
    const exported = await (await platform.request(transactionsPath(platform))).text()
    const other = await createService(platform, 'copy')
    const res = await upload(platform, { serviceId: String(other) }, [
      { name: 'export.json', bytes: exported },
    ])
    expect(res.status).toBe(200)
    const { result } = await envelope<Created[]>(res)
    expect(result).toMatchObject([
      {
        name: 'hello',
        serviceId: other,
        serviceName: 'copy',
        dsl: { requestDsl: { path: '/hello' } },
      },
    ])
  })

  it('takes serviceId from the query when the form does not carry it', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    const res = await upload(
      platform,
      {},
      [{ name: 'hello.json', bytes: dslFile }],
      `?serviceId=${serviceId}`,
    )
    expect(res.status).toBe(200)
  })

  it('refuses a file of no known format with 415 naming it, and creates nothing', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    const res = await upload(platform, { serviceId: String(serviceId) }, [
      { name: 'notes.txt', bytes: 'just some notes\nnothing to import' },
    ])
    const body = await expectError(res, 415, 'ERR_IMPORT_FORMAT_UNKNOWN')
    expect(body.error?.message).toContain('notes.txt')
    expect(await total(platform)).toBe(0)
  })

  it('refuses a malformed file with 400 naming it, and keeps the batch whole: a good file beside it is not imported', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    const broken = '{"log": {"version": "1.2", "entries": [{"request": {}}]}}'
    const res = await upload(platform, { serviceId: String(serviceId) }, [
      { name: 'hello.json', bytes: dslFile },
      { name: 'broken.har', bytes: broken },
    ])
    const body = await expectError(res, 400, 'ERR_IMPORT_INVALID')
    expect(JSON.stringify(body.error)).toContain('broken.har')
    expect(await total(platform)).toBe(0)
  })

  it('refuses a file whose transactions could never be served (a bad regex) with 400 naming the file', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    const bad = JSON.stringify([
      {
        name: 'bad',
        dsl: {
          requestDsl: { url: { matcherName: 'matches', matchingValue: '(' } },
          responseDsl: { status: 200 },
        },
      },
    ])
    const body = await expectError(
      await upload(platform, { serviceId: String(serviceId) }, [{ name: 'bad.json', bytes: bad }]),
      400,
      'ERR_DSL_INVALID',
    )
    expect(body.error?.message).toContain('bad.json')
    expect(body.error?.details?.[0]).toMatchObject({
      file: 'bad.json',
      path: expect.stringContaining('/url/matchingValue') as unknown,
    })
    expect(await total(platform)).toBe(0)
  })

  itRealworld('refuses a real broken HAR file with a 4xx error naming it', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    const res = await upload(platform, { serviceId: String(serviceId) }, [
      { name: 'mitmproxy-brokenfile.har', bytes: readRealworld('har', 'mitmproxy-brokenfile.har') },
    ])
    expect([400, 415]).toContain(res.status)
    expect(JSON.stringify(await res.json())).toContain('mitmproxy-brokenfile.har')
  })

  it('refuses a form without serviceId, with a bad serviceId or verbose, or without a file, with 400 naming the field', async () => {
    const platform = await startTestPlatform()
    const serviceId = String(await createService(platform))
    const file = [{ name: 'hello.json', bytes: dslFile }]
    await expectError(await upload(platform, {}, file), 400, 'ERR_API_VALIDATION', '/serviceId')
    await expectError(
      await upload(platform, { serviceId: 'pets' }, file),
      400,
      'ERR_API_VALIDATION',
      '/serviceId',
    )
    await expectError(
      await upload(platform, { serviceId, verbose: 'maybe' }, file),
      400,
      'ERR_API_VALIDATION',
      '/verbose',
    )
    await expectError(await upload(platform, { serviceId }, []), 400, 'ERR_API_VALIDATION', '/file')
    await expectError(
      await upload(platform, { serviceId: '999' }, file),
      404,
      'ERR_API_NOT_FOUND',
      '/serviceId',
    )
    expect(await total(platform)).toBe(0)
  })

  it('refuses an upload past the upload limit with 413', async () => {
    const platform = await startTestPlatform({ uploadLimit: 1024 })
    const serviceId = String(await createService(platform))
    const big = JSON.stringify([
      {
        name: 'big',
        dsl: { requestDsl: { path: '/big' }, responseDsl: { text: 'x'.repeat(4096) } },
      },
    ])
    await expectError(
      await upload(platform, { serviceId }, [{ name: 'big.json', bytes: big }]),
      413,
      'ERR_API_PAYLOAD_TOO_LARGE',
    )
    expect(await total(platform)).toBe(0)
  })

  it('answers 404 for another account and 401 without credentials', async () => {
    const platform = await startTestPlatform()
    await expectScoped(platform, (ws) => transactionsPath(platform, ws), {
      method: 'POST',
      body: formOf({ serviceId: '1' }, [{ name: 'hello.json', bytes: dslFile }]),
    })
  })
})
