import { describe, expect, it } from 'vitest'
import { decodeContent } from '../../../src/dsl/index.js'
import { isUnderstudyError, type UnderstudyError } from '../../../src/errors/index.js'
import { importHar } from '../../../importers/har/index.js'
import { finishImport, guardImport } from '../../../importers/shared/index.js'
import { harDocument, harEntry, harInput } from './har-builder.js'

function importEntries(...entries: unknown[]) {
  return importHar(harInput(harDocument(entries)))
}

function importError(bytes: Uint8Array | string, fileName = 'bad.har'): UnderstudyError {
  try {
    importHar({ bytes: typeof bytes === 'string' ? Buffer.from(bytes) : bytes, fileName })
  } catch (err) {
    if (isUnderstudyError(err)) return err
    throw new Error(`expected an UnderstudyError, got ${String(err)}`)
  }
  throw new Error('expected the import to fail')
}

describe('importHar: requests', () => {
  it('matches method, URL path and each query parameter, and records the host without matching it', () => {
    const { document, format, dslType } = importEntries(
      harEntry({ method: 'get', url: 'https://api.example.com:8443/pets/1?limit=2&tag=a%20b' }),
    )
    expect(format).toBe('har')
    expect(dslType).toBe('HAR_DSL')
    const [txn] = document.transactions
    expect(txn?.name).toBe('GET /pets/1')
    expect(txn?.dsl.requestDsl).toEqual({
      method: 'GET',
      host: 'api.example.com:8443',
      path: '/pets/1',
      url: { key: 'url', matcherName: 'equals_url', matchingValue: '/pets/1' },
      queryParams: [
        { key: 'limit', matcherName: 'equals', matchingValue: '2' },
        { key: 'tag', matcherName: 'equals', matchingValue: 'a b' },
      ],
    })
  })

  it('matches no request header, not even those a client always sends', () => {
    const { document } = importEntries(
      harEntry({
        requestHeaders: [
          { name: 'Accept', value: 'application/json' },
          { name: 'User-Agent', value: 'curl/8' },
          { name: 'Cookie', value: 'sid=1' },
          { name: 'X-Request-Id', value: 'abc' },
        ],
      }),
    )
    expect(document.transactions[0]?.dsl.requestDsl.headers).toBeUndefined()
    expect(document.transactions[0]?.dsl.requestDsl.cookies).toBeUndefined()
  })

  it('matches a JSON body with equals_json on the recorded text', () => {
    const { document } = importEntries(
      harEntry({
        method: 'POST',
        url: 'http://a/pets',
        postData: {
          mimeType: 'application/json; charset=utf-8',
          text: '{"name": "Rex", "age": 3}',
        },
      }),
    )
    expect(document.transactions[0]?.dsl.requestDsl.body).toEqual([
      { matcherName: 'equals_json', matchingValue: '{"name": "Rex", "age": 3}' },
    ])
  })

  it('treats a text/plain body holding a JSON object as JSON, as sendBeacon posts it', () => {
    const { document } = importEntries(
      harEntry({
        method: 'POST',
        url: 'http://a/beacon',
        postData: { mimeType: 'text/plain;charset=UTF-8', text: '{"a":1}' },
      }),
    )
    expect(document.transactions[0]?.dsl.requestDsl.body).toEqual([
      { matcherName: 'equals_json', matchingValue: '{"a":1}' },
    ])
  })

  it('matches any other body with equals on the whole text', () => {
    const { document } = importEntries(
      harEntry({
        method: 'PUT',
        url: 'http://a/note',
        postData: { mimeType: 'text/plain', text: 'hello' },
      }),
    )
    expect(document.transactions[0]?.dsl.requestDsl.body).toEqual([
      { matcherName: 'equals', matchingValue: 'hello' },
    ])
  })

  it('matches each field of a urlencoded form, so that field order does not matter', () => {
    const { document } = importEntries(
      harEntry({
        method: 'POST',
        url: 'http://a/login',
        postData: { mimeType: 'application/x-www-form-urlencoded', text: 'user=ann&pass=x%26y' },
      }),
    )
    expect(document.transactions[0]?.dsl.requestDsl.body).toEqual([
      { key: 'user', matcherName: 'equals', matchingValue: 'ann' },
      { key: 'pass', matcherName: 'equals', matchingValue: 'x&y' },
    ])
  })

  it('matches the non-file fields of a multipart body and warns that file parts are not matched', () => {
    const { document, warnings } = importEntries(
      harEntry({
        method: 'POST',
        url: 'http://a/upload',
        postData: {
          mimeType: 'multipart/form-data; boundary=xyz',
          text: '--xyz...',
          params: [
            { name: 'title', value: 'cat' },
            { name: 'file', fileName: 'cat.png', value: '' },
          ],
        },
      }),
    )
    expect(document.transactions[0]?.dsl.requestDsl.body).toEqual([
      { key: 'title', matcherName: 'equals', matchingValue: 'cat' },
    ])
    expect(warnings.map((w) => w.message)).toContainEqual(
      expect.stringMatching(/entries\[0\].*1 file part\(s\) are not matched/),
    )
  })

  it('adds no body matcher for an empty post body', () => {
    const { document } = importEntries(
      harEntry({
        method: 'POST',
        url: 'http://a/ping',
        postData: { mimeType: 'application/json', text: '' },
      }),
    )
    expect(document.transactions[0]?.dsl.requestDsl.body).toBeUndefined()
  })
})

describe('importHar: responses', () => {
  it('keeps status, status text and headers, dropping hop-by-hop, encoding, length, type and date headers', () => {
    const { document } = importEntries(
      harEntry({
        status: 404,
        statusText: 'Not Found',
        headers: [
          { name: 'Connection', value: 'keep-alive, X-Hop' },
          { name: 'X-Hop', value: 'named by Connection' },
          { name: 'Keep-Alive', value: 'timeout=5' },
          { name: 'Transfer-Encoding', value: 'chunked' },
          { name: 'Content-Encoding', value: 'gzip' },
          { name: 'Content-Length', value: '12' },
          { name: 'Content-Type', value: 'text/plain' },
          { name: 'Date', value: 'Mon, 01 Jan 2024 00:00:00 GMT' },
          { name: 'Proxy-Authenticate', value: 'Basic' },
          { name: ':status', value: '404' },
          { name: 'Cache-Control', value: 'no-store' },
          { name: 'X-Trace', value: 't-1' },
        ],
        mimeType: 'text/plain',
        text: 'no such pet',
      }),
    )
    const response = document.transactions[0]?.dsl.responseDsl
    expect(response?.status).toBe(404)
    expect(response?.statusMessage).toBe('Not Found')
    expect(response?.headers).toEqual([
      { name: 'Cache-Control', value: 'no-store' },
      { name: 'X-Trace', value: 't-1' },
    ])
  })

  it('splits header values that a capture joined with newlines, keeping every Set-Cookie', () => {
    const { document } = importEntries(
      harEntry({
        headers: [
          { name: 'Set-Cookie', value: 'a=1; Path=/\nb=2; Path=/' },
          { name: 'set-cookie', value: ['c=3'] },
        ],
      }),
    )
    expect(document.transactions[0]?.dsl.responseDsl.headers).toEqual([
      { name: 'Set-Cookie', value: 'a=1; Path=/' },
      { name: 'Set-Cookie', value: 'b=2; Path=/' },
      { name: 'set-cookie', value: 'c=3' },
    ])
  })

  it('leaves out a header value with control characters and says so', () => {
    const { document, warnings } = importEntries(
      harEntry({
        headers: [
          { name: 'X-Bad', value: 'a\u0001b' },
          { name: 'X-Good', value: 'ok' },
        ],
      }),
    )
    expect(document.transactions[0]?.dsl.responseDsl.headers).toEqual([
      { name: 'X-Good', value: 'ok' },
    ])
    expect(warnings.map((w) => w.message)).toContainEqual(expect.stringContaining('X-Bad'))
  })

  it('takes contentType from content.mimeType and the charset from it or from the Content-Type header', () => {
    const { document } = importEntries(
      harEntry({
        url: 'http://a/one',
        mimeType: 'application/json; charset=ISO-8859-1',
        text: '{"a":"é"}',
      }),
      harEntry({
        url: 'http://a/two',
        mimeType: 'application/json',
        headers: [{ name: 'content-type', value: 'application/json; charset=utf-8' }],
        text: '{}',
      }),
    )
    const [one, two] = document.transactions
    expect(one?.dsl.responseDsl).toMatchObject({
      contentType: 'application/json',
      charset: 'ISO-8859-1',
    })
    // the recorded text is re-encoded in the declared charset: é is one byte in ISO-8859-1
    expect(decodeContent(one?.dsl.responseDsl.content)).toEqual(
      Buffer.from('{"a":"\xe9"}', 'latin1'),
    )
    expect(two?.dsl.responseDsl).toMatchObject({
      contentType: 'application/json',
      charset: 'utf-8',
    })
  })

  it('declares UTF-8 when the text cannot be written in the recorded charset', () => {
    const { document } = importEntries(
      harEntry({ mimeType: 'text/plain; charset=windows-1251', text: 'привет' }),
    )
    expect(document.transactions[0]?.dsl.responseDsl.charset).toBe('utf-8')
    expect(decodeContent(document.transactions[0]?.dsl.responseDsl.content).toString('utf8')).toBe(
      'привет',
    )
  })

  it('decodes a base64 body and keeps a non-text type as binary bytes without a charset', () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff])
    const { document } = importEntries(
      harEntry({ mimeType: 'image/png', text: bytes.toString('base64'), encoding: 'base64' }),
    )
    const response = document.transactions[0]?.dsl.responseDsl
    expect(response?.binary).toBe(true)
    expect(response?.charset).toBeUndefined()
    expect(decodeContent(response?.content)).toEqual(bytes)
  })

  it('keeps a base64-encoded text type as text', () => {
    const { document } = importEntries(
      harEntry({
        mimeType: 'image/svg+xml',
        text: Buffer.from('<svg/>').toString('base64'),
        encoding: 'base64',
      }),
    )
    expect(document.transactions[0]?.dsl.responseDsl.binary).toBeUndefined()
    expect(decodeContent(document.transactions[0]?.dsl.responseDsl.content).toString()).toBe(
      '<svg/>',
    )
  })

  it('sniffs a base64 body without a media type: binary unless it is UTF-8', () => {
    const { document } = importEntries(
      harEntry({
        url: 'http://a/bin',
        text: Buffer.from([0xff, 0xfe, 0x00]).toString('base64'),
        encoding: 'base64',
      }),
      harEntry({
        url: 'http://a/txt',
        text: Buffer.from('plain').toString('base64'),
        encoding: 'base64',
      }),
    )
    expect(document.transactions[0]?.dsl.responseDsl.binary).toBe(true)
    expect(document.transactions[1]?.dsl.responseDsl.binary).toBeUndefined()
    expect(document.transactions[1]?.dsl.responseDsl.contentType).toBeUndefined()
  })
})

describe('importHar: entries that cannot be replayed', () => {
  it('skips failed requests (status 0), WebSocket upgrades, CONNECT tunnels, non-HTTP URLs and entries without a response, naming each', () => {
    const noResponse = harEntry({ url: 'http://a/lost' })
    delete noResponse['response']
    const { document, warnings } = importEntries(
      harEntry({ url: 'http://a/failed', status: 0 }),
      harEntry({
        url: 'https://a/socket',
        status: 101,
        requestHeaders: [{ name: 'Upgrade', value: 'websocket' }],
      }),
      harEntry({ url: 'wss://a/socket2' }),
      harEntry({ url: 'https://a/chat', extra: { _resourceType: 'websocket' } }),
      harEntry({ method: 'CONNECT', url: 'https://a:443/' }),
      harEntry({ url: 'data:image/png;base64,AAAA' }),
      noResponse,
      harEntry({ url: 'http://a/kept' }),
    )
    expect(document.transactions.map((t) => t.name)).toEqual(['GET /kept'])
    const messages = warnings.map((w) => w.message)
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^entries\[0\] \(GET http:\/\/a\/failed\): skipped: status 0/),
        expect.stringMatching(/^entries\[1\] .*skipped: it is a WebSocket connection/),
        expect.stringMatching(/^entries\[2\] .*skipped: it is a WebSocket connection/),
        expect.stringMatching(/^entries\[3\] .*skipped: it is a WebSocket connection/),
        expect.stringMatching(/^entries\[4\] .*skipped: CONNECT/),
        expect.stringMatching(/^entries\[5\] .*skipped: its URL scheme data: is not HTTP/),
        expect.stringMatching(/^entries\[6\] .*skipped: it has no response/),
      ]),
    )
    expect(warnings.find((w) => w.message.startsWith('entries[6]'))?.at).toBe('/log/entries/6')
  })

  it('warns when no entry could be turned into a transaction', () => {
    const { document, warnings } = importEntries(harEntry({ status: 0 }))
    expect(document.transactions).toEqual([])
    expect(warnings.map((w) => w.message)).toContain('no entry could be turned into a transaction')
  })
})

describe('importHar: duplicates and order', () => {
  it('keeps the first response of a repeated request and names the dropped repeats in one warning', () => {
    const { document, warnings } = importEntries(
      harEntry({ url: 'http://a/items?b=2&a=1', text: 'first', mimeType: 'text/plain' }),
      harEntry({ url: 'http://a/items?a=1&b=2', status: 304, statusText: 'Not Modified' }),
      harEntry({ url: 'http://cdn.other/items?a=1&b=2', text: 'third', mimeType: 'text/plain' }),
    )
    expect(document.transactions).toHaveLength(1)
    expect(decodeContent(document.transactions[0]?.dsl.responseDsl.content).toString()).toBe(
      'first',
    )
    const warning = warnings.find((w) => w.message.includes('recorded 3 times'))
    expect(warning?.message).toContain('the first response (entries[0], status 200) is kept')
    expect(warning?.message).toContain('entries[1] (status 304)')
    expect(warning?.message).toContain('entries[2] (status 200, host cdn.other)')
  })

  it('treats JSON bodies that differ only in key order as the same request', () => {
    const { document } = importEntries(
      harEntry({
        method: 'POST',
        url: 'http://a/q',
        postData: { mimeType: 'application/json', text: '{"a":1,"b":2}' },
      }),
      harEntry({
        method: 'POST',
        url: 'http://a/q',
        postData: { mimeType: 'application/json', text: '{ "b": 2, "a": 1 }' },
      }),
    )
    expect(document.transactions).toHaveLength(1)
  })

  it('keeps requests that differ in query or body apart, numbering their names', () => {
    const { document } = importEntries(
      harEntry({ url: 'http://a/search?q=cats' }),
      harEntry({ url: 'http://a/search?q=dogs' }),
      harEntry({
        method: 'POST',
        url: 'http://a/search',
        postData: { mimeType: 'text/plain', text: 'x' },
      }),
    )
    expect(document.transactions.map((t) => t.name)).toEqual([
      'GET /search',
      'GET /search #2',
      'POST /search',
    ])
  })

  it('lists a less specific transaction before a more specific one on the same path, so the specific one wins', () => {
    const { document } = importEntries(
      harEntry({ url: 'http://a/list?page=2', text: 'page 2', mimeType: 'text/plain' }),
      harEntry({ url: 'http://a/other' }),
      harEntry({ url: 'http://a/list', text: 'page 1', mimeType: 'text/plain' }),
    )
    // docs/decisions.md#priority-order: among equal priorities the later transaction wins, and GET /list?page=2
    // satisfies both /list transactions; the one pinning page=2 must come later.
    expect(document.transactions.map((t) => t.description)).toEqual([
      'Recorded GET http://a/list (log.entries[2])',
      'Recorded GET http://a/other (log.entries[1])',
      'Recorded GET http://a/list?page=2 (log.entries[0])',
    ])
  })
})

describe('importHar: input checks', () => {
  it('accepts a UTF-8 byte-order mark at the start of the file', () => {
    const json = Buffer.from(JSON.stringify(harDocument([harEntry()])))
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json])
    expect(importHar({ bytes: withBom, fileName: 'bom.har' }).document.transactions).toHaveLength(1)
  })

  it('decodes a UTF-16 file marked by its byte-order mark', () => {
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(JSON.stringify(harDocument([harEntry({ url: 'http://a/ü' })])), 'utf16le'),
    ])
    expect(importHar({ bytes: utf16, fileName: 'utf16.har' }).document.transactions[0]?.name).toBe(
      'GET /%C3%BC',
    )
  })

  it('rejects truncated JSON with ERR_IMPORT_INVALID naming the file, line and column', () => {
    const err = importError('{"log":\n[\n', 'cut.har')
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toMatch(
      /^Cannot import cut\.har: not valid JSON: .*\(line \d+, column \d+\)$/,
    )
    expect(err.details?.[0]).toMatchObject({ file: 'cut.har', line: expect.any(Number) as number })
  })

  it('rejects text that is not a JSON object', () => {
    const err = importError('log: yaml is not HAR', 'x.har')
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toContain('expected a JSON object with a "log" member')
  })

  it('rejects JSON that is not a HAR, with the failing JSON pointer and its line', () => {
    const err = importError(
      JSON.stringify({ log: { version: '1.2', creator: { name: 'x', version: '1' } } }, null, 2),
    )
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toContain('not a valid HAR 1.2 file: /log must have property "entries"')
    expect(err.details).toEqual([
      {
        path: '/log',
        message: 'must have property "entries"',
        file: 'bad.har',
        line: 2,
        column: 10,
      },
    ])
  })

  it('rejects an entry whose request URL or response status has the wrong type, naming the entry', () => {
    const broken = harEntry()
    ;(broken['request'] as Record<string, unknown>)['url'] = 42
    const err = importError(JSON.stringify(harDocument([harEntry(), broken]), null, 2))
    expect(err.details?.map((d) => d.path)).toEqual(['/log/entries/1/request/url'])
    expect(err.details?.[0]?.message).toBe('must be string')
  })

  it('imports a capture that breaks the schema only where it does not matter, with one warning counting the deviations', () => {
    const entry = harEntry({ headers: [{ name: 'X-Multi', value: ['a', 'b'] }] })
    entry['serverIPAddress'] = '[::1]'
    const { document, warnings } = importEntries(entry)
    expect(document.transactions[0]?.dsl.responseDsl.headers).toEqual([
      { name: 'X-Multi', value: 'a' },
      { name: 'X-Multi', value: 'b' },
    ])
    expect(warnings[0]?.message).toMatch(
      /^\d+ value\(s\) do not follow the HAR 1\.2 schema .*first: \/log\/entries\/0\//,
    )
  })

  it('rejects a file larger than ctx.maxBytes with ERR_IMPORT_TOO_LARGE', () => {
    const input = harInput(harDocument([harEntry()]))
    expect(() => importHar(input, { maxBytes: 10 })).toThrow(
      expect.objectContaining({ code: 'ERR_IMPORT_TOO_LARGE' }),
    )
  })
})

describe('importers/shared helpers used by the HAR importer', () => {
  it('finishImport turns a transaction that the DSL rejects into ERR_IMPORT_INVALID naming the input', () => {
    const run = () =>
      finishImport({
        format: 'har',
        dslType: 'HAR_DSL',
        fileName: 'x.har',
        warnings: [],
        transactions: [{ dsl: { requestDsl: { method: 'M-SEARCH' } } }],
      })
    expect(run).toThrow(
      expect.objectContaining({
        code: 'ERR_IMPORT_INVALID',
        message: 'Cannot import x.har: the har input produced an invalid transaction',
      }),
    )
  })

  it('guardImport turns an unexpected TypeError into ERR_IMPORT_INVALID and keeps the cause', () => {
    const cause = new TypeError('x is undefined')
    let error: UnderstudyError | undefined
    try {
      guardImport('y.har', () => {
        throw cause
      })
    } catch (err) {
      error = err as UnderstudyError
    }
    expect(error?.code).toBe('ERR_IMPORT_INVALID')
    expect(error?.message).toBe('Cannot import y.har: unexpected structure (x is undefined)')
    expect(error?.cause).toBe(cause)
  })
})
