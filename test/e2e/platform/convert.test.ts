import { describe, expect, it } from 'vitest'
import { importFile } from '../../../importers/index.js'
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js'
import { itRealworld, readRealworld } from '../../helpers/realworld.js'
import {
  createService,
  envelope,
  expectError,
  formOf,
  transactionsPath,
} from './catalog-helpers.js'

interface Converted {
  nativeId: string
  priority: number
  requestDsl: { method?: string; path?: string; url?: unknown }
  responseDsl: { status: number; content?: string }
}

async function convert(
  platform: TestPlatform,
  files: Parameters<typeof formOf>[1],
  query = '',
  fields: Record<string, string> = {},
): Promise<Response> {
  return platform.request(`/api/v1/transactions/convert${query}`, {
    method: 'POST',
    body: formOf(fields, files),
  })
}

const HAR_FILE = 'microcks-api-pastries.har'
const OPENAPI_FILE = 'petstore-v3.oas30.yaml'

const dslFile = JSON.stringify([
  {
    name: 'list',
    dsl: { priority: 3, requestDsl: { method: 'GET', path: '/pets' }, responseDsl: { json: [] } },
  },
  {
    name: 'create',
    dsl: { requestDsl: { method: 'POST', path: '/pets' }, responseDsl: { status: 201 } },
  },
])

describe('/api/v1 transactions/convert', () => {
  it('converts a file into imported dsl objects {nativeId, priority, requestDsl, responseDsl}, storing nothing', async () => {
    const platform = await startTestPlatform()
    const res = await convert(platform, [{ name: 'pets.json', bytes: dslFile }])
    expect(res.status).toBe(200)
    const body = await envelope<Converted[]>(res)
    expect(body.error).toBeNull()
    expect(body.result.map((c) => Object.keys(c).sort())).toEqual([
      ['nativeId', 'priority', 'requestDsl', 'responseDsl'],
      ['nativeId', 'priority', 'requestDsl', 'responseDsl'],
    ])
    expect(body.result).toMatchObject([
      {
        nativeId: 'list',
        priority: 3,
        requestDsl: { method: 'GET', path: '/pets' },
        responseDsl: { status: 200 },
      },
      {
        nativeId: 'create',
        priority: 10,
        requestDsl: { method: 'POST' },
        responseDsl: { status: 201 },
      },
    ])
    expect(body.warnings).toBeUndefined()
    const list = await envelope<unknown[]>(await platform.request(transactionsPath(platform)))
    expect(list.total).toBe(0)
  })

  itRealworld(
    'converts a real HAR and a real OpenAPI file, as the importers read them',
    async () => {
      const platform = await startTestPlatform()
      for (const [folder, name] of [
        ['har', HAR_FILE],
        ['openapi', OPENAPI_FILE],
      ] as const) {
        const bytes = readRealworld(folder, name)
        const expected = importFile({ bytes, fileName: name }).document.transactions
        const res = await convert(platform, [{ name, bytes }], '?verbose=true')
        expect(res.status).toBe(200)
        const body = await envelope<Converted[]>(res)
        expect(body.result.map((c) => c.nativeId)).toEqual(expected.map((t) => t.name))
        expect(body.result.map((c) => c.requestDsl)).toEqual(expected.map((t) => t.dsl.requestDsl))
        expect(Array.isArray(body.warnings)).toBe(true)
      }
    },
  )

  it('gives back what the multipart create imports again, named by nativeId', async () => {
    const platform = await startTestPlatform()
    const converted = await (
      await convert(platform, [{ name: 'pets.json', bytes: dslFile }])
    ).text()
    const serviceId = await createService(platform)
    const res = await platform.request(transactionsPath(platform), {
      method: 'POST',
      body: formOf({ serviceId: String(serviceId) }, [
        { name: 'converted.json', bytes: converted },
      ]),
    })
    expect(res.status).toBe(200)
    const { result } = await envelope<Array<{ name: string; dsl: { priority: number } }>>(res)
    expect(result.map((t) => [t.name, t.dsl.priority])).toEqual([
      ['list', 3],
      ['create', 10],
    ])
  })

  it('converts several files of one form in order, and takes verbose as a form field too', async () => {
    const platform = await startTestPlatform()
    const one = JSON.stringify({ name: 'one', dsl: { requestDsl: { path: '/1' } } })
    const two = 'name: two\ndsl:\n  requestDsl:\n    path: /2\n'
    const res = await convert(
      platform,
      [
        { name: 'one.json', bytes: one },
        { field: 'other', name: 'two.yaml', bytes: two },
      ],
      '',
      { verbose: 'true' },
    )
    const body = await envelope<Converted[]>(res)
    expect(body.result.map((c) => c.nativeId)).toEqual(['one', 'two'])
    expect(body.warnings).toEqual([])
  })

  it('refuses an unknown format with 415 and a malformed file with 400, naming the file', async () => {
    const platform = await startTestPlatform()
    const unknown = await expectError(
      await convert(platform, [{ name: 'notes.txt', bytes: 'hello there' }]),
      415,
      'ERR_IMPORT_FORMAT_UNKNOWN',
    )
    expect(unknown.error?.message).toContain('notes.txt')
    const broken = await expectError(
      await convert(platform, [{ name: 'broken.yaml', bytes: 'transactions: [\n' }]),
      400,
      'ERR_IMPORT_INVALID',
    )
    expect(JSON.stringify(broken.error)).toContain('broken.yaml')
  })

  it('refuses a form without a file or with a bad verbose, naming the field, and a JSON body with 415', async () => {
    const platform = await startTestPlatform()
    await expectError(await convert(platform, []), 400, 'ERR_API_VALIDATION', '/file')
    await expectError(
      await convert(platform, [{ name: 'pets.json', bytes: dslFile }], '?verbose=perhaps'),
      400,
      'ERR_API_VALIDATION',
      '/verbose',
    )
    const json = await platform.request('/api/v1/transactions/convert', {
      method: 'POST',
      json: JSON.parse(dslFile) as unknown,
    })
    await expectError(json, 415, 'ERR_API_UNSUPPORTED_MEDIA_TYPE')
  })

  it('refuses an upload past the upload limit with 413', async () => {
    const platform = await startTestPlatform({ uploadLimit: 1024 })
    await expectError(
      await convert(platform, [{ name: 'big.json', bytes: 'x'.repeat(2048) }]),
      413,
      'ERR_API_PAYLOAD_TOO_LARGE',
    )
  })

  it('answers 401 without credentials', async () => {
    const platform = await startTestPlatform()
    const res = await platform.request('/api/v1/transactions/convert', {
      method: 'POST',
      body: formOf({}, [{ name: 'pets.json', bytes: dslFile }]),
      headers: { authorization: '' },
    })
    await expectError(res, 401, 'ERR_API_UNAUTHORIZED')
  })
})
