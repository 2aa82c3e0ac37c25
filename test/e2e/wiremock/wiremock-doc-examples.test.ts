import { describe, expect, it } from 'vitest'
import { startWireMockInProcess } from '../../helpers/wiremock.js'
import { startUpstream } from '../../helpers/upstream.js'

// WireMock's own documented examples of its admin API (wiremock.org: stubbing, verifying, near
// misses, stateful behaviour, record and playback, simulating faults, stub metadata), requests
// re-typed and sent with plain fetch; the answers must carry the status and fields WireMock's
// documentation shows. The runtime runs in this process, started as `serve` starts it.

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${base}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, json: text === '' ? {} : (JSON.parse(text) as Json) }
}

describe('WireMock documentation examples against understudy serve', () => {
  it('stubbing: POST /__admin/mappings answers 201 with the stub and its id; the stub serves', async () => {
    const { url } = await startWireMockInProcess()
    const created = await call(url, 'POST', '/__admin/mappings', {
      request: { method: 'GET', url: '/some/thing' },
      response: { status: 200, body: 'Hello, world!', headers: { 'Content-Type': 'text/plain' } },
    })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({
      request: { method: 'GET', url: '/some/thing' },
      response: { status: 200, body: 'Hello, world!' },
    })
    expect(created.json['id']).toBe(created.json['uuid'])
    const served = await fetch(`${url}/some/thing`)
    expect(served.headers.get('content-type')).toBe('text/plain')
    expect(await served.text()).toBe('Hello, world!')

    const listed = await call(url, 'GET', '/__admin/mappings')
    expect(listed).toEqual({ status: 200, json: { mappings: [created.json], meta: { total: 1 } } })
    expect(
      (await call(url, 'GET', '/__admin/mappings/00000000-0000-0000-0000-000000000000')).status,
    ).toBe(404)
  })

  it('stubbing: an invalid stub is refused with the errors array naming the field', async () => {
    const { url } = await startWireMockInProcess()
    const refused = await call(url, 'POST', '/__admin/mappings', {
      request: {
        method: 'POST',
        urlPath: '/upload',
        multipartPatterns: [{ name: 'file', matchingType: 'ALL' }],
      },
      response: { status: 200 },
    })
    expect(refused.status).toBe(422)
    expect(refused.json['errors'][0]).toMatchObject({
      code: 10,
      source: { pointer: '/request/multipartPatterns' },
    })
    expect(refused.json['errors'][0]['title']).toMatch(/multipart/)
    expect((await call(url, 'GET', '/__admin/mappings')).json['meta']).toEqual({ total: 0 })
    for (const [stub, pointer] of [
      [{ request: { urlPathPattern: '[unclosed' }, response: {} }, '/request/urlPathPattern'],
      [{ request: { url: '/a' }, response: { status: 'abc' } }, '/response/status'],
      [{ request: { url: 5 }, response: {} }, '/request/url'],
      [{ request: { url: '/a' }, response: {}, priority: 0 }, '/priority'],
      [{ id: 'not-a-uuid', request: { url: '/a' }, response: {} }, '/id'],
    ] as const) {
      const answer = await call(url, 'POST', '/__admin/mappings', stub)
      expect(answer.status, JSON.stringify(stub)).toBe(422)
      expect(answer.json['errors'][0]['source'], JSON.stringify(stub)).toEqual({ pointer })
    }
    const broken = await fetch(`${url}/__admin/mappings`, { method: 'POST', body: '{"request": ' })
    expect(broken.status).toBe(400)
    expect(((await broken.json()) as Json)['errors'][0]['code']).toBe(10)
  })

  it('stubbing: POST /__admin/mappings/import with IGNORE keeps existing stubs of the same id', async () => {
    const { url } = await startWireMockInProcess()
    const id = '0c2bb3a4-5b46-4fd0-9c1c-2e4ec1e0a001'
    await call(url, 'POST', '/__admin/mappings', {
      id,
      request: { url: '/one' },
      response: { body: 'original' },
    })
    const imported = await call(url, 'POST', '/__admin/mappings/import', {
      mappings: [
        { id, request: { url: '/one' }, response: { body: 'imported' } },
        { request: { url: '/two' }, response: { body: 'two' } },
      ],
      importOptions: { duplicatePolicy: 'IGNORE', deleteAllNotInImport: false },
    })
    expect(imported.status).toBe(200)
    expect(await (await fetch(`${url}/one`)).text()).toBe('original')
    expect(await (await fetch(`${url}/two`)).text()).toBe('two')
  })

  it('verifying: /requests/count and /requests/find with a header pattern', async () => {
    const { url } = await startWireMockInProcess()
    for (const type of ['application/xml', 'text/xml', 'application/json']) {
      await fetch(`${url}/resource/to/count`, {
        method: 'POST',
        headers: { 'Content-Type': type },
        body: '<a/>',
      })
    }
    const pattern = {
      method: 'POST',
      url: '/resource/to/count',
      headers: { 'Content-Type': { matches: '.*/xml' } },
    }
    expect(await call(url, 'POST', '/__admin/requests/count', pattern)).toMatchObject({
      status: 200,
      json: { count: 2 },
    })
    const found = await call(url, 'POST', '/__admin/requests/find', pattern)
    expect(found.json['requests']).toHaveLength(2)
    expect(found.json['requests'][0]).toMatchObject({
      url: '/resource/to/count',
      method: 'POST',
      body: '<a/>',
      browserProxyRequest: false,
    })
    expect(typeof found.json['requests'][0]['loggedDate']).toBe('number')
    expect(found.json['requests'][0]['absoluteUrl']).toBe(`${url}/resource/to/count`)
  })

  it('near misses: for a logged request and for a request pattern, with distances', async () => {
    const { url } = await startWireMockInProcess()
    await call(url, 'POST', '/__admin/mappings', {
      request: { method: 'GET', url: '/expected' },
      response: { status: 200 },
    })
    await fetch(`${url}/almostmatch`)
    const byRequest = await call(url, 'POST', '/__admin/near-misses/request', {
      url: '/actual',
      absoluteUrl: 'http://localhost:8080/actual',
      method: 'GET',
      clientIp: '0:0:0:0:0:0:0:1',
      headers: { 'User-Agent': 'curl/7.30.0', Accept: '*/*', Host: 'localhost:8080' },
      cookies: {},
      browserProxyRequest: false,
      body: '',
      bodyAsBase64: '',
      loggedDate: 1467402464520,
      loggedDateString: '2016-07-01T19:47:44Z',
    })
    expect(byRequest.status).toBe(200)
    expect(byRequest.json['nearMisses'][0]).toMatchObject({
      request: { url: '/actual' },
      stubMapping: { request: { url: '/expected' } },
    })
    expect(byRequest.json['nearMisses'][0]['matchResult']['distance']).toBeGreaterThan(0)
    const byPattern = await call(url, 'POST', '/__admin/near-misses/request-pattern', {
      url: '/almostmatch',
      method: 'POST',
    })
    expect(byPattern.json['nearMisses'][0]).toMatchObject({
      request: { url: '/almostmatch', method: 'GET' },
      requestPattern: { url: '/almostmatch', method: 'POST' },
    })
  })

  it('stateful behaviour: scenarios listed, moved with PUT .../state, and reset', async () => {
    const { url } = await startWireMockInProcess()
    const scenario = 'my_scenario'
    await call(url, 'POST', '/__admin/mappings', {
      scenarioName: scenario,
      requiredScenarioState: 'Started',
      newScenarioState: 'state_2',
      request: { url: '/step' },
      response: { body: 'one' },
    })
    await call(url, 'POST', '/__admin/mappings', {
      scenarioName: scenario,
      requiredScenarioState: 'state_2',
      request: { url: '/step' },
      response: { body: 'two' },
    })
    const moved = await call(url, 'PUT', `/__admin/scenarios/${scenario}/state`, {
      state: 'state_2',
    })
    expect(moved.status).toBe(200)
    expect((await call(url, 'GET', '/__admin/scenarios')).json['scenarios'][0]).toMatchObject({
      id: scenario,
      name: scenario,
      state: 'state_2',
    })
    expect(await (await fetch(`${url}/step`)).text()).toBe('two')
    expect((await call(url, 'POST', '/__admin/scenarios/reset')).status).toBe(200)
    expect(await (await fetch(`${url}/step`)).text()).toBe('one')
    expect((await call(url, 'PUT', '/__admin/scenarios/nope/state', { state: 'x' })).status).toBe(
      404,
    )
  })

  it('record and playback: start, status, stop returning the recorded mappings', async () => {
    const upstream = await startUpstream((_req, res) => res.end('{"recorded":true}'))
    const { url } = await startWireMockInProcess()
    expect(
      (await call(url, 'POST', '/__admin/recordings/start', { targetBaseUrl: `${upstream.url}/` }))
        .status,
    ).toBe(200)
    expect((await call(url, 'GET', '/__admin/recordings/status')).json).toEqual({
      status: 'Recording',
    })
    await fetch(`${url}/recordables/123`)
    const stopped = await call(url, 'POST', '/__admin/recordings/stop')
    expect(stopped.json['mappings'][0]).toMatchObject({
      request: { url: '/recordables/123', method: 'GET' },
      response: { status: 200, body: '{"recorded":true}' },
    })
    const refused = await call(url, 'POST', '/__admin/recordings/start', {
      targetBaseUrl: upstream.url,
      captureHeaders: { Accept: {} },
    })
    expect(refused.status).toBe(422)
    expect(refused.json['errors'][0]['source']).toEqual({ pointer: '/captureHeaders' })
  })

  it('stub metadata: find-by-metadata and remove-by-metadata with JSONPath patterns', async () => {
    const { url } = await startWireMockInProcess()
    const tagged = await call(url, 'POST', '/__admin/mappings', {
      request: { url: '/tagged' },
      response: { status: 200 },
      metadata: {
        singleItem: 1234,
        listItem: [1, 2, 3, 4],
        nestedObject: { innerItem: 'Hello' },
        outer: { inner: 42 },
      },
    })
    await call(url, 'POST', '/__admin/mappings', {
      request: { url: '/plain' },
      response: { status: 200 },
    })
    const found = await call(url, 'POST', '/__admin/mappings/find-by-metadata', {
      matchesJsonPath: { expression: '$.outer', equalToJson: '{ "inner": 42 }' },
    })
    expect(found.json['mappings'].map((m: Json) => m['id'])).toEqual([tagged.json['id']])
    expect(
      (
        await call(url, 'POST', '/__admin/mappings/remove-by-metadata', {
          matchesJsonPath: '$.singleItem',
        })
      ).status,
    ).toBe(200)
    expect(
      (await call(url, 'GET', '/__admin/mappings')).json['mappings'].map(
        (m: Json) => m['request']['url'],
      ),
    ).toEqual(['/plain'])
  })

  it('global settings, health and reset', async () => {
    const { url } = await startWireMockInProcess()
    expect(await call(url, 'POST', '/__admin/settings', { fixedDelay: 500 })).toEqual({
      status: 200,
      json: {},
    })
    expect((await call(url, 'GET', '/__admin/settings')).json).toEqual({
      settings: { fixedDelay: 500 },
    })
    const health = await call(url, 'GET', '/__admin/health')
    expect(health.json).toMatchObject({ status: 'healthy' })
    expect(typeof health.json['uptimeInSeconds']).toBe('number')
    expect((await call(url, 'POST', '/__admin/reset')).status).toBe(200)
    expect(
      (await call(url, 'POST', '/__admin/settings', { proxyPassThrough: false })).json['errors'][0][
        'source'
      ],
    ).toEqual({ pointer: '/proxyPassThrough' })
    expect((await call(url, 'PUT', '/__admin/settings', { fixedDelay: 0 })).status).toBe(200)
    expect((await call(url, 'GET', '/__admin/settings')).json).toEqual({ settings: {} })
    expect((await call(url, 'GET', '/__admin/version')).json['version']).toMatch(/^3\./)
  })

  it('admin API reference: stubs read, edited, removed, saved and reset one call at a time', async () => {
    const { url } = await startWireMockInProcess()
    const id = '8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7'
    const stub = {
      id,
      request: { method: 'GET', url: '/ref' },
      response: { status: 200, body: 'a' },
    }
    expect((await call(url, 'POST', '/__admin/mappings', stub)).status).toBe(201)
    const read = await call(url, 'GET', `/__admin/mappings/${id}`)
    expect(read).toMatchObject({ status: 200, json: { id, uuid: id, request: stub.request } })
    const edited = await call(url, 'PUT', `/__admin/mappings/${id}`, {
      ...stub,
      response: { status: 200, body: 'b' },
    })
    expect(edited).toMatchObject({ status: 200, json: { id, response: { body: 'b' } } })
    expect(await (await fetch(`${url}/ref`)).text()).toBe('b')
    expect((await call(url, 'POST', '/__admin/mappings/save')).status).toBe(200)
    const unsaved = await call(url, 'POST', '/__admin/mappings', {
      request: { url: '/unsaved' },
      response: { status: 204 },
    })
    // Saved: kept by a reset of the mappings, which drops the unsaved one.
    expect((await call(url, 'POST', '/__admin/mappings/reset')).status).toBe(200)
    expect((await call(url, 'GET', `/__admin/mappings/${id}`)).status).toBe(200)
    expect((await call(url, 'GET', `/__admin/mappings/${String(unsaved.json['id'])}`)).status).toBe(
      404,
    )
    expect((await call(url, 'DELETE', `/__admin/mappings/${id}`)).status).toBe(200)
    expect((await call(url, 'GET', `/__admin/mappings/${id}`)).status).toBe(404)
    expect((await fetch(`${url}/ref`)).status).toBe(404)
    await call(url, 'POST', '/__admin/mappings', stub)
    expect((await call(url, 'DELETE', '/__admin/mappings')).status).toBe(200)
    expect((await call(url, 'GET', '/__admin/mappings')).json).toEqual({
      mappings: [],
      meta: { total: 0 },
    })
  })

  it('admin API reference: the request journal listed, read, removed and reset', async () => {
    const { url } = await startWireMockInProcess()
    await call(url, 'POST', '/__admin/mappings', {
      request: { method: 'GET', url: '/seen' },
      response: { status: 200 },
    })
    await fetch(`${url}/seen`, { headers: { 'X-Trace': '1' } })
    await fetch(`${url}/missed`)
    const all = await call(url, 'GET', '/__admin/requests')
    expect(all.status).toBe(200)
    expect(all.json).toMatchObject({ meta: { total: 2 }, requestJournalDisabled: false })
    const [missed, seen] = all.json['requests'] as Json[]
    expect(seen).toMatchObject({
      request: { url: '/seen', method: 'GET', headers: { 'X-Trace': '1' } },
      responseDefinition: { status: 200 },
      wasMatched: true,
    })
    expect(seen?.['request']['absoluteUrl']).toMatch(/^http:\/\/.+\/seen$/)
    expect(typeof seen?.['request']['loggedDate']).toBe('number')
    expect(missed).toMatchObject({ request: { url: '/missed' }, wasMatched: false })
    const one = await call(url, 'GET', `/__admin/requests/${String(seen?.['id'])}`)
    expect(one).toMatchObject({
      status: 200,
      json: { id: seen?.['id'], request: { url: '/seen' } },
    })
    const unmatched = await call(url, 'GET', '/__admin/requests/unmatched')
    expect(unmatched.json['requests'].map((r: Json) => r['url'])).toEqual(['/missed'])
    const nearMisses = await call(url, 'GET', '/__admin/requests/unmatched/near-misses')
    expect(nearMisses.json['nearMisses'][0]).toMatchObject({
      request: { url: '/missed' },
      stubMapping: { request: { url: '/seen' } },
    })
    expect(typeof nearMisses.json['nearMisses'][0]['matchResult']['distance']).toBe('number')
    const removed = await call(url, 'POST', '/__admin/requests/remove', { url: '/missed' })
    expect(removed.status).toBe(200)
    expect(removed.json['serveEvents'].map((e: Json) => e['request']['url'])).toEqual(['/missed'])
    expect((await call(url, 'DELETE', `/__admin/requests/${String(seen?.['id'])}`)).status).toBe(
      200,
    )
    expect((await call(url, 'GET', `/__admin/requests/${String(seen?.['id'])}`)).status).toBe(404)
    await fetch(`${url}/seen`)
    expect((await call(url, 'POST', '/__admin/requests/reset')).status).toBe(200)
    expect((await call(url, 'GET', '/__admin/requests')).json['meta']).toEqual({ total: 0 })
    await fetch(`${url}/seen`)
    expect((await call(url, 'DELETE', '/__admin/requests')).status).toBe(200)
    expect((await call(url, 'GET', '/__admin/requests')).json['meta']).toEqual({ total: 0 })
  })

  it('admin API reference: shutdown is refused unless the runtime allows it', async () => {
    const { url } = await startWireMockInProcess()
    const refused = await call(url, 'POST', '/__admin/shutdown')
    expect(refused.status).toBe(403)
    expect(refused.json['errors'][0]['title']).toMatch(/--wiremock-shutdown/)
  })

  it('stubbing: unmatched stubs are those no journaled request was served by', async () => {
    const { url } = await startWireMockInProcess()
    await call(url, 'POST', '/__admin/mappings', {
      request: { url: '/used' },
      response: { status: 200 },
    })
    await call(url, 'POST', '/__admin/mappings', {
      request: { url: '/unused' },
      response: { status: 200 },
    })
    await fetch(`${url}/used`)
    const unmatched = await call(url, 'GET', '/__admin/mappings/unmatched')
    expect(unmatched.json['mappings'].map((m: Json) => m['request']['url'])).toEqual(['/unused'])
    expect((await call(url, 'DELETE', '/__admin/mappings/unmatched')).status).toBe(200)
    expect(
      (await call(url, 'GET', '/__admin/mappings')).json['mappings'].map(
        (m: Json) => m['request']['url'],
      ),
    ).toEqual(['/used'])
  })

  it('proxying and basic auth: proxyBaseUrl forwards under the base path, basicAuthCredentials must match', async () => {
    const upstream = await startUpstream()
    const { url } = await startWireMockInProcess()
    const proxied = await call(url, 'POST', '/__admin/mappings', {
      request: { method: 'GET', urlPattern: '/other/service/.*' },
      response: { proxyBaseUrl: `${upstream.url}/approot` },
    })
    expect(proxied.status).toBe(201)
    expect(await (await fetch(`${url}/other/service/doc`)).json()).toMatchObject({
      method: 'GET',
      url: '/approot/other/service/doc',
    })
    await call(url, 'POST', '/__admin/mappings', {
      request: {
        method: 'GET',
        url: '/basic-auth',
        basicAuthCredentials: { username: 'user', password: 'pass' },
      },
      response: { status: 200, body: 'authorised' },
    })
    const auth = `Basic ${Buffer.from('user:pass').toString('base64')}`
    expect(
      await (await fetch(`${url}/basic-auth`, { headers: { authorization: auth } })).text(),
    ).toBe('authorised')
    expect((await fetch(`${url}/basic-auth`)).status).toBe(404)
  })
})
