import { readFileSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { seededRandom } from '../../helpers/seeded-random.js'

/*
 * 10,000 malformed requests on raw sockets against a real `understudy serve` whose
 * transactions use every kind of body matcher. The process must not crash, answer no 5xx other
 * than the designed 502/503, never hang, stay within bounded memory, and answer a normal request
 * afterwards. Deterministic (seeded), bounded in time.
 */

const TOTAL = Number(process.env['FUZZ_TOTAL'] ?? 10_000)
const CONCURRENCY = Number(process.env['FUZZ_CONCURRENCY'] ?? 64)
const CASE_TIMEOUT_MS = 8_000

const definition = [
  { dsl: { requestDsl: { method: 'GET', path: '/ok' }, responseDsl: { text: 'ok' } } },
  {
    dsl: {
      requestDsl: {
        method: 'POST',
        path: '/json',
        body: [{ key: '$.order.id', matcherName: 'equals', matchingValue: '7' }],
      },
      responseDsl: { text: 'json' },
    },
  },
  {
    dsl: {
      requestDsl: {
        method: 'POST',
        path: '/json',
        body: [{ key: '$..id', matcherName: 'matches', matchingValue: '[0-9]+' }],
      },
      responseDsl: { text: 'wild' },
    },
  },
  {
    dsl: {
      requestDsl: {
        method: 'POST',
        path: '/json',
        body: [{ matcherName: 'matches_json', matchingValue: '$[?(@.a > 1)]' }],
      },
      responseDsl: { text: 'filter' },
    },
  },

  {
    dsl: {
      requestDsl: {
        method: 'POST',
        path: '/json',
        body: [
          {
            matcherName: 'equals_json',
            // eslint-disable-next-line no-template-curly-in-string -- a json-unit placeholder
            matchingValue: '{"a":[1,2,{"b":"${json-unit.any-string}"}]}',
          },
        ],
      },
      responseDsl: { text: 'eq' },
    },
  },
  {
    dsl: {
      requestDsl: {
        method: 'POST',
        path: '/xml',
        body: [{ key: '/order/id', matcherName: 'equals', matchingValue: '7' }],
      },
      responseDsl: { text: 'xml' },
    },
  },
  {
    dsl: {
      requestDsl: {
        method: 'POST',
        path: '/xml',
        body: [{ matcherName: 'matches_xml', matchingValue: '//item[@kind="x"]' }],
      },
      responseDsl: { text: 'mx' },
    },
  },
  {
    dsl: {
      requestDsl: {
        method: 'POST',
        path: '/xml',
        body: [{ matcherName: 'equals_xml', matchingValue: '<a><b>1</b></a>' }],
      },
      responseDsl: { text: 'ex' },
    },
  },
  {
    dsl: {
      requestDsl: {
        method: 'POST',
        path: '/form',
        body: [{ key: 'name', matcherName: 'contains', matchingValue: 'x' }],
      },
      responseDsl: { text: 'form' },
    },
  },
  {
    dsl: {
      requestDsl: {
        method: 'POST',
        path: '/text',
        body: [{ matcherName: 'matches', matchingValue: '^(\\w+\\s?)*$' }],
      },
      responseDsl: { text: 'text' },
    },
  },
  {
    dsl: {
      requestDsl: {
        method: 'ANY',
        path: '/any/{id}',
        headers: [{ key: 'x-k', matcherName: 'matches', matchingValue: '[a-z]+' }],
        queryParams: [{ key: 'q', matcherName: 'equals', matchingValue: '1' }],
        cookies: [{ key: 'c', matcherName: 'equals', matchingValue: 'v' }],
      },
      responseDsl: { json: { ok: true } },
    },
  },
]

const deepJson = '['.repeat(100_000) + ']'.repeat(100_000)
const deepXml = '<a>'.repeat(20_000) + '</a>'.repeat(20_000)
const laughs =
  '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">]><order><id>&e;</id></order>'
const external =
  '<?xml version="1.0"?><!DOCTYPE o [<!ENTITY x SYSTEM "file:///etc/passwd">]><order><id>&x;</id></order>'
const hugeForm = Array.from({ length: 50_000 }, (_, i) => `f${i}=${'x'.repeat(10)}`).join('&')
const words = 'word '.repeat(200_000) + '!'

function request(
  method: string,
  path: string,
  headers: string[],
  body: string | Buffer = '',
): Buffer {
  const head = `${method} ${path} HTTP/1.1\r\nHost: fuzz\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`
  return Buffer.concat([
    Buffer.from(head, 'latin1'),
    typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
  ])
}

function withBody(method: string, path: string, type: string, body: string): Buffer {
  return request(
    method,
    path,
    [`Content-Type: ${type}`, `Content-Length: ${Buffer.byteLength(body)}`],
    body,
  )
}

/** The malformed (and some well-formed) requests: each a function of the generator. */
const makers: Array<(r: () => number) => Buffer> = [
  // bad request lines
  (r) =>
    Buffer.from(Array.from({ length: 1 + Math.floor(r() * 200) }, () => Math.floor(r() * 256))),
  () => Buffer.from('GET\r\n\r\n'),
  () => Buffer.from('GET / HTTP/9.9\r\nHost: x\r\n\r\n'),
  () => Buffer.from('GET /\x00\x01 HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1'),
  () => Buffer.from(`GET /${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
  () => Buffer.from('\r\n\r\nGET /ok HTTP/1.1\r\n\r\n'),
  () => Buffer.from('BREW /ok HTTP/1.1\r\nHost: x\r\n\r\n'),
  () => Buffer.from('GET http://[::1 HTTP/1.1\r\nHost: x\r\n\r\n'),
  () =>
    Buffer.from(
      'GET /any/%ZZ%00%FF?q=%E0%A4%A&q=1 HTTP/1.1\r\nHost: x\r\nx-k: ab\r\nCookie: c=%ZZ; c="v"; =; c\r\n\r\n',
    ),
  // header bytes
  (r) => request('GET', '/ok', [`X-Bad: ${String.fromCharCode(Math.floor(r() * 32))}value`]),
  () => request('GET', '/ok', ['No colon here']),
  () => request('GET', '/ok', ['Bad Name: x']),
  () => request('GET', '/ok', ['X-Fold: a', ' folded']),
  () => request('GET', '/ok', ['X-Utf8: \u00e9\u00ff']),
  () =>
    request('GET', '/any/1?q=1', ['x-k: abc', 'Authorization: Basic !!!notbase64', 'Cookie: c=v']),
  // duplicate and oversized headers
  () => request('POST', '/json', ['Content-Length: 3', 'Content-Length: 5'], 'abcde'),
  () =>
    request(
      'POST',
      '/json',
      ['Content-Length: 5', 'Transfer-Encoding: chunked'],
      '5\r\nabcde\r\n0\r\n\r\n',
    ),
  () => request('GET', '/ok', ['Host: a', 'Host: b']),
  () => request('GET', '/ok', [`X-Big: ${'b'.repeat(200_000)}`]),
  () =>
    request(
      'GET',
      '/ok',
      Array.from({ length: 5000 }, (_, i) => `X-H${i}: v`),
    ),
  () =>
    request(
      'GET',
      '/any/1?q=1',
      Array.from({ length: 300 }, () => 'x-k: abc'),
    ),
  // bad chunking
  () => request('POST', '/json', ['Transfer-Encoding: chunked'], 'zz\r\nabc\r\n0\r\n\r\n'),
  () => request('POST', '/json', ['Transfer-Encoding: chunked'], '3\r\nabcdef\r\n0\r\n\r\n'),
  () => request('POST', '/json', ['Transfer-Encoding: chunked'], 'ffffffffffffffffff\r\nabc\r\n'),
  () => request('POST', '/json', ['Transfer-Encoding: chunked'], '3\r\nabc'),
  () => request('POST', '/json', ['Transfer-Encoding: gzip, chunked'], '3\r\nabc\r\n0\r\n\r\n'),
  () => request('POST', '/json', ['Content-Encoding: gzip', 'Content-Length: 4'], 'abcd'),
  // Content-Length mismatch
  () => request('POST', '/json', ['Content-Length: 100'], '{"a":1}'),
  () => request('POST', '/json', ['Content-Length: 2'], '{"order":{"id":7}}'),
  () => request('POST', '/json', ['Content-Length: -1'], 'x'),
  () => request('POST', '/json', ['Content-Length: 99999999999999999999'], 'x'),
  () => request('POST', '/json', ['Content-Length: 20000000'], 'x'),
  // invalid and hostile JSON
  (r) =>
    withBody(
      'POST',
      '/json',
      'application/json',
      '{"order":{"id":' + '['.repeat(Math.floor(r() * 50)) + 'x',
    ),
  () => withBody('POST', '/json', 'application/json', deepJson),
  () => withBody('POST', '/json', 'application/json', '{"order":' + deepJson + '}'),
  () => withBody('POST', '/json', 'application/json', 'null'),
  () =>
    withBody('POST', '/json', 'application/json', '{"order":{"id":7},"order":{"id":"\\ud800"}}'),
  () => withBody('POST', '/json', 'application/json', '{"a":' + '1'.repeat(5000) + '}'),
  () =>
    request(
      'POST',
      '/json',
      ['Content-Type: application/json', 'Content-Length: 6'],
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    ),
  // invalid and hostile XML
  () => withBody('POST', '/xml', 'application/xml', '<order><id>7</order>'),
  () => withBody('POST', '/xml', 'application/xml', deepXml),
  () => withBody('POST', '/xml', 'application/xml', laughs),
  () => withBody('POST', '/xml', 'application/xml', external),
  () =>
    withBody(
      'POST',
      '/xml',
      'text/xml',
      '<a xmlns:x="urn:x"><x:b x:c="1"/><![CDATA[ ]]]]><!-- --></a>',
    ),
  // forms
  () => withBody('POST', '/form', 'application/x-www-form-urlencoded', hugeForm),
  () => withBody('POST', '/form', 'application/x-www-form-urlencoded', 'name=%ZZ&&=&name'),
  () =>
    withBody(
      'POST',
      '/form',
      'multipart/form-data; boundary=zz',
      '--zz\r\nContent-Disposition: form-data; name="name"\r\n\r\nx',
    ),
  () => withBody('POST', '/form', 'multipart/form-data', '--\r\n\r\n'),
  () =>
    withBody(
      'POST',
      '/form',
      'multipart/form-data; boundary=b',
      `--b\r\nContent-Disposition: form-data; name="name"; filename="f"\r\n\r\n${'y'.repeat(100_000)}\r\n--b--\r\n`,
    ),
  // a long value against a regex
  () => withBody('POST', '/text', 'text/plain', words),
  // well-formed, so that the mix also exercises the normal paths
  () => withBody('POST', '/json', 'application/json', '{"order":{"id":7}}'),
  () => request('GET', '/ok', []),
]

interface Outcome {
  statuses: number[]
  hung: boolean
}

async function send(port: number, payload: Buffer): Promise<Outcome> {
  return await new Promise<Outcome>((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    let text = ''
    let done = false
    const finish = (hung: boolean): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      const statuses = [...text.matchAll(/HTTP\/1\.[01] (\d{3}) /g)].map((m) => Number(m[1]))
      resolve({ statuses, hung })
    }
    const timer = setTimeout(() => finish(true), CASE_TIMEOUT_MS)
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1')
    })
    socket.on('error', () => finish(false))
    socket.on('close', () => finish(false))
    socket.on('connect', () => {
      // Write, then half-close: the server sees the end of what this client will ever send.
      socket.end(payload)
    })
  })
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024
}

describe('fuzz of malformed HTTP on raw sockets', () => {
  it(
    `survives ${TOTAL} malformed requests with no 5xx but 502/503, no hang, bounded memory`,
    { timeout: 170_000 },
    async () => {
      const dir = tempDir()
      const file = join(dir, 'fuzz.json')
      writeFileSync(file, JSON.stringify(definition))
      const server = await startCli([
        'serve',
        file,
        '--port',
        '0',
        '--log-level',
        'silent',
        '--body-timeout',
        '2000',
      ])
      const port = Number(new URL(server.url).port)
      const pid = server.child.pid as number
      const next = seededRandom(8)
      const statusCounts = new Map<number, number>()
      const bad: string[] = []
      let hung = 0
      let sent = 0
      let peakRss = rssOf(pid)
      const worker = async (): Promise<void> => {
        while (sent < TOTAL) {
          const index = sent++
          const maker = makers[index % makers.length] as (r: () => number) => Buffer
          let payload = maker(next)
          // Large payloads (deep JSON/XML, huge forms and headers) go out every tenth round only, so
          // that the run stays within its time bound on a small machine; the rest get random bytes.
          if (payload.length > 50_000 && Math.floor(index / makers.length) % 10 !== 0) {
            payload = (makers[0] as (r: () => number) => Buffer)(next)
          }
          const outcome = await send(port, payload)
          if (outcome.hung) {
            hung++
            bad.push(`case ${index % makers.length} hung`)
          }
          for (const status of outcome.statuses) {
            statusCounts.set(status, (statusCounts.get(status) ?? 0) + 1)
            if (status >= 500 && status !== 502 && status !== 503) {
              bad.push(`case ${index % makers.length} answered ${status}`)
            }
          }
          if (index % 500 === 0) peakRss = Math.max(peakRss, rssOf(pid))
        }
      }
      await Promise.all(Array.from({ length: CONCURRENCY }, worker))
      peakRss = Math.max(peakRss, rssOf(pid))

      expect(server.child.exitCode).toBeNull()
      expect(bad.slice(0, 20)).toEqual([])
      expect(hung).toBe(0)
      // Every 404 (unmatched) and 4xx is fine; some well-formed cases must have matched.
      expect(statusCounts.get(200) ?? 0).toBeGreaterThan(0)
      expect(statusCounts.get(400) ?? 0).toBeGreaterThan(0)
      expect(peakRss).toBeLessThan(768 * 1024 * 1024)
      const res = await fetch(`${server.url}/ok`)
      expect(res.status).toBe(200)
      expect(await res.text()).toBe('ok')
      const stopped = await server.stop()
      expect(stopped.code).toBe(0)
    },
  )
})
