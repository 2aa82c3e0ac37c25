import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { decodeContent, loadDefinitionText } from '../../../src/dsl/index.js'
import { thrown } from '../../helpers/errors.js'
import { compileMatcher, MatchRequest } from '../../../src/match/index.js'
import { importFile } from '../../../importers/index.js'
import { importPostman } from '../../../importers/postman/index.js'
import { describeRealworld, readRealworld, realworldFiles } from '../../helpers/realworld.js'

// Golden files: fixtures/<case>.postman_collection.json in, fixtures/<case>.expected.yaml out,
// compared as normalized documents.
const fixtures = join(import.meta.dirname, 'fixtures')
const cases = readdirSync(fixtures)
  .filter((f) => f.endsWith('.expected.yaml'))
  .map((f) => f.replace(/\.expected\.yaml$/, ''))
const collection = (items: unknown[], extra: Record<string, unknown> = {}) => ({
  bytes: Buffer.from(
    JSON.stringify({
      info: {
        name: 'c',
        schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
      },
      item: items,
      ...extra,
    }),
  ),
  fileName: 'c.postman_collection.json',
})

describe('importPostman golden files', () => {
  it('has golden cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(2)
  })

  it.each(cases)('imports fixtures/%s.postman_collection.json as its expected document', (name) => {
    const file = `${name}.postman_collection.json`
    const result = importPostman({ bytes: readFileSync(join(fixtures, file)), fileName: file })
    const expected = loadDefinitionText(
      readFileSync(join(fixtures, `${name}.expected.yaml`), 'utf8'),
      `${name}.expected.yaml`,
    )
    expect(result.document).toEqual(expected)
    expect(result.format).toBe('postman')
    expect(result.dslType).toBe('POSTMAN_DSL')
  })

  it('warns about shadowed examples and placeholders, naming them', () => {
    const file = 'petstore.postman_collection.json'
    const { warnings } = importPostman({
      bytes: readFileSync(join(fixtures, file)),
      fileName: file,
    })
    expect(warnings.map((w) => `${w.at ?? ''} ${w.message}`)).toEqual([
      '/item/1/response/0 example "Adopt / Conflict" matches the same requests as "Adopt / Adopted", which answers them; this one answers requests with the header x-mock-response-name: Conflict',
      '/item/2 request "Upload part" has no saved example response; it is imported as a placeholder answering 200 with an empty JSON object {} (application/json, so that test scripts calling pm.response.json() can run; save an example in Postman to mock a real answer)',
    ])
  })
})

describe('importPostman mapping decisions', () => {
  it('turns unknown variables into one-segment placeholders and known ones into text', () => {
    const { document } = importPostman(
      collection(
        [
          {
            name: 'r',
            request: { method: 'get', url: '{{base}}/v{{ver}}/users/{{userId}}/x{{suffix}}' },
            response: [{ name: 'ok', code: 200 }],
          },
        ],
        {
          variable: [
            { key: 'ver', value: '{{major}}' },
            { key: 'major', value: '3' },
          ],
        },
      ),
    )
    const request = document.transactions[0]?.dsl.requestDsl
    expect(request?.method).toBe('GET')
    expect(request?.host).toBeUndefined()
    expect(request?.url).toEqual({
      key: 'url',
      matcherName: 'equals_url',
      matchingValue: '/v3/users/{userId}/x{suffix}',
    })
    expect(document.transactions[0]?.dsl.priority).toBe(11)
  })

  it('takes a path prefix from a base-URL variable', () => {
    const { document } = importPostman(
      collection(
        [
          {
            name: 'r',
            request: { url: { raw: '{{base}}/items', host: ['{{base}}'], path: ['items'] } },
            response: [{ name: 'ok', code: 200 }],
          },
        ],
        { variable: [{ key: 'base', value: 'https://shop.test:8443/api/v1' }] },
      ),
    )
    expect(document.transactions[0]?.dsl.requestDsl).toMatchObject({
      host: 'shop.test:8443',
      url: { matchingValue: '/api/v1/items' },
    })
  })

  it('answers a request without a saved example with JSON: its own JSON body, else {}, and says so', () => {
    const { document, warnings } = importPostman(
      collection([
        { name: 'list', request: { method: 'GET', url: 'https://api.test/pets' } },
        {
          name: 'create',
          request: {
            method: 'POST',
            url: 'https://api.test/pets',
            body: { mode: 'raw', raw: '{"name":"Rex"}', options: { raw: { language: 'json' } } },
          },
        },
        {
          name: 'form',
          request: {
            method: 'POST',
            url: 'https://api.test/form',
            body: { mode: 'urlencoded', urlencoded: [{ key: 'a', value: '1' }] },
          },
        },
      ]),
    )
    const answer = (name: string) => {
      const response = document.transactions.find((t) => t.name === name)?.dsl.responseDsl
      return {
        status: response?.status,
        contentType: response?.contentType,
        body: JSON.parse(decodeContent(response?.content).toString('utf8')) as unknown,
      }
    }
    expect(answer('list')).toEqual({ status: 200, contentType: 'json', body: {} })
    expect(answer('create')).toEqual({ status: 200, contentType: 'json', body: { name: 'Rex' } })
    expect(answer('form')).toEqual({ status: 200, contentType: 'json', body: {} })
    expect(warnings.map((w) => w.message)).toEqual([
      expect.stringContaining(
        'request "list" has no saved example response; it is imported as a placeholder answering 200 with an empty JSON object {}',
      ),
      expect.stringContaining(
        'request "create" has no saved example response; it is imported as a placeholder answering 200 with the JSON body of the request',
      ),
      expect.stringContaining(
        'request "form" has no saved example response; it is imported as a placeholder answering 200 with an empty JSON object {}',
      ),
    ])
  })

  it('refuses a v1 collection with a message saying how to convert it', () => {
    const err = thrown(() =>
      importPostman({
        bytes: Buffer.from(JSON.stringify({ id: 'x', name: 'v1', order: [], requests: [] })),
        fileName: 'v1.json',
      }),
    )
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toMatch(
      /Postman Collection v1, which is not supported: .*export it as Collection v2\.1/,
    )
  })

  it('rejects a collection without an item array', () => {
    const err = thrown(() =>
      importPostman({ bytes: Buffer.from('{"info": {"name": "x"}}'), fileName: 'x.json' }),
    )
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toMatch(/expected a Postman collection v2\.0 or v2\.1/)
  })

  it('serves the examples the way the collection saved them', () => {
    const file = 'petstore.postman_collection.json'
    const matcher = compileMatcher(
      importPostman({ bytes: readFileSync(join(fixtures, file)), fileName: file }).document,
      (txn) => txn.name,
    )
    const match = (method: string, url: string, headers: Record<string, string> = {}) =>
      matcher.match(new MatchRequest(method, url, headers, null))?.payload ?? null
    expect(match('GET', '/v2/pets/7')).toBe('Pets / Get pet / Found')
    expect(match('GET', '/v2/pets/8')).toBe('Pets / Get pet / Missing')
    expect(match('GET', '/v2/pets/me')).toBe('Pets / My pet / Mine')
    expect(match('GET', '/v2/pets?limit=10&kind=dogs&token=tk-123')).toBe(
      'Pets / List pets / Ten pets',
    )
    expect(match('GET', '/v2/pets?limit=10&kind=cats&token=tk-123')).toBeNull()
    expect(match('POST', '/v2/adoptions')).toBe('Adopt / Adopted')
    expect(match('POST', '/v2/adoptions', { 'x-mock-response-name': 'Conflict' })).toBe(
      'Adopt / Conflict',
    )
    expect(match('PUT', '/upload/abc-part')).toBe('Upload part')
  })
})

describeRealworld('real-world Postman collections', () => {
  const files = realworldFiles('postman')
  // The one file that cannot import, and why.
  const expectedErrors: Record<string, RegExp> = {
    'newman-v1.postman_collection.json': /Postman Collection v1, which is not supported/,
  }

  it('finds the files', () => {
    expect(files.length).toBeGreaterThan(0)
  })

  it.each(files)('imports %s through detection, or fails with its named error', (name) => {
    const input = { bytes: readRealworld('postman', name), fileName: name }
    const expected = expectedErrors[name]
    if (expected !== undefined) {
      const err = thrown(() => importFile(input))
      expect(err.code).toBe('ERR_IMPORT_INVALID')
      expect(err.message).toMatch(expected)
      return
    }
    const result = importFile(input)
    expect(result.format).toBe('postman')
    expect(result.document.transactions.length).toBeGreaterThan(0)
  })

  it('imports the saved examples of the Microcks weather collection, one per region', () => {
    const result = importFile({
      bytes: readRealworld('postman', 'microcks-weather-forecast.postman.json'),
      fileName: 'weather.json',
    })
    expect(result.warnings).toEqual([])
    const byPath = Object.fromEntries(
      result.document.transactions.map((t) => [
        t.dsl.requestDsl.url?.matchingValue,
        t.dsl.responseDsl.status,
      ]),
    )
    expect(byPath).toEqual({
      '/forecast/east': 200,
      '/forecast/north': 200,
      '/forecast/south': 200,
      '/forecast/west': 200,
      '/forecast/other': 404,
    })
  })

  it('flattens nested folders into names', () => {
    const result = importFile({
      bytes: readRealworld('postman', 'newman-multi-level-folders.postman_collection.json'),
      fileName: 'f.json',
    })
    expect(result.document.transactions.map((t) => t.name)).toContain('F2 / F2.F3 / F2.F3.R1')
  })

  it('reads a collection that starts with a byte order mark', () => {
    const result = importFile({
      bytes: readRealworld('postman', 'newman-bom.postman_collection.json'),
      fileName: 'bom.json',
    })
    expect(result.format).toBe('postman')
  })
})
