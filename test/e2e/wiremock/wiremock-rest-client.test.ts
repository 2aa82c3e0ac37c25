import { mkdirSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { WireMockRestClient } from 'wiremock-rest-client'
import { startWireMockInProcess, startWireMockStandIn } from '../../helpers/wiremock.js'
import { startUpstream } from '../../helpers/upstream.js'
import { tempDir } from '../../helpers/temp-dir.js'

// wiremock-rest-client 1.11 (npm) driving the runtime as `serve` starts it (in this process; the
// shutdown through a real `understudy serve`) through every service call it has:
// mappings, requests, near misses, scenarios, recordings and the global calls. Without
// `continueOnFailure` the client ends the process on any non-2xx answer; the tests keep it on so
// that a refusal fails an assertion instead of the test run.

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

function clientOf(url: string): WireMockRestClient {
  return new WireMockRestClient(url, { logLevel: 'silent', continueOnFailure: true })
}

const stub = (url: string, body: string, extra: Json = {}): Json => ({
  request: { method: 'GET', url },
  response: { status: 200, body },
  ...extra,
})

describe('wiremock-rest-client against understudy serve', () => {
  it('creates, reads, updates, deletes, saves and resets mappings, also from files', async () => {
    const server = await startWireMockInProcess()
    const wm = clientOf(server.url)
    const created = (await wm.mappings.createMapping(
      stub('/a', 'first', { metadata: { owner: 'ops' } }),
    )) as Json
    expect(created['id']).toMatch(/^[0-9a-f-]{36}$/)
    expect(created['uuid']).toBe(created['id'])
    expect(await (await fetch(`${server.url}/a`)).text()).toBe('first')

    const listed = (await wm.mappings.getAllMappings()) as Json
    expect(listed['meta']).toEqual({ total: 1 })
    expect(listed['mappings'][0]).toEqual(created)
    expect(await wm.mappings.getMapping(created['id'])).toEqual(created)

    const updated = (await wm.mappings.updateMapping(created['id'], stub('/a', 'second'))) as Json
    expect(updated['id']).toBe(created['id'])
    expect(await (await fetch(`${server.url}/a`)).text()).toBe('second')

    const dir = tempDir()
    mkdirSync(join(dir, 'many'))
    writeFileSync(join(dir, 'one.json'), JSON.stringify(stub('/file', 'from file')))
    writeFileSync(join(dir, 'many', 'x.json'), JSON.stringify(stub('/x', 'x')))
    writeFileSync(join(dir, 'many', 'y.json'), JSON.stringify(stub('/y', 'y')))
    await wm.mappings.createMappingFromFile(relative(process.cwd(), join(dir, 'one.json')))
    await Promise.all(
      await wm.mappings.createMappingsFromDir(relative(process.cwd(), join(dir, 'many'))),
    )
    expect(await (await fetch(`${server.url}/file`)).text()).toBe('from file')
    expect(await (await fetch(`${server.url}/y`)).text()).toBe('y')
    expect(((await wm.mappings.getAllMappings()) as Json)['meta']['total']).toBe(4)

    const found = (await wm.mappings.findByMetaData({
      matchesJsonPath: { expression: '$.owner', equalTo: 'ops' },
    } as never)) as Json
    // The update replaced the stub, metadata included.
    expect(found['mappings']).toEqual([])
    await wm.mappings.updateMapping(
      created['id'],
      stub('/a', 'second', { metadata: { owner: 'ops' } }),
    )
    expect(
      (
        (await wm.mappings.findByMetaData({
          matchesJsonPath: { expression: '$.owner', equalTo: 'ops' },
        } as never)) as Json
      )['mappings'],
    ).toHaveLength(1)
    await wm.mappings.removeByMetaData({
      matchesJsonPath: { expression: '$.owner', equalTo: 'ops' },
    } as never)
    expect((await fetch(`${server.url}/a`)).status).toBe(404)

    const fileStub = (((await wm.mappings.getAllMappings()) as Json)['mappings'] as Json[]).find(
      (m) => m['request']['url'] === '/file',
    )
    await wm.mappings.deleteMapping(fileStub?.['id'])
    expect((await fetch(`${server.url}/file`)).status).toBe(404)
    expect(((await wm.mappings.getAllMappings()) as Json)['meta']['total']).toBe(2)

    // Saved stubs survive a reset; unsaved ones do not.
    await wm.mappings.saveAllMappings()
    await wm.mappings.createMapping(stub('/unsaved', 'u'))
    await wm.mappings.resetAllMappings()
    const afterReset = ((await wm.mappings.getAllMappings()) as Json)['mappings'] as Json[]
    expect(afterReset.map((m) => m['request']['url']).sort()).toEqual(['/x', '/y'])
    expect((await fetch(`${server.url}/unsaved`)).status).toBe(404)
    expect(await (await fetch(`${server.url}/x`)).text()).toBe('x')

    await wm.mappings.deleteAllMappings()
    expect(await wm.mappings.getAllMappings()).toEqual({ mappings: [], meta: { total: 0 } })
  })

  it('reads, counts, finds and removes journaled requests, and explains near misses', async () => {
    const server = await startWireMockInProcess()
    const wm = clientOf(server.url)
    const tagged = (await wm.mappings.createMapping({
      request: { method: 'POST', urlPath: '/orders' },
      response: { status: 201 },
      metadata: { suite: 'orders' },
    })) as Json
    await wm.mappings.createMapping(stub('/health', 'ok'))
    await fetch(`${server.url}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"n":1}',
    })
    await fetch(`${server.url}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"n":2}',
    })
    await fetch(`${server.url}/health`)
    await fetch(`${server.url}/ordres`, { method: 'POST' })

    const all = (await wm.requests.getAllRequests()) as Json
    expect(all['meta']).toEqual({ total: 4 })
    expect(all['requestJournalDisabled']).toBe(false)
    const newest = all['requests'][0]
    expect(newest['request']).toMatchObject({ url: '/ordres', method: 'POST' })
    expect(newest['wasMatched']).toBe(false)
    const first = all['requests'][3]
    expect(first['request']).toMatchObject({ url: '/orders', method: 'POST', body: '{"n":1}' })
    expect(first['stubMapping']['id']).toBe(tagged['id'])
    expect(first['response']['status']).toBe(201)
    expect(await wm.requests.getRequest(first['id'])).toEqual(first)

    expect(await wm.requests.getCount({ method: 'POST', urlPath: '/orders' })).toEqual({
      count: 2,
      requestJournalDisabled: false,
    })
    const found = (await wm.requests.findRequests({
      method: 'POST',
      urlPath: '/orders',
      bodyPatterns: [{ equalToJson: '{"n":2}' }],
    } as never)) as Json
    expect(found['requests'].map((r: Json) => r['body'])).toEqual(['{"n":2}'])

    const unmatched = (await wm.requests.getUnmatchedRequests()) as Json
    expect(unmatched['requests'].map((r: Json) => r['url'])).toEqual(['/ordres'])
    const nearMisses = (await wm.requests.getUnmatchedNearMisses()) as Json
    expect(nearMisses['nearMisses'][0]['request']['url']).toBe('/ordres')
    expect(nearMisses['nearMisses'][0]['stubMapping']['id']).toBe(tagged['id'])
    expect(nearMisses['nearMisses'][0]['matchResult']['distance']).toBeGreaterThan(0)
    const byRequest = (await wm.requests.getNearMissesByRequest({
      url: '/order',
      method: 'POST',
    } as never)) as Json
    expect(byRequest['nearMisses'][0]['stubMapping']['id']).toBe(tagged['id'])
    const byPattern = (await wm.requests.getNearMissesByRequestPattern({
      method: 'GET',
      url: '/healthz',
    })) as Json
    expect(byPattern['nearMisses'][0]['request']['url']).toBe('/health')

    await wm.requests.deleteRequest(first['id'])
    expect(((await wm.requests.getAllRequests()) as Json)['meta']['total']).toBe(3)
    expect(await wm.requests.getRequest(first['id'])).toEqual({
      errors: [expect.objectContaining({ title: expect.stringContaining('not found') })],
    })
    const removed = (await wm.requests.removeRequests({ method: 'GET', url: '/health' })) as Json
    expect(removed['serveEvents']).toHaveLength(1)
    await wm.requests.removeRequestsByMetadata({
      matchesJsonPath: { expression: '$.suite', equalTo: 'orders' },
    } as never)
    const left = (await wm.requests.getAllRequests()) as Json
    expect(left['requests'].map((r: Json) => r['request']['url'])).toEqual(['/ordres'])

    await wm.requests.resetAllRequests()
    expect(((await wm.requests.getAllRequests()) as Json)['requests']).toEqual([])
    await fetch(`${server.url}/health`)
    await wm.requests.deleteAllRequests()
    expect(((await wm.requests.getAllRequests()) as Json)['meta']['total']).toBe(0)
  })

  it('lists scenarios, sets and resets their state', async () => {
    const server = await startWireMockInProcess()
    const wm = clientOf(server.url)
    await wm.mappings.createMapping(
      stub('/door', 'closed', { scenarioName: 'door', requiredScenarioState: 'Started' }),
    )
    await wm.mappings.createMapping(
      stub('/door', 'open', { scenarioName: 'door', requiredScenarioState: 'opened' }),
    )
    await wm.mappings.createMapping({
      request: { method: 'POST', url: '/door' },
      response: { status: 204 },
      scenarioName: 'door',
      newScenarioState: 'opened',
    })

    const listed = (await wm.scenarios.getAllScenarios()) as Json
    expect(listed['scenarios']).toHaveLength(1)
    expect(listed['scenarios'][0]).toMatchObject({ id: 'door', name: 'door', state: 'Started' })
    expect(listed['scenarios'][0]['possibleStates'].sort()).toEqual(['Started', 'opened'])

    await wm.scenarios.setScenarioState('door', 'opened')
    expect(await (await fetch(`${server.url}/door`)).text()).toBe('open')
    await wm.scenarios.resetScenario('door')
    expect(await (await fetch(`${server.url}/door`)).text()).toBe('closed')
    await fetch(`${server.url}/door`, { method: 'POST' })
    expect(await (await fetch(`${server.url}/door`)).text()).toBe('open')
    await wm.scenarios.resetAllScenarios()
    expect(await (await fetch(`${server.url}/door`)).text()).toBe('closed')

    expect(await wm.scenarios.setScenarioState('door', 'ajar')).toMatchObject({
      errors: [{ source: { pointer: '/state' } }],
    })
    expect(await wm.scenarios.setScenarioState('window', 'open')).toMatchObject({
      errors: [{ title: expect.stringContaining('window') }],
    })
  })

  it('records a live system into stubs, and snapshots the journal', async () => {
    const upstream = await startUpstream((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'x-live': 'yes' })
      res.end(`live ${req.url}`)
    })
    const server = await startWireMockInProcess()
    const wm = clientOf(server.url)
    expect(await wm.recordings.getRecordingStatus()).toEqual({ status: 'NeverStarted' })
    await wm.recordings.startRecording({ targetBaseUrl: upstream.url } as never)
    expect(await wm.recordings.getRecordingStatus()).toEqual({ status: 'Recording' })
    expect(await (await fetch(`${server.url}/weather?city=oslo`)).text()).toBe(
      'live /weather?city=oslo',
    )
    const stopped = (await wm.recordings.stopRecording()) as Json
    expect(await wm.recordings.getRecordingStatus()).toEqual({ status: 'Stopped' })
    expect(stopped['mappings']).toHaveLength(1)
    expect(stopped['mappings'][0]['request']).toEqual({ url: '/weather?city=oslo', method: 'GET' })
    expect(stopped['mappings'][0]['response']).toMatchObject({
      status: 200,
      body: 'live /weather?city=oslo',
      headers: { 'x-live': 'yes' },
    })

    // Played back without the live system.
    await upstream.close()
    const replay = await fetch(`${server.url}/weather?city=oslo`)
    expect(await replay.text()).toBe('live /weather?city=oslo')
    expect(replay.headers.get('x-live')).toBe('yes')
    expect(((await wm.mappings.getAllMappings()) as Json)['meta']['total']).toBe(1)

    const snapshot = (await wm.recordings.takeSnapshotRecording({
      persist: false,
    } as never)) as Json
    expect(snapshot['mappings'].map((m: Json) => m['request']['url'])).toEqual([
      '/weather?city=oslo',
    ])
    expect(((await wm.mappings.getAllMappings()) as Json)['meta']['total']).toBe(1)
  })

  it('sets a global delay, resets everything, and refuses a shutdown it was not allowed', async () => {
    const server = await startWireMockInProcess()
    const wm = clientOf(server.url)
    await wm.mappings.createMapping(stub('/t', 'timed'))
    await wm.global.updateGlobalSettings({ fixedDelay: 300 })
    const started = Date.now()
    expect(await (await fetch(`${server.url}/t`)).text()).toBe('timed')
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
    await wm.global.updateGlobalSettings({ fixedDelay: 0 })

    await wm.global.resetAll()
    expect(((await wm.mappings.getAllMappings()) as Json)['mappings']).toEqual([])
    expect(((await wm.requests.getAllRequests()) as Json)['requests']).toEqual([])

    expect(await wm.global.shutdown()).toMatchObject({
      errors: [{ title: expect.stringContaining('--wiremock-shutdown') }],
    })
    expect((await fetch(`${server.url}/__admin/health`)).status).toBe(200)
  })

  it('shuts the runtime down when started with --wiremock-shutdown', async () => {
    const server = await startWireMockStandIn(['--wiremock-shutdown'])
    await clientOf(server.url).global.shutdown()
    const exit = await server.stop('SIGCONT')
    expect(exit.code).toBe(0)
  })
})
