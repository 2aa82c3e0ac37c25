import { expect, it } from 'vitest'
import { decodeContent } from '../../../src/dsl/index.js'
import { isUnderstudyError } from '../../../src/errors/index.js'
import { importHar } from '../../../importers/har/index.js'
import { describeRealworld, readRealworld, realworldFiles } from '../../helpers/realworld.js'

/** Files marked INVALID in SOURCES.md, with the error each must be rejected with. */
const invalid: Record<string, RegExp> = {
  'mitmproxy-brokenfile.har':
    /^Cannot import mitmproxy-brokenfile\.har: not valid JSON: .* \(line 5, column 1\)$/,
  'harviewer-not-valid.har':
    /^Cannot import harviewer-not-valid\.har: not a valid HAR 1\.2 file: \/log must have property "entries" \(line 2, column \d+\)$/,
}

const files = realworldFiles('har')

function load(name: string) {
  return importHar({ bytes: readRealworld('har', name), fileName: name })
}

/** The recorded entries, read independently of the importer. */
function entriesOf(name: string): Array<{
  request: { url: string }
  response: { content: { text?: string; encoding?: string; mimeType: string } }
}> {
  const text = readRealworld('har', name)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
  return (JSON.parse(text) as { log: { entries: [] } }).log.entries
}

describeRealworld('importHar on real-world captures', () => {
  it('finds the real-world HAR files', () => {
    expect(files.length).toBeGreaterThanOrEqual(20)
  })

  it.each(files.filter((f) => !(f in invalid)))('imports %s without error', (name) => {
    const result = load(name)
    expect(result.format).toBe('har')
    for (const txn of result.document.transactions) {
      expect(txn.dsl.requestDsl.url?.matcherName).toBe('equals_url')
      expect(txn.dsl.responseDsl.status).toBeGreaterThanOrEqual(100)
    }
  })

  it.each(Object.entries(invalid))(
    'rejects %s with ERR_IMPORT_INVALID and a clear message',
    (name, message) => {
      let error: unknown
      try {
        load(name)
      } catch (err) {
        error = err
      }
      expect(isUnderstudyError(error, 'ERR_IMPORT_INVALID')).toBe(true)
      expect((error as Error).message).toMatch(message)
    },
  )

  it('turns 160 entries of harviewer-two-megs.har into 58 distinct requests, warning about the repeats', () => {
    const result = load('harviewer-two-megs.har')
    expect(result.document.transactions).toHaveLength(58)
    expect(
      result.warnings.filter((w) => /recorded \d+ times/.test(w.message)).length,
    ).toBeGreaterThan(0)
  })

  it('turns the 270 entries of pagexray-304.har into 129 transactions', () => {
    expect(load('pagexray-304.har').document.transactions).toHaveLength(129)
  })

  it('imports the two largest captures without stalling (their speed: bench/upload.ts)', () => {
    for (const name of ['pagexray-304.har', 'harviewer-two-megs.har']) {
      const started = performance.now()
      load(name)
      // a bound on hanging, far above the usual time, not a speed figure (the test machine is shared)
      expect(performance.now() - started).toBeLessThan(15_000)
    }
  })

  it('skips the failed request (status 0) of the Chrome capture with a warning naming it', () => {
    const result = load('mitmproxy-chrome.har')
    expect(result.document.transactions).toHaveLength(2)
    expect(result.warnings.map((w) => w.message)).toContainEqual(
      expect.stringMatching(
        /^entries\[1\] \(GET https:\/\/www\.google\.com\/\): skipped: status 0/,
      ),
    )
  })

  it('skips every entry of the WebSocket capture', () => {
    const result = load('mitmproxy-websocket.har')
    expect(result.document.transactions).toEqual([])
    expect(result.warnings.filter((w) => w.message.includes('WebSocket'))).toHaveLength(3)
  })

  it('decodes the base64 SVG body to exactly the recorded bytes, as text', () => {
    const recorded = entriesOf('harviewer-svg-base64.har')[0]?.response.content
    const txn = load('harviewer-svg-base64.har').document.transactions[0]
    expect(recorded?.encoding).toBe('base64')
    expect(decodeContent(txn?.dsl.responseDsl.content)).toEqual(
      Buffer.from(recorded?.text ?? '', 'base64'),
    )
    expect(txn?.dsl.responseDsl.contentType).toBe('image/svg+xml')
    expect(txn?.dsl.responseDsl.binary).toBeUndefined()
  })

  it('keeps the base64 fonts and images of the Safari capture as binary bytes', () => {
    const binaries = entriesOf('mitmproxy-safari.har').filter(
      (e) =>
        e.response.content.encoding === 'base64' &&
        /^(font|image\/png)/.test(e.response.content.mimeType),
    )
    expect(binaries.length).toBeGreaterThan(0)
    const byUrl = new Map(
      load('mitmproxy-safari.har').document.transactions.map((t) => [t.description, t]),
    )
    for (const entry of binaries) {
      const txn = [...byUrl.entries()].find(([description]) =>
        description?.includes(entry.request.url),
      )?.[1]
      expect(txn?.dsl.responseDsl.binary).toBe(true)
      // Buffer.equals: a deep toEqual over 100 KB fonts is needlessly slow.
      expect(
        decodeContent(txn?.dsl.responseDsl.content).equals(
          Buffer.from(entry.response.content.text ?? '', 'base64'),
        ),
      ).toBe(true)
    }
  })

  it('accepts the UTF-8 byte-order marks of mitmproxy-with-bom.har and the Fiddler export', () => {
    expect(readRealworld('har', 'mitmproxy-with-bom.har').subarray(0, 3)).toEqual(
      Buffer.from([0xef, 0xbb, 0xbf]),
    )
    expect(load('mitmproxy-with-bom.har').document.transactions).toHaveLength(1)
    expect(load('harviewer-ie11-fiddler.har').document.transactions).toHaveLength(7)
  })

  it('matches the JSON body of the PATCH in microcks-api-pastries.har with equals_json', () => {
    const patch = load('microcks-api-pastries.har').document.transactions.find(
      (t) => t.dsl.requestDsl.method === 'PATCH',
    )
    expect(patch?.dsl.requestDsl.body).toEqual([
      { matcherName: 'equals_json', matchingValue: '{"price":2.6}' },
    ])
  })

  it('reads the array-valued headers of the Polly.JS recording', () => {
    const headers =
      load('pollyjs-node-fetch-post.har').document.transactions[0]?.dsl.responseDsl.headers ?? []
    expect(headers.filter((h) => h.name.toLowerCase() === 'set-cookie')).toHaveLength(1)
    expect(
      headers.some((h) => /^(transfer-encoding|connection|content-type|date)$/i.test(h.name)),
    ).toBe(false)
  })
})
