import { describe, expect, it } from 'vitest'
import { startServer } from '../../helpers/server.js'

/**
 * Any request, whatever its size, depth or encoding, is matched or unmatched, never a 500;
 * any file, however deep, is served or refused at load.
 */
const deepArray = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth)
const deepObject = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)

async function post(
  url: string,
  body: string | Buffer,
  type = 'application/json',
): Promise<Response> {
  return await fetch(url, {
    method: 'POST',
    headers: { 'content-type': type },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  })
}

describe('hostile request bodies against body matchers', () => {
  it(
    'answers a 100,000-deep JSON body against JSONPath matchers without a 500',
    { timeout: 20_000 },
    async () => {
      const app = await startServer({
        yaml: `
- dsl: {requestDsl: {method: POST, path: /simple, body: [{key: $.a, matcherName: equals, matchingValue: x}]}, responseDsl: {text: simple}}
- dsl: {requestDsl: {method: POST, path: /wild, body: [{key: '$..a', matcherName: contains, matchingValue: x}]}, responseDsl: {text: wild}}
- dsl: {requestDsl: {method: POST, path: /deepscan, body: [{key: '$[0]', matcherName: equals, matchingValue: x}]}, responseDsl: {text: deep}}
- dsl: {requestDsl: {method: POST, path: /json, body: [{matcherName: matches_json, matchingValue: '$..b'}]}, responseDsl: {text: mj}}
- dsl: {requestDsl: {method: POST, path: /eq, body: [{matcherName: equals_json, matchingValue: '{"a":1}'}]}, responseDsl: {text: eq}}
- dsl: {requestDsl: {method: POST, path: /eqkey, body: [{key: $.a, matcherName: equals_json, matchingValue: '{"a":1}'}]}, responseDsl: {text: eqk}}
`,
      })
      for (const body of [deepArray(100_000), deepObject(100_000)]) {
        for (const path of ['/simple', '/wild', '/deepscan', '/json', '/eq', '/eqkey']) {
          const res = await post(`${app.url}${path}`, body)
          await res.arrayBuffer()
          expect(res.status, `${path} ${body.slice(0, 3)}`).toBe(404)
        }
      }
      // And ordinary bodies still match.
      expect(await (await post(`${app.url}/simple`, '{"a":"x"}')).text()).toBe('simple')
      expect(await (await post(`${app.url}/eq`, '{ "a" : 1 }')).text()).toBe('eq')
    },
  )

  it(
    'answers a 20,000-deep XML body against XPath matchers as unmatched, quickly',
    { timeout: 20_000 },
    async () => {
      const app = await startServer({
        yaml: `
- dsl: {requestDsl: {method: POST, path: /x, body: [{key: /a/b, matcherName: equals, matchingValue: '1'}]}, responseDsl: {text: x}}
- dsl: {requestDsl: {method: POST, path: /x, body: [{matcherName: matches_xml, matchingValue: '//b'}]}, responseDsl: {text: mx}}
- dsl: {requestDsl: {method: POST, path: /x, body: [{matcherName: equals_xml, matchingValue: '<a><b>1</b></a>'}]}, responseDsl: {text: ex}}
`,
      })
      const started = Date.now()
      const res = await post(
        `${app.url}/x`,
        '<a>'.repeat(20_000) + '</a>'.repeat(20_000),
        'application/xml',
      )
      await res.arrayBuffer()
      expect(res.status).toBe(404)
      // a bound on hanging, far above the usual time, not a speed figure (the test machine is shared)
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(await (await post(`${app.url}/x`, '<a><b>1</b></a>', 'application/xml')).text()).toBe(
        'ex',
      )
    },
  )

  it('answers a body of null against a keyless matches_json without a 500', async () => {
    const app = await startServer({
      yaml: `
- dsl: {requestDsl: {method: POST, path: /mj, body: [{matcherName: matches_json, matchingValue: '$.a'}]}, responseDsl: {text: mj}}
- dsl: {requestDsl: {method: POST, path: /mjf, body: [{matcherName: matches_json, matchingValue: '$[?(@.a > 1)]'}]}, responseDsl: {text: mjf}}
`,
    })
    for (const body of ['null', '1', '"s"', 'true']) {
      for (const path of ['/mj', '/mjf']) {
        const res = await post(`${app.url}${path}`, body)
        await res.arrayBuffer()
        expect(res.status, `${path} ${body}`).toBe(404)
      }
    }
    expect(await (await post(`${app.url}/mj`, '{"a":1}')).text()).toBe('mj')
  })

  it('refuses at load a transaction whose equals_json value or response JSON nests 10,000 deep', async () => {
    const deep = deepArray(10_000)
    await expect(
      startServer({
        dsl: [
          {
            dsl: {
              requestDsl: {
                method: 'POST',
                path: '/d',
                body: [{ matcherName: 'equals_json', matchingValue: deep }],
              },
              responseDsl: { text: 'd' },
            },
          },
        ],
      }),
    ).rejects.toMatchObject({ code: 'ERR_DSL_INVALID' })
    await expect(
      startServer({
        dsl: [
          {
            dsl: {
              requestDsl: { path: '/d' },
              responseDsl: { json: JSON.parse(deepArray(3_000)) as unknown },
            },
          },
        ],
      }),
    ).rejects.toMatchObject({ code: 'ERR_DSL_INVALID' })
  })

  it(
    'answers a 9.9 MiB body against a body regex without a 500, as unmatched',
    { timeout: 20_000 },
    async () => {
      const app = await startServer({
        yaml: `
- dsl: {requestDsl: {method: POST, path: /re, body: [{matcherName: matches, matchingValue: '(a|b)*'}]}, responseDsl: {text: re}}
- dsl: {requestDsl: {method: POST, path: /not, body: [{matcherName: not_matches, matchingValue: 'x+'}]}, responseDsl: {text: not}}
`,
      })
      const big = 'a'.repeat(Math.floor(9.9 * 1024 * 1024))
      for (const path of ['/re', '/not']) {
        const res = await post(`${app.url}${path}`, big, 'text/plain')
        await res.arrayBuffer()
        expect(res.status, path).toBe(404)
      }
      expect(await (await post(`${app.url}/re`, 'abab', 'text/plain')).text()).toBe('re')
      expect(await (await post(`${app.url}/not`, 'abab', 'text/plain')).text()).toBe('not')
    },
  )

  it(
    'keeps answering other requests while a 2 MB body meets ^(\\w+\\s?)*$',
    { timeout: 20_000 },
    async () => {
      const app = await startServer({
        yaml: `
- dsl: {requestDsl: {method: POST, path: /words, body: [{matcherName: matches, matchingValue: '^(\\w+\\s?)*$'}]}, responseDsl: {text: words}}
- dsl: {requestDsl: {path: /ping}, responseDsl: {text: pong}}
`,
      })
      const body = 'word '.repeat(400_000) + '!'
      const slow = post(`${app.url}/words`, body, 'text/plain')
      const started = Date.now()
      const ping = await fetch(`${app.url}/ping`)
      expect(await ping.text()).toBe('pong')
      const res = await slow
      await res.arrayBuffer()
      expect(res.status).toBe(404)
      // a bound on hanging, far above the usual time, not a speed figure (the test machine is shared)
      expect(Date.now() - started).toBeLessThan(10_000)
    },
  )
})
