import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../helpers/cli.js'
import { describeRealworld, readRealworld, realworldFiles } from '../helpers/realworld.js'
import { tempDir } from '../helpers/temp-dir.js'

/*
 * newman runs a collection's requests against the mock and its test scripts call
 * `pm.response.json()`. A request saved without an example was served as 200 with an empty body,
 * so that call threw. It answers JSON now (its own JSON request body, else `{}`), with a JSON
 * content type; and every request of a real collection is answered by the mock.
 */

interface Sent {
  method: string
  path: string
  body: string | undefined
  hasExample: boolean
  name: string
}

type Loose = Record<string, unknown>
const isObject = (v: unknown): v is Loose =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** The requests of a collection as newman sends them: variables filled from the collection, an unknown one as a sample value. */
function requestsOf(collection: Loose): Sent[] {
  const vars = new Map<string, string>()
  for (const v of [
    ...(Array.isArray(collection['variable']) ? collection['variable'] : []),
    ...(Array.isArray(collection['variables']) ? collection['variables'] : []),
  ]) {
    if (isObject(v) && typeof v['key'] === 'string') vars.set(v['key'], String(v['value'] ?? ''))
  }
  const fill = (text: string): string => {
    let out = text
    for (let i = 0; i < 5; i++) {
      out = out.replace(
        /\{\{([^{}]+)\}\}/g,
        (_, name: string) => vars.get(name) ?? `sample-${name}`,
      )
    }
    return out
  }
  const out: Sent[] = []
  const walk = (items: unknown[], prefix: string): void => {
    for (const item of items) {
      if (!isObject(item)) continue
      const name = `${prefix}${String(item['name'] ?? '')}`
      if (Array.isArray(item['item'])) {
        walk(item['item'], `${name} / `)
        continue
      }
      const request =
        typeof item['request'] === 'string' ? { url: item['request'] } : item['request']
      if (!isObject(request)) continue
      const url = request['url']
      const raw =
        typeof url === 'string'
          ? url
          : isObject(url) && typeof url['raw'] === 'string'
            ? url['raw']
            : undefined
      if (raw === undefined) continue
      // an unknown variable that starts the URL stands for the host (newman's environment gives it)
      const filled = fill(
        raw.replace(/^\{\{([^{}]+)\}\}/, (whole, name: string) =>
          vars.has(name) ? whole : 'http://sample-host',
        ),
      )
      const parsed = new URL(
        /^[a-z][a-z0-9+.-]*:\/\//i.test(filled)
          ? filled
          : `http://localhost/${filled.replace(/^\/+/, '')}`,
      )
      const body =
        isObject(request['body']) &&
        request['body']['mode'] === 'raw' &&
        typeof request['body']['raw'] === 'string'
          ? fill(request['body']['raw'])
          : undefined
      const method = String(request['method'] ?? 'GET').toUpperCase()
      out.push({
        method,
        path: parsed.pathname + parsed.search,
        body: method === 'GET' || method === 'HEAD' ? undefined : body,
        hasExample: Array.isArray(item['response']) && item['response'].length > 0,
        name,
      })
    }
  }
  walk(Array.isArray(collection['item']) ? collection['item'] : [], '')
  return out
}

describe('postman: a request without a saved example answers JSON', () => {
  it(
    "serves {} (or the request's own JSON body) as application/json, so pm.response.json() works",
    { timeout: 30_000 },
    async () => {
      const dir = tempDir()
      const file = join(dir, 'orders.postman_collection.json')
      writeFileSync(
        file,
        JSON.stringify({
          info: {
            name: 'orders',
            schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
          },
          item: [
            {
              name: 'list orders',
              request: {
                method: 'GET',
                url: {
                  raw: '{{base}}/orders?page=1',
                  host: ['{{base}}'],
                  path: ['orders'],
                  query: [{ key: 'page', value: '1' }],
                },
              },
              event: [{ listen: 'test', script: { exec: ['pm.response.json()'] } }],
            },
            {
              name: 'create order',
              request: {
                method: 'POST',
                url: '{{base}}/orders',
                body: {
                  mode: 'raw',
                  raw: '{"item":"book","qty":2}',
                  options: { raw: { language: 'json' } },
                },
              },
            },
          ],
          variable: [{ key: 'base', value: 'https://shop.test/api' }],
        }),
      )
      const server = await startCli(['serve', file, '--port', '0'])
      const list = await fetch(`${server.url}/api/orders?page=1`)
      expect(list.status).toBe(200)
      expect(list.headers.get('content-type')).toMatch(/^application\/json/)
      expect(JSON.parse(await list.text())).toEqual({})
      const created = await fetch(`${server.url}/api/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"item":"pen","qty":1}',
      })
      expect(created.headers.get('content-type')).toMatch(/^application\/json/)
      expect(JSON.parse(await created.text())).toEqual({ item: 'book', qty: 2 })
    },
  )
})

describeRealworld('postman: every request of a real collection is answered by its mock', () => {
  const files = realworldFiles('postman').filter((f) => f !== 'newman-v1.postman_collection.json')

  it.each(files)(
    'answers each request of %s, with JSON where the collection saved no example',
    { timeout: 60_000 },
    async (name) => {
      const bytes = readRealworld('postman', name)
      const dir = tempDir()
      const file = join(dir, name.endsWith('.json') ? name : `${name}.json`)
      writeFileSync(file, bytes)
      const collection = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, '')) as Loose
      const server = await startCli(['serve', file, '--port', '0'])
      const unanswered: string[] = []
      for (const sent of requestsOf(collection)) {
        const init: RequestInit = { method: sent.method }
        if (sent.body !== undefined) init.body = sent.body
        const res = await fetch(server.url + sent.path, init)
        const text = await res.text()
        // the runtime's own no-match answer names its code; a saved 404 example does not
        if (text.includes('ERR_NO_MATCH')) {
          unanswered.push(`${sent.name}: ${sent.method} ${sent.path}`)
        }
        if (!sent.hasExample && sent.method !== 'HEAD') {
          expect(res.headers.get('content-type'), sent.name).toMatch(/^application\/json/)
          expect(() => JSON.parse(text) as unknown, sent.name).not.toThrow()
        }
      }
      expect(unanswered).toEqual([])
    },
  )
})
