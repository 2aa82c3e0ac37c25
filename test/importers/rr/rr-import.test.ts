import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { loadDefinitionText, type MockServiceDocument } from '../../../src/dsl/index.js'
import { thrown } from '../../helpers/errors.js'
import { compileMatcher, MatchRequest } from '../../../src/match/index.js'
import { importArchive, importFile } from '../../../importers/index.js'
import { importRrFile, importRrPairs } from '../../../importers/rr/index.js'

// Golden files: fixtures/<case>-req.txt + <case>-rsp.txt in, fixtures/<case>.expected.yaml out,
// compared as normalized documents.
const fixtures = join(import.meta.dirname, 'fixtures')
const cases = readdirSync(fixtures)
  .filter((f) => f.endsWith('.expected.yaml'))
  .map((f) => f.replace(/\.expected\.yaml$/, ''))
const bytes = (text: string) => Buffer.from(text, 'utf8')
const readFixture = (name: string) => readFileSync(join(fixtures, name))

function matcherOf(doc: MockServiceDocument) {
  return compileMatcher(doc, (txn) => txn.name)
}

describe('importRrPairs golden files', () => {
  it('has golden cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(3)
  })

  it.each(cases)('imports the pair %s as its expected document', (name) => {
    const files = new Map([
      [`${name}-req.txt`, readFixture(`${name}-req.txt`)],
      [`${name}-rsp.txt`, readFixture(`${name}-rsp.txt`)],
    ])
    const result = importRrPairs(files, { source: name })
    const expected = loadDefinitionText(
      readFixture(`${name}.expected.yaml`).toString('utf8'),
      `${name}.expected.yaml`,
    )
    expect(result.document).toEqual(expected)
    expect(result.format).toBe('rr')
    expect(result.dslType).toBe('RR_PAIR')
  })
})

describe('importRrPairs', () => {
  it('reads CRLF files like LF files', () => {
    const req =
      'POST /login?next=%2Fhome HTTP/1.1\r\nHost: a.test\r\nContent-Type: application/json\r\n\r\n{"user":"ada"}'
    const rsp = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-A: 1\r\n\r\nwelcome\r\nback'
    const { document } = importRrPairs(
      new Map([
        ['login-req.txt', bytes(req)],
        ['login-rsp.txt', bytes(rsp)],
      ]),
    )
    const txn = document.transactions[0]
    expect(txn?.name).toBe('login')
    expect(txn?.dsl.requestDsl.url).toEqual({
      key: 'url',
      matcherName: 'equals_url',
      matchingValue: '/login',
    })
    expect(txn?.dsl.requestDsl.queryParams).toEqual([
      { key: 'next', matcherName: 'equals', matchingValue: '/home' },
    ])
    expect(txn?.dsl.requestDsl.body).toEqual([
      { matcherName: 'equals_json', matchingValue: '{"user":"ada"}' },
    ])
    expect(txn?.dsl.responseDsl.headers).toEqual([{ name: 'X-A', value: '1' }])
    expect(Buffer.from(txn?.dsl.responseDsl.content ?? '', 'base64').toString()).toBe(
      'welcome\r\nback',
    )
  })

  it('decodes a chunked response body and drops the framing headers', () => {
    const rsp =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\n\r\n'
    const { document, warnings } = importRrPairs(
      new Map([
        ['c-req.txt', bytes('GET /c HTTP/1.1\n\n')],
        ['c-rsp.txt', bytes(rsp)],
      ]),
    )
    const response = document.transactions[0]?.dsl.responseDsl
    expect(Buffer.from(response?.content ?? '', 'base64').toString()).toBe('hello, world')
    expect(response?.headers).toBeUndefined()
    expect(warnings).toEqual([])
  })

  it('keeps a body that claims to be chunked but is not, with a warning', () => {
    const rsp = 'HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\nnot chunked'
    const { document, warnings } = importRrPairs(
      new Map([
        ['c-req.txt', bytes('GET /c HTTP/1.1\n\n')],
        ['c-rsp.txt', bytes(rsp)],
      ]),
    )
    expect(
      Buffer.from(document.transactions[0]?.dsl.responseDsl.content ?? '', 'base64').toString(),
    ).toBe('not chunked')
    expect(warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/^pair c: response .*chunked/),
    ])
  })

  it('records the authority of an absolute-form request target as host', () => {
    const { document } = importRrPairs(
      new Map([
        ['p-req.txt', bytes('GET http://upstream.test:8080/a/b?x=1 HTTP/1.1\n\n')],
        ['p-rsp.txt', bytes('HTTP/1.1 200 OK\n\n')],
      ]),
    )
    const request = document.transactions[0]?.dsl.requestDsl
    expect(request?.host).toBe('upstream.test:8080')
    expect(request?.url?.matchingValue).toBe('/a/b')
    expect(request?.queryParams).toEqual([{ key: 'x', matcherName: 'equals', matchingValue: '1' }])
  })

  it('does not match a binary request body, and says so', () => {
    const req = Buffer.concat([
      bytes('POST /upload HTTP/1.1\nContent-Type: application/octet-stream\n\n'),
      Buffer.from([0xff, 0xfe, 0x00, 0x81]),
    ])
    const rsp = Buffer.concat([
      bytes('HTTP/1.1 200 OK\nContent-Type: image/png\n\n'),
      Buffer.from([0x89, 0x50, 0x4e, 0x47]),
    ])
    const { document, warnings } = importRrPairs(
      new Map([
        ['u-req.txt', req],
        ['u-rsp.txt', rsp],
      ]),
    )
    expect(document.transactions[0]?.dsl.requestDsl.body).toBeUndefined()
    expect(document.transactions[0]?.dsl.responseDsl).toMatchObject({
      binary: true,
      contentType: 'image/png',
      content: 'iVBORw==',
    })
    expect(warnings[0]?.message).toMatch(/binary .* not matched/)
  })

  it('matches a urlencoded form field by field, and leaves a multipart body unmatched with a warning', () => {
    const { document, warnings } = importRrPairs(
      new Map([
        [
          'form-req.txt',
          bytes('POST /f HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\n\nb=2&a=x+y'),
        ],
        ['form-rsp.txt', bytes('HTTP/1.1 200 OK\n\n')],
        [
          'multi-req.txt',
          bytes(
            'POST /m HTTP/1.1\nContent-Type: multipart/form-data; boundary=XyZ\n\n--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--XyZ--\r\n',
          ),
        ],
        ['multi-rsp.txt', bytes('HTTP/1.1 200 OK\n\n')],
        ['beacon-req.txt', bytes('POST /b HTTP/1.1\nContent-Type: text/plain\n\n{"event":"x"}')],
        ['beacon-rsp.txt', bytes('HTTP/1.1 204 No Content\n\n')],
      ]),
    )
    const bodies = Object.fromEntries(
      document.transactions.map((t) => [t.name, t.dsl.requestDsl.body]),
    )
    expect(bodies).toEqual({
      beacon: [{ matcherName: 'equals_json', matchingValue: '{"event":"x"}' }],
      form: [
        { key: 'b', matcherName: 'equals', matchingValue: '2' },
        { key: 'a', matcherName: 'equals', matchingValue: 'x y' },
      ],
      multi: undefined,
    })
    expect(warnings.map((w) => w.message)).toEqual([
      'pair multi: request body is multipart/form-data, whose boundary changes on every request; it is not matched',
    ])
  })

  it('skips a malformed pair with a warning naming it when other pairs import', () => {
    const files = new Map([
      ['good-req.txt', readFixture('get-user-req.txt')],
      ['good-rsp.txt', readFixture('get-user-rsp.txt')],
      ['bad-req.txt', bytes('this is not http\n\n')],
      ['bad-rsp.txt', bytes('HTTP/1.1 200 OK\n\n')],
      ['lonely-req.txt', bytes('GET / HTTP/1.1\n\n')],
    ])
    const { document, warnings } = importRrPairs(files, { source: 'pairs.zip' })
    expect(document.transactions.map((t) => t.name)).toEqual(['good'])
    const messages = warnings.map((w) => `${w.file ?? ''}: ${w.message}`)
    expect(messages).toContainEqual(
      expect.stringMatching(
        /^bad-req\.txt: pair bad: bad-req\.txt expected a request line .* \(line 1\); skipped$/,
      ),
    )
    expect(messages).toContainEqual(
      expect.stringMatching(
        /^lonely-req\.txt: pair lonely is incomplete: lonely-rsp\.txt is missing; skipped$/,
      ),
    )
  })

  it('fails with ERR_IMPORT_INVALID listing every pair when none imports', () => {
    const err = thrown(() =>
      importRrPairs(
        new Map([
          ['a-req.txt', bytes('GET /a HTTP/1.1\nno colon here\n\n')],
          ['a-rsp.txt', bytes('HTTP/1.1 200 OK\n\n')],
          ['b-req.txt', bytes('GET /b HTTP/1.1\n\n')],
          ['b-rsp.txt', bytes('HTTP/1.1 OK\n\n')],
        ]),
        { source: 'broken.zip' },
      ),
    )
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toMatch(
      /^Cannot import broken\.zip: no pair could be imported: a-req\.txt:2 /,
    )
    expect(err.details).toEqual([
      {
        path: '',
        file: 'a-req.txt',
        line: 2,
        message: expect.stringContaining('expected a header line'),
      },
      {
        path: '',
        file: 'b-rsp.txt',
        line: 1,
        message: expect.stringContaining('expected a status line'),
      },
    ])
  })

  it('names the source when the set holds no pair at all', () => {
    const err = thrown(() =>
      importRrPairs(new Map([['notes.txt', bytes('x')]]), { source: 'dir/' }),
    )
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toMatch(/dir\/: contains no request\/response pair/)
  })

  it('skips a pair whose status is not an HTTP status, naming it', () => {
    const { document, warnings } = importRrPairs(
      new Map([
        ['ok-req.txt', bytes('GET /ok HTTP/1.1\n\n')],
        ['ok-rsp.txt', bytes('HTTP/1.1 200 OK\n\n')],
        ['odd-req.txt', bytes('GET /odd HTTP/1.1\n\n')],
        ['odd-rsp.txt', bytes('HTTP/1.1 999 Nope\n\n')],
      ]),
    )
    expect(document.transactions.map((t) => t.name)).toEqual(['ok'])
    expect(warnings[0]?.message).toMatch(/^pair odd skipped: .*responseDsl\/status/)
  })
})

describe('RR pairs through the entry point', () => {
  it('imports a zip of pairs built with fflate, named by pair, in name order', () => {
    const zip = zipSync({
      'pairs/get-user-req.txt': readFixture('get-user-req.txt'),
      'pairs/get-user-rsp.txt': readFixture('get-user-rsp.txt'),
      'pairs/create-order-req.txt': readFixture('create-order-req.txt'),
      'pairs/create-order-rsp.txt': readFixture('create-order-rsp.txt'),
      'pairs/broken-req.txt': bytes('GET\n\n'),
      'pairs/broken-rsp.txt': bytes('HTTP/1.1 200 OK\n\n'),
    })
    const viaFile = importFile({ bytes: zip, fileName: 'pairs.zip' })
    const viaArchive = importArchive(zip, 'pairs.zip')
    expect(viaFile.document).toEqual(viaArchive.document)
    expect(viaArchive.format).toBe('rr')
    expect(viaArchive.document.transactions.map((t) => t.name)).toEqual([
      'pairs/create-order',
      'pairs/get-user',
    ])
    expect(viaArchive.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/^pair pairs\/broken: .*expected a request line/),
    ])
    expect(viaArchive.parts).toEqual([
      { file: 'pairs/broken-req.txt', format: 'rr', dslType: 'RR_PAIR', transactions: 2 },
    ])
  })

  it('imports one file of a pair by reading its other half through ctx.readFile', () => {
    const readFile = (rel: string) => (rel === 'get-user-rsp.txt' ? readFixture(rel) : undefined)
    const result = importFile(
      { bytes: readFixture('get-user-req.txt'), fileName: 'mocks/get-user-req.txt' },
      { readFile },
    )
    expect(result.format).toBe('rr')
    expect(result.document.transactions.map((t) => t.name)).toEqual(['get-user'])
  })

  it('imports nothing for the response half when the request half is beside it, so a file-by-file scan gets each pair once', () => {
    const result = importRrFile(
      { bytes: readFixture('get-user-rsp.txt'), fileName: 'get-user-rsp.txt' },
      {
        readFile: (rel) => (rel === 'get-user-req.txt' ? readFixture(rel) : undefined),
      },
    )
    expect(result.document.transactions).toEqual([])
    expect(result.warnings).toEqual([
      {
        message:
          'is the response half of pair get-user; the pair is imported with get-user-req.txt',
        file: 'get-user-rsp.txt',
      },
    ])
  })

  it('refuses a lone half with ERR_IMPORT_INVALID naming the missing file', () => {
    const err = thrown(() =>
      importFile({ bytes: readFixture('get-user-req.txt'), fileName: 'get-user-req.txt' }),
    )
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toContain('get-user-rsp.txt was not found')
  })

  it('serves the recorded answer to the recorded request, and not to another body', () => {
    const files = new Map(
      ['create-order', 'get-user'].flatMap(
        (n) =>
          [
            [`${n}-req.txt`, readFixture(`${n}-req.txt`)],
            [`${n}-rsp.txt`, readFixture(`${n}-rsp.txt`)],
          ] as Array<[string, Buffer]>,
      ),
    )
    const matcher = matcherOf(importRrPairs(files).document)
    const post = (body: string) =>
      new MatchRequest('POST', '/orders', { 'content-type': 'application/json' }, bytes(body))
    expect(matcher.match(post('{"quantity": 2, "item": "book"}'))?.payload).toBe('create-order')
    expect(matcher.match(post('{"quantity": 3, "item": "book"}'))).toBeNull()
    const get = new MatchRequest('GET', '/users/42?q=a%20b&fields=name&fields=email', {}, null)
    expect(matcher.match(get)?.payload).toBe('get-user')
    expect(matcher.match(new MatchRequest('GET', '/users/42', {}, null))).toBeNull()
  })
})
