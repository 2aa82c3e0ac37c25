// A realistic HAR of N entries for the import and upload benchmarks: varied paths of
// several resources with ids, query strings, JSON and form request bodies, request and
// response headers, JSON, HTML and binary answers, some repeated requests. Deterministic.
//
//   npx tsx bench/har-generate.ts --entries 100000 [--out DIR]   # prints the file's path
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'

/** A small deterministic PRNG (mulberry32), so that runs compare the same file. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const resources = [
  'users',
  'orders',
  'products',
  'carts',
  'invoices',
  'sessions',
  'reviews',
  'shipments',
  'payments',
  'stores',
]
const hosts = ['api.shop.example.com', 'cdn.shop.example.com', 'auth.shop.example.com']
const sorts = ['name', '-created', 'price', '-updated']

/**
 * One HAR 1.2 document of `count` entries, as JSON text. About 10 % of the entries repeat an
 * earlier request (as a capture of a real session does), so duplicates are reported too.
 *
 * @example
 * const har = generateHar(1000) // ~630 KB
 */
export function generateHar(count: number, seed = 8): string {
  const random = prng(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T
  const parts: string[] = []
  const requests: Array<{
    method: string
    url: string
    body?: { mimeType: string; text: string }
  }> = []
  for (let i = 0; i < count; i++) {
    let request: { method: string; url: string; body?: { mimeType: string; text: string } }
    const earlier =
      requests.length > 0 && random() < 0.1
        ? requests[Math.floor(random() * requests.length)]
        : undefined
    if (earlier !== undefined) {
      request = earlier
    } else {
      const resource = pick(resources)
      const id = Math.floor(random() * 1_000_000)
      const kind = random()
      const host = pick(hosts)
      if (kind < 0.45) {
        request = { method: 'GET', url: `https://${host}/v2/${resource}/${id}` }
      } else if (kind < 0.7) {
        request = {
          method: 'GET',
          url: `https://${host}/v2/${resource}?page=${i % 50}&size=${pick([10, 20, 50])}&sort=${pick(sorts)}&q=term${id % 997}`,
        }
      } else if (kind < 0.9) {
        const body = JSON.stringify({
          [`${resource.slice(0, -1)}Id`]: id,
          quantity: 1 + (id % 5),
          note: `entry ${i}`,
          flags: { gift: id % 2 === 0 },
        })
        request = {
          method: pick(['POST', 'PUT', 'PATCH']),
          url: `https://${host}/v2/${resource}/${id}/items`,
          body: { mimeType: 'application/json', text: body },
        }
      } else if (kind < 0.95) {
        request = {
          method: 'POST',
          url: `https://${host}/v2/${resource}/search`,
          body: {
            mimeType: 'application/x-www-form-urlencoded',
            text: `q=term${id}&lang=en&page=${i % 7}`,
          },
        }
      } else {
        request = { method: 'DELETE', url: `https://${host}/v2/${resource}/${id}` }
      }
      requests.push(request)
    }
    parts.push(JSON.stringify(entryOf(i, request, random)))
  }
  return `{"log":{"version":"1.2","creator":{"name":"understudy-bench","version":"1"},"pages":[],"entries":[${parts.join(',')}]}}`
}

function entryOf(
  i: number,
  request: { method: string; url: string; body?: { mimeType: string; text: string } },
  random: () => number,
): unknown {
  const when = new Date(Date.UTC(2025, 0, 1) + i * 250).toISOString()
  const kind = random()
  const status = request.method === 'DELETE' ? 204 : kind < 0.9 ? 200 : kind < 0.95 ? 404 : 500
  const json =
    status === 204
      ? ''
      : JSON.stringify({
          id: i,
          ok: status === 200,
          items: [{ sku: `S${i % 9973}`, price: (i % 1000) / 10 }],
        })
  const query = new URL(request.url).searchParams
  return {
    startedDateTime: when,
    time: 12 + (i % 40),
    request: {
      method: request.method,
      url: request.url,
      httpVersion: 'HTTP/1.1',
      headers: [
        { name: 'Accept', value: 'application/json' },
        { name: 'Authorization', value: `Bearer tok${(i * 7919) % 100000}` },
        ...(request.body === undefined
          ? []
          : [{ name: 'Content-Type', value: request.body.mimeType }]),
      ],
      queryString: [...query].map(([name, value]) => ({ name, value })),
      cookies: [],
      headersSize: -1,
      bodySize: request.body?.text.length ?? 0,
      ...(request.body === undefined ? {} : { postData: request.body }),
    },
    response: {
      status,
      statusText:
        status === 200
          ? 'OK'
          : status === 204
            ? 'No Content'
            : status === 404
              ? 'Not Found'
              : 'Internal Server Error',
      httpVersion: 'HTTP/1.1',
      headers: [
        { name: 'Content-Type', value: 'application/json; charset=utf-8' },
        { name: 'X-Request-Id', value: `req-${i}` },
      ],
      cookies: [],
      content: { size: json.length, mimeType: 'application/json; charset=utf-8', text: json },
      redirectURL: '',
      headersSize: -1,
      bodySize: json.length,
    },
    cache: {},
    timings: { send: 0, wait: 10, receive: 2 },
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: { entries: { type: 'string', default: '100000' }, out: { type: 'string' } },
  })
  const dir = values.out ?? mkdtempSync(join(tmpdir(), 'understudy-har-'))
  const count = Number(values.entries)
  const file = join(dir, `bench-${count}.har`)
  writeFileSync(file, generateHar(count))
  console.log(file)
}
