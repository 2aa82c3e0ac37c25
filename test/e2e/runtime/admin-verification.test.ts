import http from 'node:http'
import { describe, expect, it, onTestFinished } from 'vitest'
import { loadRuntimeOptions } from '../../../src/config/index.js'
import { readDefinition } from '../../../src/dsl/index.js'
import { createSilentLogger } from '../../../src/log/index.js'
import { startAdmin, startRuntime } from '../../../src/serve/index.js'
import { adminCall, adminUrl } from '../../helpers/admin.js'
import { startServer } from '../../helpers/server.js'
import { startTestPlatform } from '../../helpers/platform.js'
import { unavailableDeployer } from '../../helpers/platform.js'

const pets = [
  {
    id: 1,
    name: 'list pets',
    dsl: { requestDsl: { method: 'GET', path: '/pets' }, responseDsl: { json: [] } },
  },
  {
    id: 2,
    name: 'adopt',
    dsl: {
      requestDsl: { method: 'POST', path: '/pets/{id}/adopt' },
      responseDsl: { status: 201, text: 'ok' },
    },
  },
]

async function traffic(url: string): Promise<void> {
  await (await fetch(`${url}/pets`)).arrayBuffer()
  await (await fetch(`${url}/pets/1/adopt`, { method: 'POST' })).arrayBuffer()
  await (await fetch(`${url}/pets/2/adopt`, { method: 'POST' })).arrayBuffer()
  await (await fetch(`${url}/petz?x=1`)).arrayBuffer()
}

describe('admin: verification API', () => {
  it('filters, counts, lists unmatched requests with their diagnosis, verifies and resets', async () => {
    const app = await startServer({ dsl: pets, admin: true })
    const started = Date.now()
    await traffic(app.url)

    const posts = await adminCall<Array<{ url: string }>>(
      app,
      'GET',
      '/inspection?method=post&path=/pets/*/adopt',
    )
    expect(posts.status).toBe(200)
    expect(posts.body.total).toBe(2)
    expect(posts.body.result.map((e) => e.url)).toEqual(['/pets/2/adopt', '/pets/1/adopt'])
    expect(
      (await adminCall(app, 'GET', '/inspection?path=/pets/**&status=2xx&matched=true')).body.total,
    ).toBe(3)
    expect((await adminCall(app, 'GET', '/inspection?transaction=adopt')).body.total).toBe(2)
    expect((await adminCall(app, 'GET', '/inspection?transaction=1')).body.total).toBe(1)
    expect(
      (
        await adminCall(
          app,
          'GET',
          `/inspection?from=${started}&to=${new Date(Date.now() + 1000).toISOString()}`,
        )
      ).body.total,
    ).toBe(4)
    expect((await adminCall(app, 'GET', `/inspection?to=${started - 60_000}`)).body.total).toBe(0)

    const count = await adminCall<{ count: number }>(app, 'GET', '/inspection/count?status=404')
    expect(count.body.result).toEqual({ count: 1 })

    const unmatched = await adminCall<
      Array<{ url: string; diagnosis: { nearMisses?: unknown[] } | null }>
    >(app, 'GET', '/inspection/unmatched')
    expect(unmatched.body.result.map((e) => e.url)).toEqual(['/petz?x=1'])
    expect(unmatched.body.result[0]?.diagnosis).not.toBeNull()

    const verified = await adminCall<{
      verified: boolean
      actual: number
      expected: string
      matching: unknown[]
    }>(app, 'POST', '/inspection/verify', {
      text: JSON.stringify({ request: { method: 'POST', path: '/pets/*/adopt' }, count: 2 }),
      contentType: 'application/json',
    })
    expect(verified.body.result).toMatchObject({ verified: true, actual: 2, expected: 'exactly 2' })
    expect(verified.body.result.matching).toHaveLength(2)

    const failed = await adminCall<{
      verified: boolean
      actual: number
      nearest: Array<{ url: string; failed: string[] }>
    }>(app, 'POST', '/inspection/verify', {
      text: JSON.stringify({ request: { method: 'DELETE', path: '/pets/*/adopt' }, atLeast: 1 }),
      contentType: 'application/json',
    })
    expect(failed.body.result).toMatchObject({ verified: false, actual: 0 })
    expect(failed.body.result.nearest[0]).toMatchObject({ failed: ['method'] })

    const reset = await adminCall<{ deleted: number }>(app, 'DELETE', '/inspection')
    expect(reset.body.result).toEqual({ deleted: 4 })
    expect((await adminCall(app, 'GET', '/inspection')).body.total).toBe(0)
  })

  it('refuses malformed filters and verifications naming the field', async () => {
    const app = await startServer({ dsl: pets, admin: true })
    const badStatus = await adminCall(app, 'GET', '/inspection?status=4x')
    expect(badStatus.status).toBe(400)
    expect(badStatus.body.error).toMatchObject({
      code: 'ERR_API_VALIDATION',
      details: [{ path: '/status' }],
    })
    expect(
      (await adminCall(app, 'GET', '/inspection/count?matched=maybe')).body.error?.details?.[0]
        ?.path,
    ).toBe('/matched')
    expect(
      (await adminCall(app, 'GET', '/inspection/count?from=yesterday')).body.error?.details?.[0]
        ?.path,
    ).toBe('/from')
    const both = await adminCall(app, 'POST', '/inspection/verify', {
      text: JSON.stringify({ request: {}, count: 1, atMost: 2 }),
      contentType: 'application/json',
    })
    expect(both.status).toBe(400)
    expect(both.body.error?.details?.[0]?.path).toBe('/count')
    const unknown = await adminCall(app, 'POST', '/inspection/verify', {
      text: JSON.stringify({ request: { verb: 'GET' } }),
      contentType: 'application/json',
    })
    expect(unknown.body.error?.details?.[0]?.path).toBe('/request/verb')
    const notJson = await adminCall(app, 'POST', '/inspection/verify', {
      text: '{',
      contentType: 'application/json',
    })
    expect(notJson.status).toBe(400)
  })
})

/** A raw request with a chosen Host header (fetch does not let a caller set it). */
async function rawGet(
  url: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return await new Promise((resolve, reject) => {
    const req = http.request(url + path, { headers }, (res) => {
      let body = ''
      res.on('data', (c: Buffer) => {
        body += c.toString()
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('admin: who may call it', () => {
  it('without a token answers loopback Host names only (DNS rebinding)', async () => {
    const app = await startServer({ dsl: pets, admin: true })
    const url = adminUrl(app)
    const port = new URL(url).port
    expect((await rawGet(url, '/config', { host: `localhost:${port}` })).status).toBe(200)
    expect((await rawGet(url, '/config', { host: `127.0.0.1:${port}` })).status).toBe(200)
    expect((await rawGet(url, '/config', { host: `[::1]:${port}` })).status).toBe(200)
    const rebound = await rawGet(url, '/config', { host: `attacker.example:${port}` })
    expect(rebound.status).toBe(403)
    expect(JSON.parse(rebound.body)).toMatchObject({ error: { code: 'ERR_API_FORBIDDEN' } })
    expect((await rawGet(url, '/health', { host: 'evil.test' })).status).toBe(403)
  })

  it('with a token needs the bearer token on every route but /health, whatever the Host', async () => {
    const log = createSilentLogger()
    const runtime = await startRuntime({
      document: readDefinition(pets),
      options: loadRuntimeOptions({ port: 0, logLevel: 'silent' }),
      log,
    })
    const admin = await startAdmin({
      runtime,
      host: '0.0.0.0',
      port: 0,
      token: 's3cret-token',
      log,
      logRing: null,
    })
    onTestFinished(async () => {
      await Promise.all([runtime.close(), admin.close()])
    })
    const url = admin.url.replace('0.0.0.0', '127.0.0.1')
    const port = new URL(url).port
    expect((await rawGet(url, '/health', { host: `mock.internal:${port}` })).status).toBe(200)
    const missing = await rawGet(url, '/config', { host: `mock.internal:${port}` })
    expect(missing.status).toBe(401)
    expect(JSON.parse(missing.body)).toMatchObject({ error: { code: 'ERR_API_UNAUTHORIZED' } })
    expect((await rawGet(url, '/config', { authorization: 'Bearer wrong' })).status).toBe(401)
    expect(
      (
        await rawGet(url, '/config', {
          host: `mock.internal:${port}`,
          authorization: 'Bearer s3cret-token',
        })
      ).status,
    ).toBe(200)
  })

  it('refuses to listen beyond loopback without a token', async () => {
    const log = createSilentLogger()
    const runtime = await startRuntime({
      document: readDefinition(pets),
      options: loadRuntimeOptions({ port: 0, logLevel: 'silent' }),
      log,
    })
    onTestFinished(() => runtime.close())
    await expect(
      startAdmin({ runtime, host: '0.0.0.0', port: 0, log, logRing: null }),
    ).rejects.toMatchObject({ code: 'ERR_CONFIG_INVALID' })
  })
})

describe('platform: verification API of a mock service', () => {
  it('passes filters, count, unmatched, verify and reset to the runtime, with platform ids', async () => {
    const app = await startServer({ dsl: pets, admin: true })
    const platform = await startTestPlatform({
      deployer: () => ({
        ...unavailableDeployer,
        admin: async () => ({ url: adminUrl(app), token: null }),
      }),
    })
    const ws = platform.workspaceId
    const service = (await (
      await platform.request(`/api/v1/workspaces/${ws}/services`, {
        method: 'POST',
        json: { name: 'pets' },
      })
    ).json()) as { result: { id: number } }
    const created = (await (
      await platform.request(`/api/v1/workspaces/${ws}/service-mocks`, {
        method: 'POST',
        json: { serviceId: service.result.id, name: 'pets mock' },
      })
    ).json()) as { result: { id: number } }
    const base = `/api/v1/workspaces/${ws}/service-mocks/${created.result.id}/inspection`
    await traffic(app.url)

    const list = (await (await platform.request(`${base}?method=POST`)).json()) as {
      result: Array<{ id: number; serviceMockId: number }>
      total: number
    }
    expect(list.total).toBe(2)
    expect(list.result[0]?.serviceMockId).toBe(created.result.id)
    expect(list.result[0]?.id).toBeGreaterThan(10_000_000_000)
    expect(
      (
        (await (await platform.request(`${base}/count?matched=false`)).json()) as {
          result: { count: number }
        }
      ).result.count,
    ).toBe(1)
    expect(
      ((await (await platform.request(`${base}/unmatched`)).json()) as { result: unknown[] })
        .result,
    ).toHaveLength(1)
    const verified = (await (
      await platform.request(`${base}/verify`, {
        method: 'POST',
        json: { request: { path: '/pets' }, count: 1 },
      })
    ).json()) as { result: { verified: boolean } }
    expect(verified.result.verified).toBe(true)
    const bad = await platform.request(`${base}/count?status=abc`)
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe(
      'ERR_API_VALIDATION',
    )
    expect(
      (
        (await (await platform.request(base, { method: 'DELETE' })).json()) as {
          result: { deleted: number }
        }
      ).result.deleted,
    ).toBe(4)
    expect(
      ((await (await platform.request(`${base}/count`)).json()) as { result: { count: number } })
        .result.count,
    ).toBe(0)
    expect(
      (await platform.request(`/api/v1/workspaces/${ws}/service-mocks/999/inspection/count`))
        .status,
    ).toBe(404)
  })
})
