import { zipSync } from 'fflate'
import { stringify } from 'yaml'
import { describe, expect, it } from 'vitest'
import { thrown } from '../../helpers/errors.js'
import {
  detectFormat,
  importFile,
  importFormats,
  supportedExtensions,
} from '../../../importers/index.js'
import { describeRealworld, readRealworld, realworldFiles } from '../../helpers/realworld.js'

const json = (value: unknown, fileName = 'input.json') => ({
  bytes: Buffer.from(JSON.stringify(value)),
  fileName,
})
const text = (value: string, fileName: string) => ({ bytes: Buffer.from(value), fileName })

describe('detectFormat', () => {
  it.each([
    ['a HAR log', json({ log: { version: '1.2', entries: [] } }, 'capture.json'), 'har'],
    [
      'an OpenAPI 3 document in YAML',
      text('openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths: {}\n', 'api.yaml'),
      'openapi',
    ],
    ['a Swagger 2 document', json({ swagger: '2.0', paths: {} }, 'api.txt'), 'openapi'],
    [
      'a WireMock stub',
      json({ request: { url: '/a' }, response: { status: 200 } }, 'stub.har'),
      'wiremock',
    ],
    ['a WireMock stub without response', json({ request: { urlPath: '/a' } }), 'wiremock'],
    ['WireMock mappings', json({ mappings: [] }), 'wiremock'],
    [
      'a Postman v2.1 collection',
      json({
        info: { schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
        item: [],
      }),
      'postman',
    ],
    ['a Postman collection without schema', json({ info: { name: 'x' }, item: [] }), 'postman'],
    [
      'a Postman v1 collection (to refuse it clearly)',
      json({ id: '1', name: 'x', order: [], requests: [] }),
      'postman',
    ],
    ['a mock-service document', json({ thinkTime: 5, transactions: [] }), 'dsl'],
    ['a transaction list', json([{ dsl: { requestDsl: {} } }]), 'dsl'],
    ['a bare dsl', json({ requestDsl: { path: '/a' } }), 'dsl'],
    ['an empty list', json([]), 'dsl'],
    ['DSL in YAML', text('- dsl:\n    requestDsl: {path: /a}\n', 'mocks.yml'), 'dsl'],
    ['the API envelope', json({ apiVersion: 1, error: null, result: [] }), 'transactions'],
    ['a convert result', json({ nativeId: 'a', requestDsl: {} }), 'transactions'],
    [
      'an exported transaction record',
      json({ id: 3, serviceId: 1, name: 'a', dsl: { requestDsl: {} } }),
      'transactions',
    ],
    [
      'a list mixing records and DSL',
      json([{ dsl: { requestDsl: {} } }, { id: 3, link: 'x', dsl: { requestDsl: {} } }]),
      'transactions',
    ],
    ['a raw HTTP request', text('\r\nGET /a?b=1 HTTP/1.1\r\nHost: x\r\n\r\n', 'a-req.txt'), 'rr'],
    ['a raw HTTP response', text('HTTP/1.1 404 Not Found\n\n', 'whatever.json'), 'rr'],
    [
      'a zip archive',
      { bytes: zipSync({ 'a.json': Buffer.from('{}') }), fileName: 'a.json' },
      'zip',
    ],
    ['an empty zip archive', { bytes: zipSync({}), fileName: 'empty.zip' }, 'zip'],
  ])('recognises %s by content', (_label, input, format) => {
    expect(detectFormat(input)).toBe(format)
  })

  it('names the file, what it looks like and everything accepted for an unknown shape', () => {
    const err = thrown(() => detectFormat(json({ hello: 'world' }, 'greeting.json')))
    expect(err.code).toBe('ERR_IMPORT_FORMAT_UNKNOWN')
    expect(err.message).toBe(
      'Unrecognised file format: greeting.json: its top-level keys (hello) match no supported format; expected a zip archive; ' +
        'transaction DSL (JSON/YAML: transactions, dsl, requestDsl); exported transactions ({apiVersion, result}); HAR (log.entries); ' +
        'OpenAPI 2/3 (openapi or swagger); WireMock mappings (request+response, or mappings); Postman collection v2 (info+item); Mockoon environment (lastMigration+routes); ' +
        'RR pair (NAME-req.txt / NAME-rsp.txt with raw HTTP)',
    )
  })

  it('calls a text file that is neither JSON, YAML nor HTTP an unknown format', () => {
    expect(thrown(() => detectFormat(text('# Title\n\n: not: yaml: [', 'README.md'))).code).toBe(
      'ERR_IMPORT_FORMAT_UNKNOWN',
    )
    expect(
      thrown(() =>
        detectFormat({ bytes: Buffer.from([0, 159, 146, 150, 1, 2]), fileName: 'blob.bin' }),
      ).code,
    ).toBe('ERR_IMPORT_FORMAT_UNKNOWN')
  })

  it('reports a broken .json file as invalid, with line and column', () => {
    const err = thrown(() =>
      detectFormat(text('{\n  "request": {\n    "url": "/a",\n  }\n}', 'stub.json')),
    )
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toMatch(
      /^Cannot import stub\.json: not valid JSON or YAML: .*\(line 4, column 3\)$/,
    )
    expect(err.details?.[0]).toMatchObject({ file: 'stub.json', line: 4, column: 3 })
  })

  it('reports an empty file as empty', () => {
    const err = thrown(() => detectFormat(text(' \n', 'empty.yaml')))
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toBe('Cannot import empty.yaml: is empty')
  })
})

describe('importFile', () => {
  it('refuses an input above the size limit before reading it', () => {
    const err = thrown(() => importFile(json({ mappings: [] }, 'big.json'), { maxBytes: 10 }))
    expect(err.code).toBe('ERR_IMPORT_TOO_LARGE')
    expect(err.message).toBe('File big.json is larger than the limit of 10 bytes')
  })

  it('takes a forced format instead of detecting', () => {
    const stub = json({ request: { url: '/a' }, response: { body: 'x' } }, 'stub.txt')
    expect(importFile(stub, { format: 'wiremock' }).format).toBe('wiremock')
    const err = thrown(() => importFile(stub, { format: 'postman' }))
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toMatch(/stub\.txt: expected a Postman collection/)
  })

  it('loads our own DSL with its mock-service settings', () => {
    const result = importFile(
      text(
        stringify({ thinkTime: 50, transactions: [{ dsl: { requestDsl: { path: '/a' } } }] }),
        'mocks.yaml',
      ),
    )
    expect(result.format).toBe('dsl')
    expect(result.dslType).toBe('GENERIC_DSL')
    expect(result.document.thinkTime).toEqual({ type: 'fixed', duration: 50 })
  })

  it('keeps the DSL loader errors, with file and line', () => {
    const err = thrown(() =>
      importFile(text('transactions:\n  - dsl:\n      requestDsl: {metod: GET}\n', 'bad.yaml')),
    )
    expect(err.code).toBe('ERR_DSL_INVALID')
    expect(err.details?.[0]).toMatchObject({ file: 'bad.yaml', line: 3 })
  })

  it('dispatches HAR and OpenAPI files to their importers', () => {
    const har = {
      log: {
        version: '1.2',
        creator: { name: 't', version: '1' },
        entries: [
          {
            startedDateTime: '2024-01-01T00:00:00.000Z',
            time: 1,
            request: {
              method: 'GET',
              url: 'http://x.test/a',
              httpVersion: 'HTTP/1.1',
              cookies: [],
              headers: [],
              queryString: [],
              headersSize: -1,
              bodySize: 0,
            },
            response: {
              status: 200,
              statusText: 'OK',
              httpVersion: 'HTTP/1.1',
              cookies: [],
              headers: [],
              content: { size: 2, mimeType: 'text/plain', text: 'hi' },
              redirectURL: '',
              headersSize: -1,
              bodySize: 2,
            },
            cache: {},
            timings: { send: 0, wait: 1, receive: 0 },
          },
        ],
      },
    }
    const harResult = importFile(json(har, 'capture.har'))
    expect(harResult.format).toBe('har')
    expect(harResult.dslType).toBe('HAR_DSL')
    const api =
      'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /a:\n    get:\n      responses:\n        "200": {description: ok}\n'
    expect(importFile(text(api, 'api.yaml')).format).toBe('openapi')
  })

  it('treats a file under __files/ as a WireMock body, importing nothing', () => {
    const result = importFile(json({ any: 'body' }, 'stubs/__files/user.json'))
    expect(result.document.transactions).toEqual([])
    expect(result.warnings[0]?.message).toMatch(/WireMock body file/)
  })

  it('lists what a directory scan should pick up, and every format', () => {
    expect(supportedExtensions).toEqual(['.json', '.yaml', '.yml', '.har', '.zip', '.txt'])
    expect(importFormats).toEqual([
      'dsl',
      'transactions',
      'har',
      'openapi',
      'rr',
      'wiremock',
      'postman',
      'mockoon',
    ])
  })
})

describeRealworld('real-world files of formats Understudy does not import', () => {
  const expected: Array<[string, RegExp]> = [
    ['runscope', /Runscope|match no supported format/],
    ['runscope/api-responses', /API-monitoring response envelope/],
    ['blazemeter-v4', /v4\) API response envelope|match no supported format/],
  ]
  const files = expected.flatMap(([category, why]) =>
    realworldFiles(category).map((name) => [category, name, why] as const),
  )

  it('finds the files', () => {
    expect(files.length).toBeGreaterThanOrEqual(9)
  })

  it.each(files)(
    'refuses %s/%s with ERR_IMPORT_FORMAT_UNKNOWN naming it and what is accepted',
    (category, name, why) => {
      const err = thrown(() => importFile({ bytes: readRealworld(category, name), fileName: name }))
      expect(err.code).toBe('ERR_IMPORT_FORMAT_UNKNOWN')
      expect(err.message).toContain(`${name}: `)
      expect(err.message).toMatch(why)
      expect(err.message).toContain('; expected a zip archive; transaction DSL')
    },
  )

  it('names Runscope tests and v4 envelopes specifically', () => {
    const message = (category: string, name: string) =>
      thrown(() => importFile({ bytes: readRealworld(category, name), fileName: name })).message
    expect(message('runscope', 'runscope-export-1.json')).toMatch(
      /API-monitoring \(Runscope\) test/,
    )
    expect(message('blazemeter-v4', 'taurus-api-accounts.json')).toMatch(
      /administration \(v4\) API response envelope/,
    )
  })

  it('detects every real-world HAR and OpenAPI file as such (the broken one as invalid)', () => {
    for (const name of realworldFiles('har')) {
      const input = { bytes: readRealworld('har', name), fileName: name }
      if (name === 'mitmproxy-brokenfile.har') {
        expect(thrown(() => detectFormat(input)).code).toBe('ERR_IMPORT_INVALID')
      } else {
        expect(detectFormat(input), name).toBe('har')
      }
    }
    for (const name of realworldFiles('openapi')) {
      expect(detectFormat({ bytes: readRealworld('openapi', name), fileName: name }), name).toBe(
        'openapi',
      )
    }
  })
})
