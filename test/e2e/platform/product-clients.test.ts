import { readFileSync } from 'node:fs'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LocalDeployer } from '../../../src/deploy/index.js'
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js'
import { envelope, expectError, foreignWorkspace, formOf } from './catalog-helpers.js'
import { startCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { untilTrackingEnds } from '../../helpers/tracking.js'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

/*
 * The flows of clients written for the product, request by request as they send them.
 */

const b64 = (text: string): string => Buffer.from(text).toString('base64')
/** `${config.KEY}`, the placeholder configuration values fill. */
const placeholder = (key: string): string => '$' + `{config.${key}}`
const exported = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '../../unit/fixtures/product-export.json'), 'utf8'),
) as { transactions: Array<{ name: string; dsl: unknown }> }

async function catalog(platform: TestPlatform) {
  const ws = `/api/v1/workspaces/${platform.workspaceId}`
  const service = await envelope<{ id: number }>(
    await platform.request(`${ws}/services`, { method: 'POST', json: { name: 'orders' } }),
  )
  const serviceId = service.result.id
  const created = await envelope<Array<{ id: number }>>(
    await platform.request(`${ws}/transactions?serviceId=${serviceId}`, {
      method: 'POST',
      json: {
        transactions: [
          {
            name: 'list',
            dsl: {
              requestDsl: { method: 'GET', path: '/orders' },
              responseDsl: { status: 200, content: b64('[]'), contentType: 'json' },
            },
          },
          {
            name: 'one',
            dsl: {
              requestDsl: { method: 'GET', path: '/orders/1' },
              responseDsl: { status: 200, content: b64('{"id":1}'), contentType: 'json' },
            },
          },
          { name: exported.transactions[0]?.name, dsl: exported.transactions[0]?.dsl },
        ],
      },
    }),
  )
  expect(created.error).toBeNull()
  return { ws, serviceId, ids: created.result.map((t) => t.id) }
}

async function settled(platform: TestPlatform, trackingId: string): Promise<string> {
  return await untilTrackingEnds(
    async () =>
      (
        await envelope<{ status: string }>(
          await platform.request(`/api/v1/trackings/${trackingId}`),
        )
      ).result.status,
  )
}

describe('clients of the product', () => {
  it(
    'create with ?serviceId, PATCH include/exclude, deploy by GET, poll, call endpoints[0]',
    { timeout: 60_000 },
    async () => {
      const platform = await startTestPlatform({
        deployer: (deps, dataDir) =>
          new LocalDeployer({ store: deps.store, dataDir, log: deps.log }),
      })
      const { ws, serviceId, ids } = await catalog(platform)
      const [list, one, every] = ids as [number, number, number]
      const createdRes = await platform.request(`${ws}/service-mocks?serviceId=${serviceId}`, {
        method: 'POST',
        json: { name: 'orders mock', mockServiceTransactions: [{ txnId: list, priority: 1 }] },
      })
      expect(createdRes.status).toBe(201)
      const created = await envelope<Record<string, unknown> & { id: number }>(createdRes)
      expect(created.result).toMatchObject({
        serviceId,
        httpRunnerEnabled: true,
        endpoints: [],
        harborId: 'harbor-local',
        shipId: 'ship-local',
        configurationId: null,
        proxy: null,
        brokerConfig: null,
        assets: [],
        mockServiceTransactions: [{ txnId: list, priority: 1, destinations: [] }],
      })
      const path = `${ws}/service-mocks/${created.result.id}`

      const included = await envelope<{ mockServiceTransactions: unknown[] }>(
        await platform.request(path, { method: 'PATCH', json: { includeIds: [one, every] } }),
      )
      expect(included.result.mockServiceTransactions).toEqual([
        { txnId: list, priority: 1, destinations: [] },
        { txnId: one, priority: null, destinations: [] },
        { txnId: every, priority: null, destinations: [] },
      ])
      const excluded = await envelope<{ mockServiceTransactions: Array<{ txnId: number }> }>(
        await platform.request(path, { method: 'PATCH', json: { excludeIds: [list] } }),
      )
      expect(excluded.result.mockServiceTransactions.map((e) => e.txnId)).toEqual([one, every])
      await expectError(
        await platform.request(path, { method: 'PATCH', json: { excludeIds: [list] } }),
        400,
        'ERR_API_VALIDATION',
        '/excludeIds',
      )
      await expectError(
        await platform.request(path, { method: 'PATCH', json: { configurationId: 5 } }),
        400,
        'ERR_API_VALIDATION',
        '/configurationId',
      )
      await expectError(
        await platform.request(path, {
          method: 'PATCH',
          json: { proxy: { host: 'proxy.local', port: 3128 } },
        }),
        400,
        'ERR_API_VALIDATION',
      )
      // the record sent back as read changes nothing
      const asRead = (await envelope<Record<string, unknown>>(await platform.request(path))).result
      expect((await platform.request(path, { method: 'PUT', json: asRead })).status).toBe(201)

      const tracking = await envelope<{ trackingId: string }>(
        await platform.request(`${path}/deploy`),
      )
      expect(await settled(platform, tracking.result.trackingId)).toBe('FINISHED')
      const record = await envelope<{
        endpoints: Array<{ endpoint: string }>
        httpEndpoint: string
      }>(await platform.request(path))
      expect(record.result.endpoints[0]?.endpoint).toBe(record.result.httpEndpoint)
      const endpoint = record.result.endpoints[0]?.endpoint ?? ''
      expect(await (await fetch(`${endpoint}/orders/1`)).json()).toEqual({ id: 1 })
      expect((await fetch(`${endpoint}/orders`)).status).toBe(404)
      const order = (id: string): string =>
        `<p:order xmlns:p="urn:orders"><p:id>${id}</p:id></p:order>`
      expect(
        (
          await fetch(`${endpoint}/orders`, {
            method: 'POST',
            headers: { 'content-type': 'application/xml' },
            body: order('7'),
          })
        ).status,
      ).toBe(201)
      expect(
        (
          await fetch(`${endpoint}/orders`, {
            method: 'POST',
            headers: { 'content-type': 'application/xml' },
            body: order('9'),
          })
        ).status,
      ).toBe(409)
    },
  )

  it(
    'proxy: the live pass-through of a deployed mock service goes through the outbound proxy it names',
    { timeout: 60_000 },
    async () => {
      const upstream = createServer((req, res) => {
        res.end(`upstream saw ${req.method ?? ''} ${req.url ?? ''}`)
      })
      const seen: Array<{ url: string; auth: string | undefined }> = []
      const forwardProxy = createServer((req, res) => {
        seen.push({ url: req.url ?? '', auth: req.headers['proxy-authorization'] })
        if (req.headers['proxy-authorization'] !== `Basic ${b64('ada:s3cret')}`) {
          res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end()
          return
        }
        const target = new URL(req.url ?? '')
        const headers = { ...req.headers }
        delete headers['proxy-authorization']
        req.pipe(
          httpRequest(target, { method: req.method, headers }, (up) => {
            res.writeHead(up.statusCode ?? 502, { ...up.headers, 'x-via-test-proxy': '1' })
            up.pipe(res)
          }).on('error', () => res.writeHead(502).end()),
        )
      })
      const listen = async (server: Server): Promise<number> =>
        new Promise((resolve) =>
          server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
        )
      const upstreamPort = await listen(upstream)
      const proxyPort = await listen(forwardProxy)
      const platform = await startTestPlatform({
        deployer: (deps, dataDir) =>
          new LocalDeployer({ store: deps.store, dataDir, log: deps.log }),
      })
      try {
        const ws = `/api/v1/workspaces/${platform.workspaceId}`
        const service = await envelope<{ id: number }>(
          await platform.request(`${ws}/services`, { method: 'POST', json: { name: 'live' } }),
        )
        const txn = await envelope<{ id: number }>(
          await platform.request(`${ws}/transactions?serviceId=${service.result.id}`, {
            method: 'POST',
            json: {
              name: 'pass',
              dsl: {
                requestDsl: { method: 'GET', path: '/pass' },
                responseDsl: { status: 200, proxyUrl: `http://127.0.0.1:${upstreamPort}/base` },
              },
            },
          }),
        )
        const mock = await envelope<{ id: number }>(
          await platform.request(`${ws}/service-mocks?serviceId=${service.result.id}`, {
            method: 'POST',
            json: {
              name: 'live mock',
              mockServiceTransactions: [txn.result.id],
              noMatchingRequestPreference: 'bypasslive',
              liveSystemHost: '127.0.0.1',
              liveSystemPort: upstreamPort,
            },
          }),
        )
        const path = `${ws}/service-mocks/${mock.result.id}`
        const settings = {
          proxyUrl: `http://127.0.0.1:${proxyPort}`,
          nonProxyHosts: 'localhost|*.internal',
          username: 'ada',
          password: 's3cret',
          certificateId: null,
        }
        const patched = await envelope<{ proxy: unknown }>(
          await platform.request(path, { method: 'PATCH', json: { proxy: settings } }),
        )
        expect(patched.error).toBeNull()
        expect(patched.result.proxy).toEqual({ ...settings, password: '********' })

        const deployed = await envelope<{ trackingId: string }>(
          await platform.request(`${path}/deploy`),
        )
        expect(await settled(platform, deployed.result.trackingId)).toBe('FINISHED')
        const endpoint =
          (await envelope<{ endpoints: Array<{ endpoint: string }> }>(await platform.request(path)))
            .result.endpoints[0]?.endpoint ?? ''
        const passed = await fetch(`${endpoint}/pass?q=1`)
        expect(await passed.text()).toBe('upstream saw GET /base/pass?q=1')
        expect(passed.headers.get('x-via-test-proxy')).toBe('1')
        const live = await fetch(`${endpoint}/not-a-transaction`)
        expect(await live.text()).toBe('upstream saw GET /not-a-transaction')
        expect(seen.map((s) => s.url)).toEqual([
          `http://127.0.0.1:${upstreamPort}/base/pass?q=1`,
          `http://127.0.0.1:${upstreamPort}/not-a-transaction`,
        ])
        expect(seen.every((s) => s.auth === `Basic ${b64('ada:s3cret')}`)).toBe(true)

        // the record sent back as read (password masked) keeps the password
        const asRead = (await envelope<Record<string, unknown>>(await platform.request(path)))
          .result
        expect((await platform.request(path, { method: 'PUT', json: asRead })).status).toBe(201)
        const configured = await envelope<{ trackingId: string }>(
          await platform.request(`${path}/configure`),
        )
        expect(await settled(platform, configured.result.trackingId)).toBe('FINISHED')
        expect((await fetch(`${endpoint}/pass`)).headers.get('x-via-test-proxy')).toBe('1')

        // a host in nonProxyHosts is reached directly
        await platform.request(path, {
          method: 'PATCH',
          json: {
            proxy: { ...settings, password: '********', nonProxyHosts: 'localhost|127.0.0.*' },
          },
        })
        expect(
          await settled(
            platform,
            (await envelope<{ trackingId: string }>(await platform.request(`${path}/configure`)))
              .result.trackingId,
          ),
        ).toBe('FINISHED')
        const direct = await fetch(`${endpoint}/pass`)
        expect(direct.headers.get('x-via-test-proxy')).toBeNull()
        expect(seen).toHaveLength(3)

        // what cannot be applied is refused naming the field; nothing changes
        await expectError(
          await platform.request(path, {
            method: 'PATCH',
            json: { proxy: { ...settings, certificateId: 12 } },
          }),
          400,
          'ERR_API_VALIDATION',
          '/proxy/certificateId',
        )
        await expectError(
          await platform.request(path, {
            method: 'PATCH',
            json: { proxy: { proxyUrl: 'ftp://proxy' } },
          }),
          400,
          'ERR_API_VALIDATION',
          '/proxy/proxyUrl',
        )
        expect(
          (await envelope<{ proxy: { nonProxyHosts: string } }>(await platform.request(path)))
            .result.proxy.nonProxyHosts,
        ).toBe('localhost|127.0.0.*')
        // null clears it
        expect(
          (
            await envelope<{ proxy: unknown }>(
              await platform.request(path, { method: 'PATCH', json: { proxy: null } }),
            )
          ).result.proxy,
        ).toBeNull()
      } finally {
        await platform.close()
        upstream.close()
        forwardProxy.close()
      }
    },
  )

  it('takes back with PUT a transaction exactly as GET gave it, changing nothing', async () => {
    const platform = await startTestPlatform()
    const { ws, ids } = await catalog(platform)
    const path = `${ws}/transactions/${ids[2] ?? 0}`
    const read = (
      await envelope<Record<string, unknown> & { dsl: Record<string, unknown> }>(
        await platform.request(path),
      )
    ).result
    expect(read.dsl).toMatchObject({ type: 'HTTP', statusCodeConditions: [{ status: 409 }] })
    const put = await platform.request(path, { method: 'PUT', json: read })
    expect(put.status).toBe(201)
    const again = (await envelope<Record<string, unknown>>(await platform.request(path))).result
    expect({ ...again, updated: read['updated'] }).toEqual(read)

    // every transaction of the product's export (every DSL field of the product) round-trips too
    const service = await envelope<{ id: number }>(
      await platform.request(`${ws}/services`, { method: 'POST', json: { name: 'export' } }),
    )
    const created = await envelope<Array<{ id: number }>>(
      await platform.request(`${ws}/transactions?serviceId=${service.result.id}`, {
        method: 'POST',
        json: { transactions: exported.transactions.map((t) => ({ name: t.name, dsl: t.dsl })) },
      }),
    )
    expect(created.result).toHaveLength(exported.transactions.length)
    for (const { id } of created.result) {
      const one = (
        await envelope<Record<string, unknown>>(await platform.request(`${ws}/transactions/${id}`))
      ).result
      expect(
        (await platform.request(`${ws}/transactions/${id}`, { method: 'PUT', json: one })).status,
      ).toBe(201)
      const after = (
        await envelope<Record<string, unknown>>(await platform.request(`${ws}/transactions/${id}`))
      ).result
      expect({ ...after, updated: one['updated'] }).toEqual(one)
    }
  })

  it('sandbox: matches without deploying, and explains a mismatch in words', async () => {
    const platform = await startTestPlatform()
    const { ws, serviceId, ids } = await catalog(platform)
    const sample = await envelope<{ httpRequest: { method: string; path: string } }>(
      await platform.request(`${ws}/sandbox?transactionId=${ids[1] ?? 0}`),
    )
    expect(sample.result.httpRequest).toMatchObject({ method: 'GET', path: '/orders/1' })

    const hit = await envelope<{
      status: number
      body: string
      headers: Array<{ name: string; value: string }>
      matchingLog: unknown[]
    }>(
      await platform.request(`${ws}/sandbox/test-request?transactionId=${ids[1] ?? 0}`, {
        method: 'POST',
        json: {
          httpRequest: {
            method: 'GET',
            path: '/orders/1',
            queryParameters: [],
            headers: [{ name: 'Accept', value: 'application/json' }],
            content: '',
          },
        },
      }),
    )
    expect(hit.result.status).toBe(200)
    expect(Buffer.from(hit.result.body, 'base64').toString()).toBe('{"id":1}')
    expect(hit.result.headers).toContainEqual({ name: 'Content-Type', value: 'application/json' })
    expect(hit.result.matchingLog).toEqual([])

    const miss = await envelope<{ status: number; matchingLog: Array<{ t: number; m: string }> }>(
      await platform.request(`${ws}/sandbox/test-request`, {
        method: 'POST',
        json: { transactionId: ids[1], httpRequest: { method: 'POST', path: '/orders/1' } },
      }),
    )
    expect(miss.result.status).toBe(404)
    expect(miss.result.matchingLog.map((e) => e.m)).toEqual([
      'Request method POST did not match GET',
    ])

    const byService = await envelope<{ status: number; statusMessage: string }>(
      await platform.request(`${ws}/sandbox/test-request?serviceId=${serviceId}`, {
        method: 'POST',
        json: {
          httpRequest: {
            method: 'POST',
            path: '/orders',
            headers: [{ name: 'Content-Type', value: 'text/xml' }],
            content: b64('<p:order xmlns:p="urn:orders"><p:id>9</p:id></p:order>'),
          },
        },
      }),
    )
    expect(byService.result).toMatchObject({ status: 409, statusMessage: 'Conflict' })
    // naming no transaction tests against the sandbox opened by the GET above
    const opened = await envelope<{ transactionId: number; status: number }>(
      await platform.request(`${ws}/sandbox/test-request`, {
        method: 'POST',
        json: { httpRequest: { method: 'GET', path: '/orders/1' } },
      }),
    )
    expect(opened.result).toMatchObject({ transactionId: ids[1], status: 200 })
  })

  it('sandbox: matches_xml_schema validates with libxml2; an invalid XSD is refused at load naming the field', async () => {
    const platform = await startTestPlatform()
    const { ws, serviceId } = await catalog(platform)
    const xsd =
      '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="pay"><xs:complexType><xs:sequence>' +
      '<xs:element name="amount"><xs:simpleType><xs:restriction base="xs:decimal"><xs:fractionDigits value="2"/><xs:maxExclusive value="1000"/></xs:restriction></xs:simpleType></xs:element>' +
      '</xs:sequence><xs:attribute name="currency" type="xs:language" use="required"/></xs:complexType></xs:element></xs:schema>'
    const txn = (schema: string) => ({
      name: 'pay',
      dsl: {
        requestDsl: {
          method: 'POST',
          path: '/pay',
          body: [{ matcherName: 'matches_xml_schema', matchingValue: schema }],
        },
        responseDsl: { status: 202, content: b64('accepted') },
      },
    })
    const created = await envelope<{ id: number }>(
      await platform.request(`${ws}/transactions?serviceId=${serviceId}`, {
        method: 'POST',
        json: txn(xsd),
      }),
    )
    expect(created.error).toBeNull()
    const id = created.result.id
    const test = async (body: string) =>
      envelope<{ status: number; matchingLog: Array<{ m: string }> }>(
        await platform.request(`${ws}/sandbox/test-request`, {
          method: 'POST',
          json: {
            transactionId: id,
            httpRequest: { method: 'POST', path: '/pay', content: b64(body) },
          },
        }),
      )
    const ok = await test('<pay currency="en"><amount>12.50</amount></pay>')
    expect(ok.error).toBeNull()
    expect(ok.result).toMatchObject({ status: 202, matchingLog: [] })
    const miss = await test('<pay currency="en"><amount>1000</amount></pay>')
    expect(miss.result.status).toBe(404)
    expect(miss.result.matchingLog.map((e) => e.m)).toEqual([
      expect.stringMatching(
        /^Request body does not validate against the XML schema: .*maxExclusive/,
      ),
    ])

    const refused = await platform.request(`${ws}/transactions?serviceId=${serviceId}`, {
      method: 'POST',
      json: txn(xsd.replace('xs:decimal', 'xs:money')),
    })
    const body = await expectError(refused, 400, 'ERR_DSL_INVALID')
    expect(JSON.stringify(body.error)).toContain('requestDsl/body/0/matchingValue')
    expect(JSON.stringify(body.error)).toContain('is not a usable XML Schema')
  })

  it('lists the local location, with paging', async () => {
    const platform = await startTestPlatform()
    for (const limit of ['-1', '0', '100000']) {
      const res = await envelope<Array<Record<string, unknown>>>(
        await platform.request(
          `/api/v1/workspaces/${platform.workspaceId}/locations?limit=${limit}&skip=0`,
        ),
      )
      expect(res.total).toBe(1)
      expect(res.result[0]).toMatchObject({
        harborId: 'harbor-local',
        shipId: 'ship-local',
        kubernetes: false,
        metadata: { portRange: expect.stringMatching(/^\d+-\d+$/) },
      })
    }
  })

  it(
    "exports a mock service's transactions as a file, which re-imports into a new service and serves the same answers",
    { timeout: 60_000 },
    async () => {
      const platform = await startTestPlatform({
        deployer: (deps, dataDir) =>
          new LocalDeployer({ store: deps.store, dataDir, log: deps.log }),
      })
      const { ws, serviceId, ids } = await catalog(platform)
      const mock = await envelope<{ id: number }>(
        await platform.request(`${ws}/service-mocks`, {
          method: 'POST',
          json: { serviceId, name: 'm', mockServiceTransactions: [ids[1], ids[2]] },
        }),
      )
      const res = await platform.request(
        `${ws}/transactions?serviceMockId=${mock.result.id}&exportAsFile=true&type=GENERIC_DSL&limit=-1`,
      )
      expect(res.status).toBe(200)
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.json"$/)
      const text = await res.text()
      const doc = JSON.parse(text) as {
        transactions: Array<{ id: number; name: string; dsl: { statusCodeConditions?: unknown } }>
      }
      expect(doc.transactions.map((t) => t.id).sort()).toEqual([ids[1], ids[2]].sort())
      expect(doc.transactions.find((t) => t.id === ids[2])?.dsl.statusCodeConditions).toBeDefined()
      await expectError(
        await platform.request(`${ws}/transactions?exportAsFile=true&type=HAR_DSL`),
        400,
        'ERR_API_VALIDATION',
        '/type',
      )

      const other = await envelope<{ id: number }>(
        await platform.request(`${ws}/services`, { method: 'POST', json: { name: 'copy' } }),
      )
      const upload = await platform.request(`${ws}/transactions`, {
        method: 'POST',
        body: formOf({ serviceId: String(other.result.id) }, [
          { name: 'export.json', bytes: text, type: 'application/json' },
        ]),
      })
      const uploaded = await envelope<Array<{ name: string; dsl: unknown }>>(upload)
      expect(upload.status).toBe(200)
      expect(uploaded.result.map((t) => t.name).sort()).toEqual(
        doc.transactions.map((t) => t.name).sort(),
      )
      for (const t of uploaded.result) {
        expect(t.dsl).toEqual(doc.transactions.find((d) => d.name === t.name)?.dsl)
      }

      // a mock service of the re-imported service, deployed beside the original: the same answers
      const copyIds = (uploaded.result as unknown as Array<{ id: number }>).map((t) => t.id)
      const copyMock = await envelope<{ id: number }>(
        await platform.request(`${ws}/service-mocks?serviceId=${other.result.id}`, {
          method: 'POST',
          json: { name: 'm copy', mockServiceTransactions: copyIds },
        }),
      )
      const endpoints: string[] = []
      for (const id of [mock.result.id, copyMock.result.id]) {
        const deployed = await envelope<{ trackingId: string }>(
          await platform.request(`${ws}/service-mocks/${id}/deploy`),
        )
        expect(await settled(platform, deployed.result.trackingId)).toBe('FINISHED')
        endpoints.push(
          (
            await envelope<{ endpoints: Array<{ endpoint: string }> }>(
              await platform.request(`${ws}/service-mocks/${id}`),
            )
          ).result.endpoints[0]?.endpoint ?? '',
        )
      }
      const xmlOrder = (id: string) => ({
        method: 'POST',
        headers: { 'content-type': 'application/xml' },
        body: `<p:order xmlns:p="urn:orders"><p:id>${id}</p:id></p:order>`,
      })
      const probes: Array<[string, RequestInit]> = [
        ['/orders/1', {}],
        ['/orders', xmlOrder('7')],
        ['/orders', xmlOrder('9')],
        ['/orders', { method: 'PUT', body: '<order><id>3</id></order>' }],
      ]
      const answersOf = async (endpoint: string) =>
        Promise.all(
          probes.map(async ([path, init]) => {
            const answer = await fetch(endpoint + path, init)
            // the copies have ids of their own: the near-miss diagnosis of a 404 names them
            return {
              status: answer.status,
              statusText: answer.statusText,
              type: answer.headers.get('content-type'),
              body: (await answer.text()).replace(/"transactionId":\d+/g, '"transactionId":N'),
            }
          }),
        )
      const [original, reimported] = await Promise.all(endpoints.map(answersOf))
      expect(original?.map((a) => a.status)).toEqual([200, 201, 409, 404])
      expect(reimported).toEqual(original)

      // the same file, served as is, answers as the mock service would
      const dir = tempDir()
      writeFileSync(join(dir, 'export.json'), text)
      const server = await startCli(['serve', join(dir, 'export.json'), '--port', '0'])
      expect(await (await fetch(`${server.url}/orders/1`)).json()).toEqual({ id: 1 })
      const order = '<p:order xmlns:p="urn:orders"><p:id>9</p:id></p:order>'
      expect(
        (
          await fetch(`${server.url}/orders`, {
            method: 'POST',
            headers: { 'content-type': 'application/xml' },
            body: order,
          })
        ).status,
      ).toBe(409)
    },
  )

  it('clones a service with findAndReplace; the tracking finishes with the new service', async () => {
    const platform = await startTestPlatform()
    const { ws, serviceId } = await catalog(platform)
    const res = await platform.request(`${ws}/services/clone`, {
      method: 'POST',
      json: {
        serviceId,
        name: 'orders v2',
        findAndReplace: [
          { find: '/orders', replace: '/v2/orders' },
          { find: '"id":1', replace: '"id":2' },
        ],
      },
    })
    const tracking = await envelope<{ trackingId: string; trackingUrl: string }>(res)
    expect(res.status).toBe(200)
    const polled = await envelope<{ status: string; data: { values: number[] } }>(
      await platform.request(tracking.result.trackingUrl),
    )
    expect(polled.result.status).toBe('FINISHED')
    const newServiceId = polled.result.data.values[0] ?? 0
    const copies = await envelope<
      Array<{ dsl: { requestDsl: { path?: string }; responseDsl: { content?: string } } }>
    >(await platform.request(`${ws}/transactions?serviceId=${newServiceId}&limit=0`))
    expect(copies.total).toBe(3)
    expect(copies.result.map((t) => t.dsl.requestDsl.path).sort()).toEqual([
      '/v2/orders',
      '/v2/orders',
      '/v2/orders/1',
    ])
    expect(
      copies.result.map((t) => Buffer.from(t.dsl.responseDsl.content ?? '', 'base64').toString()),
    ).toContain('{"id":2}')
    await expectError(
      await platform.request(`${ws}/services/clone`, {
        method: 'POST',
        json: { serviceId, name: 'orders v2' },
      }),
      409,
      'ERR_API_CONFLICT',
      '/name',
    )
    await expectError(
      await platform.request(`${ws}/services/clone`, {
        method: 'POST',
        json: { serviceId, name: 'broken', findAndReplace: [{ find: '[0-9]+', replace: '(' }] },
      }),
      400,
      'ERR_API_VALIDATION',
      '/findAndReplace',
    )
    // a clone tracking of another account's workspace is unknown here
    const foreign = await foreignWorkspace(platform)
    await platform.store.write(async (tx) =>
      tx.cloneTrackings.create({
        trackingId: 'theirs',
        workspaceId: foreign,
        serviceId: 1,
        createdBy: null,
      }),
    )
    await expectError(await platform.request('/api/v1/trackings/theirs'), 404, 'ERR_API_NOT_FOUND')
  })

  it("keeps a clone's tracking across a platform restart", { timeout: 60_000 }, async () => {
    const key = { id: 'clone-key', secret: 'clone-secret-0123456789' }
    const auth = {
      authorization: `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`,
    }
    const env = { UNDERSTUDY_API_KEY_ID: key.id, UNDERSTUDY_API_KEY_SECRET: key.secret }
    const dataDir = tempDir('understudy-clone-restart-')
    const args = ['platform', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn']
    const call = async (
      base: string,
      path: string,
      init: { method?: string; json?: unknown } = {},
    ) => {
      const res = await fetch(base + path, {
        method: init.method ?? 'GET',
        headers: { ...auth, 'content-type': 'application/json' },
        ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
      })
      return {
        status: res.status,
        body: (await res.json()) as {
          error: unknown
          result: Record<string, unknown> & { trackingUrl: string; data: { values: number[] } }
        },
      }
    }
    let platform = await startCli(args, { env })
    try {
      const user = await call(platform.url, '/api/v4/user')
      const workspaces = await fetch(
        `${platform.url}/api/v4/workspaces?accountId=${String(user.body.result['accountId'])}`,
        { headers: auth },
      )
      const ws = `/api/v1/workspaces/${((await workspaces.json()) as { result: Array<{ id: number }> }).result[0]?.id ?? 0}`
      const service = await call(platform.url, `${ws}/services`, {
        method: 'POST',
        json: { name: 'orders' },
      })
      const cloned = await call(platform.url, `${ws}/services/clone`, {
        method: 'POST',
        json: { serviceId: service.body.result['id'], name: 'orders copy' },
      })
      expect(cloned.status).toBe(200)
      const before = await call(platform.url, cloned.body.result.trackingUrl)
      expect(before.body.result).toMatchObject({ status: 'FINISHED', action: 'clone' })

      expect((await platform.stop()).code).toBe(0)
      platform = await startCli(args, { env })
      const after = await call(platform.url, cloned.body.result.trackingUrl)
      expect(after.status).toBe(200)
      expect(after.body.result).toEqual(before.body.result)
      const copy = await call(
        platform.url,
        `${ws}/services/${after.body.result.data.values[0] ?? 0}`,
      )
      expect(copy.body.result['name']).toBe('orders copy')
      expect((await call(platform.url, '/api/v1/trackings/no-such-tracking')).status).toBe(404)
    } finally {
      await platform.stop()
    }
  })

  it('answers JSON envelopes: 404 for unknown /api/v1 routes, 405 for a known path with the wrong method', async () => {
    const platform = await startTestPlatform()
    await expectError(await platform.request('/api/v1/no-such-thing'), 404, 'ERR_API_NOT_FOUND')
    await expectError(
      await platform.request(`/api/v1/workspaces/${platform.workspaceId}/sandbox`, {
        method: 'DELETE',
      }),
      405,
      'ERR_API_METHOD_NOT_ALLOWED',
    )
    for (const limit of ['-1', '0', '1000000']) {
      const list = await envelope<unknown[]>(
        await platform.request(
          `/api/v1/workspaces/${platform.workspaceId}/services?limit=${limit}`,
        ),
      )
      expect(list.error).toBeNull()
      expect(list.total).toBe(0)
    }
  })

  it(
    'configurations: list, get, create, update; their values reach the responses of the mock service using one',
    { timeout: 60_000 },
    async () => {
      const platform = await startTestPlatform({
        deployer: (deps, dataDir) =>
          new LocalDeployer({ store: deps.store, dataDir, log: deps.log }),
      })
      const { ws, serviceId } = await catalog(platform)
      const txn = await envelope<{ id: number }>(
        await platform.request(`${ws}/transactions?serviceId=${serviceId}`, {
          method: 'POST',
          json: {
            transactions: [
              {
                name: 'hello',
                dsl: {
                  requestDsl: { method: 'GET', path: '/hello' },
                  responseDsl: {
                    status: 200,
                    headers: [{ name: 'X-Env', value: placeholder('ENV') }],
                    content: b64(`hello ${placeholder('GREETING')}`),
                    contentType: 'text',
                  },
                },
              },
            ],
          },
        }),
      )
      const configs = `${ws}/service-mock-configurations`
      const createdRes = await platform.request(configs, {
        method: 'POST',
        json: {
          name: 'qa',
          configurationMap: {
            GREETING: { type: 'STRING', value: 'world' },
            ENV: { type: 'STRING', value: 'qa' },
          },
        },
      })
      expect(createdRes.status).toBe(201)
      const config = await envelope<{
        id: number
        name: string
        configurationMap: Record<string, { value: string }>
      }>(createdRes)
      expect(config.result).toMatchObject({
        name: 'qa',
        configurationMap: { GREETING: { type: 'STRING', value: 'world' } },
      })
      await expectError(
        await platform.request(configs, {
          method: 'POST',
          json: { name: 'qa', configurationMap: {} },
        }),
        409,
        'ERR_API_CONFLICT',
        '/name',
      )
      await expectError(
        await platform.request(configs, {
          method: 'POST',
          json: { name: 'bad', configurationMap: { X: { type: 'STRING' } } },
        }),
        400,
        'ERR_API_VALIDATION',
        '/configurationMap/X/value',
      )
      const updated = await envelope<{ configurationMap: Record<string, { value: string }> }>(
        await platform.request(`${configs}/${config.result.id}`, {
          method: 'PUT',
          json: {
            configurationMap: {
              GREETING: { type: 'STRING', value: 'there' },
              ENV: { type: 'STRING', value: 'qa' },
            },
          },
        }),
      )
      expect(updated.result.configurationMap['GREETING']?.value).toBe('there')
      const listed = await envelope<unknown[]>(await platform.request(`${configs}?limit=-1`))
      expect(listed.total).toBe(1)
      expect(
        (await envelope<{ name: string }>(await platform.request(`${configs}/${config.result.id}`)))
          .result.name,
      ).toBe('qa')

      const mock = await envelope<{ id: number }>(
        await platform.request(`${ws}/service-mocks?serviceId=${serviceId}`, {
          method: 'POST',
          json: { name: 'with config', mockServiceTransactions: [txn.result.id] },
        }),
      )
      const path = `${ws}/service-mocks/${mock.result.id}`
      await expectError(
        await platform.request(path, { method: 'PATCH', json: { configurationId: 999 } }),
        400,
        'ERR_API_VALIDATION',
        '/configurationId',
      )
      const patched = await envelope<{ configurationId: number }>(
        await platform.request(path, {
          method: 'PATCH',
          json: { configurationId: config.result.id },
        }),
      )
      expect(patched.result.configurationId).toBe(config.result.id)
      const tracking = await envelope<{ trackingId: string }>(
        await platform.request(`${path}/deploy`),
      )
      expect(await settled(platform, tracking.result.trackingId)).toBe('FINISHED')
      const record = await envelope<{ endpoints: Array<{ endpoint: string }> }>(
        await platform.request(path),
      )
      const res = await fetch(`${record.result.endpoints[0]?.endpoint ?? ''}/hello`)
      expect(await res.text()).toBe('hello there')
      expect(res.headers.get('x-env')).toBe('qa')
    },
  )

  it('templates: create from a mock service, list, get, apply to another mock service', async () => {
    const platform = await startTestPlatform()
    const { ws, serviceId, ids } = await catalog(platform)
    const source = await envelope<{ id: number }>(
      await platform.request(`${ws}/service-mocks`, {
        method: 'POST',
        json: {
          serviceId,
          name: 'source',
          thinkTime: 25,
          capacity: 7,
          mockServiceTransactions: [ids[0]],
        },
      }),
    )
    const templates = `${ws}/service-mock-templates`
    const createdRes = await platform.request(templates, {
      method: 'POST',
      json: { name: 'slow', serviceMockId: source.result.id },
    })
    expect(createdRes.status).toBe(201)
    const template = await envelope<{ id: number; thinkTime: number }>(createdRes)
    expect(template.result).toMatchObject({ name: 'slow', thinkTime: 25, capacity: 7 })
    expect((await envelope<unknown[]>(await platform.request(`${templates}?limit=0`))).total).toBe(
      1,
    )
    expect(
      (
        await envelope<{ name: string }>(
          await platform.request(`${templates}/${template.result.id}`),
        )
      ).result.name,
    ).toBe('slow')
    await expectError(
      await platform.request(templates, { method: 'POST', json: { name: 'none' } }),
      400,
      'ERR_API_VALIDATION',
      '/serviceMockId',
    )

    const target = await envelope<{ id: number }>(
      await platform.request(`${ws}/service-mocks`, {
        method: 'POST',
        json: { serviceId, name: 'target' },
      }),
    )
    const applied = await envelope<{
      thinkTime: number
      capacity: number
      mockServiceTransactions: Array<{ txnId: number }>
    }>(
      await platform.request(
        `${ws}/service-mocks/${target.result.id}/apply-template/${template.result.id}`,
        { method: 'PATCH' },
      ),
    )
    expect(applied.result).toMatchObject({ thinkTime: 25, capacity: 7 })
    expect(applied.result.mockServiceTransactions.map((e) => e.txnId)).toEqual([ids[0]])
    await expectError(
      await platform.request(`${ws}/service-mocks/${target.result.id}/apply-template/9999`, {
        method: 'PATCH',
      }),
      404,
      'ERR_API_NOT_FOUND',
    )
  })
})
