import { expect, it } from 'vitest'
import { request } from 'undici'
import { importHar } from '../../../importers/har/index.js'
import { describeRealworld, readRealworld, realworldFiles } from '../../helpers/realworld.js'
import { startServer } from '../../helpers/server.js'

/** Files the importer rejects on purpose (SOURCES.md marks them INVALID). */
const invalid = new Set(['mitmproxy-brokenfile.har', 'harviewer-not-valid.har'])

interface Entry {
  request: {
    method: string
    url: string
    postData?: { text?: string; mimeType?: string }
    headers: Array<{ name: string; value: string }>
  }
  response: { status: number; content: { text?: string; encoding?: string } }
}

function entriesOf(name: string): Entry[] {
  return (
    JSON.parse(
      readRealworld('har', name)
        .toString('utf8')
        .replace(/^\uFEFF/, ''),
    ) as { log: { entries: Entry[] } }
  ).log.entries
}

/** The recorded body as bytes (base64 when the HAR says so). */
function recordedBody(entry: Entry): Buffer {
  const { text, encoding } = entry.response.content
  if (text === undefined) return Buffer.alloc(0)
  return encoding === 'base64' ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8')
}

/** Statuses and methods whose answers carry no body, whatever the recording says. */
const bodiless = (status: number, method: string): boolean =>
  method === 'HEAD' || status === 204 || status === 304 || status < 200

describeRealworld('serving an imported HAR and replaying its entries', () => {
  it.each(realworldFiles('har').filter((f) => !invalid.has(f)))(
    'answers every entry of %s with the recorded status and body',
    async (name) => {
      const result = importHar({ bytes: readRealworld('har', name), fileName: name })
      const skipped = new Set(
        result.warnings.filter((w) => /: skipped: /.test(w.message)).map((w) => w.at),
      )
      const app = await startServer({
        document: result.document,
        options: { inspection: { enabled: false } },
      })
      // The importer keeps the first of identical requests: a replay gets the first one's answer.
      const first = new Map<string, Entry>()
      let replayed = 0
      const entries = entriesOf(name)
      for (let i = 0; i < entries.length; i++) {
        const entry = entries[i] as Entry
        if (skipped.has(`/log/entries/${i}`)) continue
        const url = new URL(entry.request.url)
        const body = entry.request.postData?.text
        const key = `${entry.request.method} ${url.pathname}${url.search} ${body ?? ''}`
        const expected = first.get(key) ?? entry
        first.set(key, expected)
        const contentType =
          entry.request.postData?.mimeType ??
          entry.request.headers.find((h) => h.name.toLowerCase() === 'content-type')?.value
        const res = await request(`${app.url}${url.pathname}${url.search}`, {
          method: entry.request.method as 'GET',
          headers:
            contentType === undefined || body === undefined || body === ''
              ? {}
              : { 'content-type': contentType },
          body: body === undefined || body === '' ? null : body,
        })
        const served = Buffer.from(await res.body.arrayBuffer())
        const label = `entries[${i}] ${entry.request.method} ${entry.request.url}`
        expect(res.statusCode, label).toBe(expected.response.status)
        const want = bodiless(expected.response.status, entry.request.method)
          ? Buffer.alloc(0)
          : recordedBody(expected)
        expect(
          served.equals(want),
          `${label}: body differs (${served.length} bytes served, ${want.length} recorded)`,
        ).toBe(true)
        replayed++
      }
      // every entry the importer kept was replayed (a capture of WebSocket traffic alone has none)
      expect(replayed).toBe(entries.length - skipped.size)
      if (result.document.transactions.length > 0) expect(replayed).toBeGreaterThan(0)
    },
  )
})
