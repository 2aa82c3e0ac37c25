import { describe, expect, it } from 'vitest'
import {
  BodyType,
  DelayType,
  EndpointFeature,
  MatchingAttributes,
  WireMock,
  WireMockAPI,
  WireMockFault,
} from 'wiremock-captain'
import { startWireMockStandIn } from '../../helpers/wiremock.js'
import { startUpstream } from '../../helpers/upstream.js'
import { waitFor } from '../../helpers/wait.js'

// wiremock-captain 4 (npm) driving `understudy serve` exactly as it drives WireMock: the base URL
// is the only thing that changes. Every call of its WireMock and WireMockAPI classes is made.

describe('wiremock-captain against understudy serve', () => {
  it('registers stubs that serve, lists and reads them back as posted, and deletes them', async () => {
    const server = await startWireMockStandIn()
    const mock = new WireMock(server.url)
    const created = (await mock.register(
      {
        method: 'POST',
        endpoint: '/orders',
        body: { item: 'book', tags: ['a', 'b'] },
        headers: { 'X-Team': 'blue' },
        queryParameters: { dry: 'no' },
      },
      { status: 201, body: { id: 7 }, headers: { 'X-Served': 'stub' } },
      { requestIgnoreArrayOrder: true, requestIgnoreExtraElements: true, stubPriority: 2 },
    )) as { id: string; request: unknown; priority: number }
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(created.priority).toBe(2)

    const hit = await fetch(`${server.url}/orders?dry=no`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-team': 'blue' },
      body: JSON.stringify({ tags: ['b', 'a'], item: 'book', extra: true }),
    })
    expect(hit.status).toBe(201)
    expect(hit.headers.get('x-served')).toBe('stub')
    expect(await hit.json()).toEqual({ id: 7 })
    // The header matcher holds: without it, no match.
    const miss = await fetch(`${server.url}/orders?dry=no`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"item":"book","tags":["a","b"]}',
    })
    expect(miss.status).toBe(404)

    const all = (await mock.getAllMappings()) as Array<{ id: string; request: unknown }>
    expect(all.map((m) => m.id)).toEqual([created.id])
    expect(all[0]?.request).toEqual(created.request)
    expect(await mock.getMapping(created.id)).toEqual(created)

    await mock.deleteMapping(created.id)
    expect(await mock.getAllMappings()).toEqual([])
    expect(
      (await fetch(`${server.url}/orders?dry=no`, { method: 'POST', body: '{}' })).status,
    ).toBe(404)
  })

  it('reads the request journal: all requests, those of one API, and the unmatched ones', async () => {
    const server = await startWireMockStandIn()
    const api = new WireMockAPI(server.url, '/users', 'GET')
    await api.register({}, { status: 200, body: [{ name: 'ada' }] })
    await api.registerDefaultResponse({ status: 200, body: [] }, { stubPriority: 9 })
    expect(await (await fetch(`${server.url}/users`)).json()).toEqual([{ name: 'ada' }])
    await fetch(`${server.url}/nowhere`)

    const forApi = (await api.getRequestsForAPI()) as Array<{
      request: { url: string; method: string }
      wasMatched: boolean
    }>
    expect(forApi).toHaveLength(1)
    expect(forApi[0]?.wasMatched).toBe(true)
    const mock = new WireMock(server.url)
    const all = (await mock.getAllRequests()) as Array<{ request: { url: string } }>
    expect(all.map((r) => r.request.url)).toEqual(['/nowhere', '/users'])
    const unmatched = (await mock.getUnmatchedRequests()) as Array<{ url: string }>
    expect(unmatched.map((r) => r.url)).toEqual(['/nowhere'])

    await mock.clearAllRequests()
    expect(await mock.getAllRequests()).toEqual([])
  })

  it('maps its matching features: url forms, cookies, form fields, body operators', async () => {
    const server = await startWireMockStandIn()
    const mock = new WireMock(server.url)
    await mock.register(
      { method: 'GET', endpoint: '/files/[0-9]+' },
      { status: 200, body: 'file' },
      { requestEndpointFeature: EndpointFeature.UrlPathPattern, responseBodyType: BodyType.Body },
    )
    await mock.register(
      { method: 'GET', endpoint: '/search', cookies: { session: 'abc' } },
      { status: 200, body: 'cookie' },
      { requestEndpointFeature: EndpointFeature.UrlPath, responseBodyType: BodyType.Body },
    )
    await mock.register(
      { method: 'POST', endpoint: '/login', formParameters: { user: 'ada' } },
      { status: 204 },
      { requestEndpointFeature: EndpointFeature.UrlPath },
    )
    await mock.register(
      { method: 'POST', endpoint: '/xml', body: '<a><b>1</b></a>' },
      { status: 200, body: 'xml' },
      { requestBodyFeature: MatchingAttributes.EqualToXml, responseBodyType: BodyType.Body },
    )
    await mock.register(
      { method: 'POST', endpoint: '/jp', body: '$.items[?(@.qty > 1)]' },
      { status: 200, body: 'jsonpath' },
      { requestBodyFeature: MatchingAttributes.MatchesJsonPath, responseBodyType: BodyType.Body },
    )
    await mock.register(
      { method: 'POST', endpoint: '/bin', body: Buffer.from('raw').toString('base64') },
      { status: 200, body: Buffer.from('bytes').toString('base64') },
      {
        requestBodyFeature: MatchingAttributes.BinaryEqualTo,
        responseBodyType: BodyType.Base64Body,
      },
    )
    await mock.register(
      { method: 'POST', endpoint: '/nm', body: '.*secret.*' },
      { status: 200, body: 'clean' },
      { requestBodyFeature: MatchingAttributes.DoesNotMatch, responseBodyType: BodyType.Body },
    )

    expect(await (await fetch(`${server.url}/files/42`)).text()).toBe('file')
    expect((await fetch(`${server.url}/files/x`)).status).toBe(404)
    expect(
      await (
        await fetch(`${server.url}/search?q=1`, { headers: { cookie: 'session=abc' } })
      ).text(),
    ).toBe('cookie')
    expect(
      (await fetch(`${server.url}/search`, { headers: { cookie: 'session=zzz' } })).status,
    ).toBe(404)
    expect(
      (
        await fetch(`${server.url}/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'user=ada&x=1',
        })
      ).status,
    ).toBe(204)
    expect(
      await (
        await fetch(`${server.url}/xml`, {
          method: 'POST',
          headers: { 'content-type': 'application/xml' },
          body: '<a> <b>1</b> </a>',
        })
      ).text(),
    ).toBe('xml')
    expect(
      await (
        await fetch(`${server.url}/jp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"items":[{"qty":3}]}',
        })
      ).text(),
    ).toBe('jsonpath')
    expect(
      (
        await fetch(`${server.url}/jp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"items":[{"qty":1}]}',
        })
      ).status,
    ).toBe(404)
    expect(await (await fetch(`${server.url}/bin`, { method: 'POST', body: 'raw' })).text()).toBe(
      'bytes',
    )
    expect(await (await fetch(`${server.url}/nm`, { method: 'POST', body: 'hello' })).text()).toBe(
      'clean',
    )
    expect((await fetch(`${server.url}/nm`, { method: 'POST', body: 'my secret' })).status).toBe(
      404,
    )
  })

  it('serves delays, faults, templates and webhooks', async () => {
    const server = await startWireMockStandIn()
    const hooks = await startUpstream()
    const mock = new WireMock(server.url)
    await mock.register(
      { method: 'GET', endpoint: '/slow' },
      { status: 200, body: { ok: true } },
      { responseDelay: { type: DelayType.FIXED, constantDelay: 300 } },
    )
    await mock.register(
      { method: 'GET', endpoint: '/drip' },
      { status: 200, body: 'abcdef' },
      {
        responseBodyType: BodyType.Body,
        responseDelay: { type: DelayType.CHUNKED_DRIBBLE, numberOfChunks: 3, totalDuration: 300 },
      },
    )
    await mock.register(
      { method: 'GET', endpoint: '/reset' },
      { status: 200 },
      { fault: WireMockFault.CONNECTION_RESET_BY_PEER },
    )
    await mock.register(
      { method: 'GET', endpoint: '/hello/ada' },
      { status: 200, body: 'hi {{request.path.[1]}}' },
      { responseBodyType: BodyType.Body, responseTransformers: ['response-template' as never] },
    )
    await mock.register(
      { method: 'POST', endpoint: '/pay' },
      { status: 202 },
      {
        webhook: {
          method: 'POST',
          url: `${hooks.url}/paid`,
          body: { type: 'JSON', data: { paid: true } },
        },
      },
    )

    const started = Date.now()
    expect(await (await fetch(`${server.url}/slow`)).json()).toEqual({ ok: true })
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
    expect(await (await fetch(`${server.url}/drip`)).text()).toBe('abcdef')
    await expect(fetch(`${server.url}/reset`)).rejects.toThrow()
    expect(await (await fetch(`${server.url}/hello/ada`)).text()).toBe('hi ada')
    expect((await fetch(`${server.url}/pay`, { method: 'POST' })).status).toBe(202)
    await waitFor(() => hooks.requests.length === 1, 'the webhook call')
    expect(hooks.requests[0]?.url).toBe('/paid')
    expect(JSON.parse(hooks.requests[0]?.body.toString() ?? '')).toEqual({ paid: true })
  })

  it('walks scenarios, lists them, and resets them', async () => {
    const server = await startWireMockStandIn()
    const mock = new WireMock(server.url)
    await mock.register(
      { method: 'GET', endpoint: '/cart' },
      { status: 200, body: { items: 0 } },
      { scenario: { scenarioName: 'cart', requiredScenarioState: 'Started' } },
    )
    await mock.register(
      { method: 'POST', endpoint: '/cart' },
      { status: 201 },
      {
        scenario: {
          scenarioName: 'cart',
          requiredScenarioState: 'Started',
          newScenarioState: 'filled',
        },
      },
    )
    await mock.register(
      { method: 'GET', endpoint: '/cart' },
      { status: 200, body: { items: 1 } },
      { scenario: { scenarioName: 'cart', requiredScenarioState: 'filled' } },
    )

    expect(await (await fetch(`${server.url}/cart`)).json()).toEqual({ items: 0 })
    expect((await fetch(`${server.url}/cart`, { method: 'POST' })).status).toBe(201)
    expect(await (await fetch(`${server.url}/cart`)).json()).toEqual({ items: 1 })
    const scenarios = (await mock.getAllScenarios()) as Array<{
      name: string
      state: string
      possibleStates: string[]
    }>
    expect(scenarios).toHaveLength(1)
    expect(scenarios[0]).toMatchObject({ name: 'cart', state: 'filled' })
    expect(scenarios[0]?.possibleStates.sort()).toEqual(['Started', 'filled'])

    await mock.resetAllScenarios()
    expect(await (await fetch(`${server.url}/cart`)).json()).toEqual({ items: 0 })
  })

  it('finds and removes stubs by metadata', async () => {
    const server = await startWireMockStandIn()
    const mock = new WireMock(server.url)
    const a = (await mock.register(
      { method: 'GET', endpoint: '/a', metadata: { team: 'blue', build: 1 } },
      { status: 200 },
    )) as { id: string }
    const b = (await mock.register(
      { method: 'GET', endpoint: '/b', metadata: { team: 'red' } },
      { status: 200 },
    )) as { id: string }

    const blue = (await mock.findMappingByMetadata(
      { expression: '$.team', equalTo: 'blue' },
      MatchingAttributes.MatchesJsonPath,
    )) as Array<{ id: string }>
    expect(blue.map((m) => m.id)).toEqual([a.id])
    const red = (await mock.findMappingByMetadata(
      { team: 'red' },
      MatchingAttributes.EqualToJson,
    )) as Array<{ id: string }>
    expect(red.map((m) => m.id)).toEqual([b.id])

    await mock.removeMappingByMetadata(
      { expression: '$.team', equalTo: 'blue' },
      MatchingAttributes.MatchesJsonPath,
    )
    expect(((await mock.getAllMappings()) as Array<{ id: string }>).map((m) => m.id)).toEqual([
      b.id,
    ])
    expect((await fetch(`${server.url}/a`)).status).toBe(404)
  })

  it('clears everything, or everything but the defaults served from files', async () => {
    const server = await startWireMockStandIn([], {
      'default.json': JSON.stringify({
        request: { method: 'GET', url: '/default' },
        response: { status: 200, body: 'from file' },
      }),
    })
    const mock = new WireMock(server.url)
    await mock.register({ method: 'GET', endpoint: '/added' }, { status: 200 })
    await fetch(`${server.url}/added`)

    await mock.clearAllExceptDefault()
    // The defaults are listed, as WireMock lists the stubs it loaded from files.
    expect(
      ((await mock.getAllMappings()) as Array<{ request: unknown }>).map((m) => m.request),
    ).toEqual([{ method: 'GET', url: '/default' }])
    expect(await mock.getAllRequests()).toEqual([])
    expect((await fetch(`${server.url}/added`)).status).toBe(404)
    expect(await (await fetch(`${server.url}/default`)).text()).toBe('from file')

    await mock.register({ method: 'GET', endpoint: '/added' }, { status: 200 })
    await mock.clearAll()
    expect(await mock.getAllMappings()).toEqual([])
    expect((await fetch(`${server.url}/added`)).status).toBe(404)
    expect((await fetch(`${server.url}/default`)).status).toBe(404)
    // resetMappings brings back what the files define.
    await mock.resetMappings()
    expect(await (await fetch(`${server.url}/default`)).text()).toBe('from file')
  })
})
