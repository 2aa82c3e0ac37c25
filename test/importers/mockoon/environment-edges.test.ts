import { describe, expect, it } from 'vitest'
import { decodeContent } from '../../../src/dsl/index.js'
import { thrown } from '../../helpers/errors.js'
import { importMockoon } from '../../../importers/mockoon/index.js'

/*
 * A Mockoon environment with what an import meets in the wild besides plain routes: entries that
 * are not objects, WebSocket and CRUD routes, the response modes of early releases, bodies from
 * files and data buckets, callbacks, proxy mode and TLS. Each is carried over or named in a warning.
 */
const environment = {
  uuid: 'e',
  lastMigration: 33,
  name: '',
  latency: 50,
  endpointPrefix: '/v1/',
  https: true,
  proxyMode: true,
  proxyHost: 'https://up.example.com/',
  proxyRemovePrefix: true,
  proxyReqHeaders: [{ key: 'x-a', value: '1' }],
  proxyResHeaders: [{ key: '' }],
  headers: [{ key: 'X-Env', value: null }, { key: '' }, 'not a header'],
  data: [
    { uuid: 'u1', id: 'b1', value: '{"from":"bucket"}' },
    { id: '', uuid: 'u2' },
  ],
  callbacks: [
    { uuid: 'cb-rel', uri: '/relative' },
    {
      uuid: 'cb',
      name: 'hook',
      uri: 'http://127.0.0.1:9/h',
      method: 'put',
      headers: [{ key: 'a', value: 1 }],
      body: 'plain',
    },
  ],
  routes: [
    'not a route',
    { uuid: 'ws', type: 'ws', endpoint: 'socket', responses: [{}] },
    { uuid: 'none', endpoint: 'empty', responses: [] },
    {
      uuid: 'crud',
      type: 'crud',
      endpoint: 'users',
      method: 'post',
      responses: [{ bodyType: 'DATABUCKET', databucketID: 'b1', default: true }],
    },
    {
      uuid: 'rand',
      endpoint: 'rand',
      method: 'get',
      randomResponse: true,
      responses: [
        { statusCode: '201', body: 'a', label: 'A' },
        { statusCode: 'abc', body: 'b', default: true },
      ],
    },
    {
      uuid: 'seq',
      endpoint: 'seq',
      method: 'get',
      sequentialResponse: true,
      responses: [{ statusCode: 200, body: 'one' }, 'not a response'],
    },
    {
      uuid: 'files',
      endpoint: 'files',
      method: 'all',
      responses: [
        {
          bodyType: 'FILE',
          filePath: 'body.json',
          body: 'inline',
          default: true,
          latency: 25,
          callbacks: [{ uuid: 'cb', latency: 10 }, { uuid: 'cb-rel' }, { uuid: 'missing' }],
        },
        {
          filePath: '/abs/body.json',
          body: 'inline abs',
          rules: [{ target: 'header', modifier: 'x', value: '1', operator: 'equals' }],
        },
        {
          bodyType: 'FILE',
          filePath: '',
          body: 'empty path',
          rules: [{ target: 'header', modifier: 'y', value: '1' }],
        },
        {
          body: 'never',
          rulesOperator: 'AND',
          rules: [{ target: 'weird' }, { target: 'query', modifier: 'q', value: '1' }],
        },
      ],
    },
    {
      uuid: 'dis',
      endpoint: 'dis',
      method: 'get',
      responseMode: 'DISABLE_RULES',
      responses: [{ body: 'x', rules: [{ target: 'query', modifier: 'q', value: '1' }] }],
    },
  ],
}

function imported() {
  return importMockoon(
    { bytes: Buffer.from(JSON.stringify(environment)), fileName: 'env.json' },
    { readFile: (p) => (p === 'body.json' ? Buffer.from('{"from":"file"}') : undefined) },
  )
}

describe('a Mockoon environment with unusual parts', () => {
  it('names every part it skips or cannot carry over, where it stands', () => {
    expect(imported().warnings.map((w) => `${w.at ?? ''} ${w.message}`)).toEqual([
      '/routes/0 route 0 is not an object; skipped',
      '/routes/1 route GET /v1/socket: WebSocket routes have no equivalent; skipped',
      '/routes/2 route GET /v1/empty: has no response; skipped',
      '/routes/3 route POST /v1/users: a CRUD route is served read-only: GET answers its data bucket, other methods and item paths are not generated',
      '/routes/4 route GET /v1/rand: random responses have no equivalent; the default response is always served',
      '/routes/4/responses/1 route GET /v1/rand: status "abc" is not an HTTP status; 200 is used',
      '/routes/5/responses/1 route GET /v1/seq: response 1 is not an object; skipped',
      `/routes/6/responses/3 route ALL /v1/files: rules on "weird" have no equivalent; the response's rules (AND) cannot all be checked, so it is served only as a default`,
      '/routes/6/responses/1 route ALL /v1/files: file "/abs/body.json" is not a path relative to the environment; the inline body is served',
      '/routes/6/responses/0 route ALL /v1/files: a callback without an absolute http(s) uri is not called',
      '/routes/6/responses/0 route ALL /v1/files: a callback without an absolute http(s) uri is not called',
      ' proxyRemovePrefix has no equivalent: forwarded requests keep the prefix',
      ' proxyReqHeaders have no equivalent and are not added',
      " TLS is set by the runtime's own flags (docs/runtime.md), not by the environment",
    ])
  })

  it('forwards unmatched requests to the proxy host, and keeps the latency as think time', () => {
    expect(imported().document).toMatchObject({
      thinkTime: { type: 'fixed', duration: 50 },
      noMatchingRequestPreference: 'bypasslive',
      liveSystemHost: 'https://up.example.com',
    })
  })

  it('serves a CRUD route read-only from its data bucket, and the default of a random route', () => {
    const [crud, rand] = imported().document.transactions
    expect(crud?.dsl.requestDsl).toMatchObject({ method: 'GET' })
    expect(decodeContent(crud?.dsl.responseDsl.content ?? '').toString()).toBe('{"from":"bucket"}')
    expect(crud?.dsl.responseDsl.headers).toEqual([{ name: 'X-Env', value: '' }])
    expect(rand?.dsl.responseDsl.status).toBe(200)
    expect(decodeContent(rand?.dsl.responseDsl.content ?? '').toString()).toBe('b')
  })

  it('counts the requests of a sequential route in a scenario of its own', () => {
    const seq = imported().document.transactions.find((t) => t.name.startsWith('GET /v1/seq'))
    expect(seq?.dsl.scenario).toEqual({
      name: 'mockoon seq',
      requiredState: 'Started',
      newState: '2',
    })
  })

  it('reads a file body beside the environment, adds both latencies, and keeps absolute callbacks', () => {
    const files = imported().document.transactions.filter((t) => t.name.startsWith('ANY /v1/files'))
    // the two rule alternatives first, then the default; the AND response with a rule it cannot
    // check is never served
    expect(files.map((t) => decodeContent(t.dsl.responseDsl.content ?? '').toString())).toEqual([
      'inline abs',
      'empty path',
      '{"from":"file"}',
    ])
    const fallback = files[2]?.dsl
    expect(fallback?.requestDsl.method).toBeUndefined()
    expect(fallback?.responseDsl.responseDelay).toEqual({ type: 'fixed', duration: 75 })
    expect(fallback?.responseDsl.postServe).toEqual([
      {
        url: 'http://127.0.0.1:9/h',
        method: 'PUT',
        headers: [{ name: 'a', value: '1' }],
        body: 'plain',
        delay: 10,
      },
    ])
  })

  it('ignores the rules of a route whose rules are disabled', () => {
    const dis = imported().document.transactions.filter((t) => t.name.startsWith('GET /v1/dis'))
    expect(dis).toHaveLength(1)
    expect(dis[0]?.dsl.requestDsl.queryParams).toBeUndefined()
  })

  it('refuses a file that is not an environment, and warns when no route could be imported', () => {
    const err = thrown(() => importMockoon({ bytes: Buffer.from('[1, 2]'), fileName: 'list.json' }))
    expect(err).toMatchObject({ code: 'ERR_IMPORT_INVALID' })
    expect(String(err.message)).toContain('expected a Mockoon environment')
    const empty = importMockoon({
      bytes: Buffer.from(
        JSON.stringify({ lastMigration: 33, routes: [], proxyMode: true, proxyHost: 'ftp://x' }),
      ),
      fileName: 'empty.json',
    })
    expect(empty.warnings.map((w) => w.message)).toEqual([
      'no route could be turned into a transaction',
      'proxy mode needs an http(s) proxyHost (got "ftp://x"); requests no route matches answer 404',
    ])
    expect(empty.document.transactions).toEqual([])
  })
})

describe('templates of a Mockoon response', () => {
  function importRoute(response: Record<string, unknown>) {
    return importMockoon({
      bytes: Buffer.from(
        JSON.stringify({
          lastMigration: 33,
          routes: [{ uuid: 'r', endpoint: 't', method: 'get', responses: [response] }],
        }),
      ),
      fileName: 't.json',
    })
  }

  it('translates header templates, and serves as written what uses helpers it lacks, saying so', () => {
    const { document, warnings } = importRoute({
      body: "{{mockoonOnly 'x'}}",
      headers: [
        { key: 'X-Id', value: "{{header 'X-Request-Id'}}" },
        { key: 'X-Other', value: "{{otherHelper 'a'}}" },
        { key: 'X-Plain', value: 'plain' },
      ],
    })
    const response = document.transactions[0]?.dsl.responseDsl
    expect(response?.template).toBe(true)
    expect(decodeContent(response?.content ?? '').toString()).toBe("{{mockoonOnly 'x'}}")
    expect(response?.headers).toEqual([
      { name: 'X-Id', value: '{{request.headers.[x-request-id]}}' },
      { name: 'X-Other', value: "{{otherHelper 'a'}}" },
      { name: 'X-Plain', value: 'plain' },
    ])
    expect(warnings.map((w) => w.message)).toEqual([
      'route GET /t: templating helpers mockoonOnly have no equivalent; the body is served as written',
      'route GET /t: header X-Other: templating helpers otherHelper have no equivalent; served as written',
    ])
  })

  it('keeps templates as text when templating is disabled', () => {
    const { document, warnings } = importRoute({
      body: "{{urlParam 'id'}}",
      disableTemplating: true,
      headers: [{ key: 'X-Id', value: "{{header 'X-Request-Id'}}" }],
    })
    const response = document.transactions[0]?.dsl.responseDsl
    expect(response?.template).toBeUndefined()
    expect(decodeContent(response?.content ?? '').toString()).toBe("{{urlParam 'id'}}")
    expect(response?.headers).toEqual([{ name: 'X-Id', value: "{{header 'X-Request-Id'}}" }])
    expect(warnings).toEqual([])
  })
})
