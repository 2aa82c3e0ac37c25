import { afterEach, describe, expect, it } from 'vitest'
import {
  connectCluster,
  KubernetesDriver,
  type FannedInAnswer,
  type MockServiceAdmin,
} from '../../../src/deploy/kubernetes/index.js'
import { isUnderstudyError } from '../../../src/errors/index.js'
import { startFakeKubernetes, type FakeKubernetes } from '../../helpers/fake-kubernetes.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * The runtime admin of a mock service served by two pods, through the Kubernetes driver: the real
 * client against the fake API server whose pods are real `understudy run` processes on loopback.
 * Requests reach both pods; inspection and verification answer for both; a pod that is down or
 * does not answer fails the call with 503 rather than answer for the other alone.
 */

const NS = 'mocks'
const ID = 11
const NAME = `understudy-ms-${ID}`
const orders = {
  name: 'orders',
  transactions: [
    {
      name: 'create',
      dsl: {
        requestDsl: { method: 'POST', path: '/orders' },
        responseDsl: { status: 201, json: { ok: true } },
      },
    },
  ],
}

let fake: FakeKubernetes | null = null
afterEach(async () => {
  await fake?.close()
  fake = null
})

interface Entry {
  id: number
  url: string
  timestamp: number
}

/** The error a call fails with (the test fails if it answers). */
async function refusal(call: Promise<FannedInAnswer>): Promise<{
  code: string
  status: number
  message: string
  details: unknown
}> {
  try {
    await call
  } catch (err) {
    if (!isUnderstudyError(err)) throw err
    return { code: err.code, status: err.statusCode, message: err.message, details: err.details }
  }
  throw new Error('the call answered; a refusal was expected')
}

const verifyOrders = (admin: MockServiceAdmin, count: number) =>
  admin.request('POST', '/inspection/verify', {
    request: { method: 'POST', path: '/orders' },
    count,
  })

describe('verification and inspection over the pods of a Kubernetes mock service', () => {
  it('merges both pods, and fails closed when one is not answering or gone', async () => {
    fake = await startFakeKubernetes()
    const cluster = fake
    const api = await connectCluster({
      kind: 'server',
      server: fake.url,
      token: 't',
      namespace: NS,
    })
    const driver = new KubernetesDriver(api, {
      namespace: NS,
      image: 'understudy:test',
      pollMs: 100,
      readyTimeoutMs: 60_000,
      adminTimeoutMs: 1_000,
    })
    await driver.deploy({
      mockServiceId: ID,
      name: 'orders',
      replicas: 2,
      document: orders as never,
    })
    const [a, b] = fake.pods(NS, NAME)
    if (a === undefined || b === undefined) throw new Error('two pods expected')
    const send = async (port: number | undefined, method: string, path: string) =>
      (await fetch(`http://127.0.0.1:${String(port)}${path}`, { method })).status
    // The Service spreads clients over the pods: here each pod is sent its share directly.
    for (let i = 0; i < 3; i++) expect(await send(a.ports['http'], 'POST', '/orders')).toBe(201)
    for (let i = 0; i < 2; i++) expect(await send(b.ports['http'], 'POST', '/orders')).toBe(201)
    expect(await send(b.ports['http'], 'GET', '/cats')).toBe(404)

    const admin = driver.admin(ID)
    const verified = (await verifyOrders(admin, 5)).result as {
      verified: boolean
      actual: number
      matching: Entry[]
    }
    expect(verified).toMatchObject({ verified: true, actual: 5 })
    expect(new Set(verified.matching.map((e) => e.id)).size).toBe(5)
    expect(((await verifyOrders(admin, 3)).result as { verified: boolean }).verified).toBe(false)

    // The list: both pods' records, newest first, ids unique though each pod numbers from 1.
    const listed = await admin.request('GET', '/inspection')
    const entries = listed.result as Entry[]
    expect(listed.total).toBe(6)
    expect(entries).toHaveLength(6)
    expect(new Set(entries.map((e) => e.id)).size).toBe(6)
    for (let i = 1; i < entries.length; i++) {
      expect(entries[i - 1]?.timestamp).toBeGreaterThanOrEqual(entries[i]?.timestamp ?? 0)
    }
    const page = await admin.request('GET', '/inspection?skip=1&limit=2')
    expect(page).toMatchObject({ skip: 1, limit: 2, total: 6 })
    expect((page.result as Entry[]).map((e) => e.id)).toEqual(entries.slice(1, 3).map((e) => e.id))
    expect((await admin.request('GET', '/inspection/count?path=/orders')).result).toEqual({
      count: 5,
    })

    // A detail is asked of the pod its id names.
    for (const entry of entries) {
      const detail = (await admin.request('GET', `/inspection/${entry.id}`)).result as Entry
      expect(detail).toMatchObject({ id: entry.id, url: entry.url })
    }
    const unmatched = await admin.request('GET', '/inspection/unmatched')
    expect(unmatched.total).toBe(1)
    const cats = (unmatched.result as Entry[])[0]
    expect(cats?.url).toContain('/cats')
    const missing = await refusal(admin.request('GET', `/inspection/${String(cats?.id)}0`))
    expect(missing.code).toBe('ERR_INSPECT_NOT_FOUND')

    // Bad input is refused here, naming the field, before any pod is asked.
    const badFilter = await refusal(admin.request('GET', '/inspection?matched=maybe'))
    expect(badFilter).toMatchObject({ code: 'ERR_API_VALIDATION', status: 400 })
    expect(JSON.stringify(badFilter.details)).toContain('/matched')
    const badBound = await refusal(
      admin.request('POST', '/inspection/verify', { request: {}, count: -1 }),
    )
    expect(badBound).toMatchObject({ code: 'ERR_API_VALIDATION', status: 400 })
    expect((await refusal(admin.request('GET', '/config'))).code).toBe('ERR_API_NOT_FOUND')

    // A reset reaches every pod.
    expect((await admin.request('DELETE', '/inspection')).result).toEqual({ deleted: 6 })
    expect(await send(a.ports['http'], 'POST', '/orders')).toBe(201)
    expect(await send(b.ports['http'], 'POST', '/orders')).toBe(201)
    expect((await verifyOrders(admin, 2)).result).toMatchObject({ verified: true, actual: 2 })

    // Pods that refuse the driver's admin token (its Secret changed under them): 503, not a 401.
    const secret = fake.object('Secret', NS, `${NAME}-admin`)
    await api.apply({
      ...secret,
      data: { token: Buffer.from('another').toString('base64') },
    } as never)
    const refused = await refusal(verifyOrders(admin, 2))
    expect(refused).toMatchObject({ code: 'ERR_API_UNAVAILABLE', status: 503 })
    expect(refused.message).toMatch(/pod understudy-ms-11-/)
    await api.apply(secret as never)
    expect((await verifyOrders(admin, 2)).result).toMatchObject({ verified: true, actual: 2 })

    // A pod that does not answer (stopped, still listed): 503 naming it, not the other's count.
    process.kill(b.child.pid ?? 0, 'SIGSTOP')
    try {
      const hung = await refusal(verifyOrders(admin, 2))
      expect(hung).toMatchObject({ code: 'ERR_API_UNAVAILABLE', status: 503 })
      expect(hung.message).toContain(b.name)
    } finally {
      process.kill(b.child.pid ?? 0, 'SIGCONT')
    }
    await waitFor(
      async () => (await driver.podSet(ID)).ready.length === 2,
      'the stopped pod to be ready again',
      { timeoutMs: 10_000, intervalMs: 50 },
    )
    expect((await verifyOrders(admin, 2)).result).toMatchObject({ verified: true, actual: 2 })

    // A pod gone (its process killed): fewer pods ready than wanted, 503 for every read.
    a.child.kill('SIGKILL')
    const gone = await refusal(verifyOrders(admin, 2))
    expect(gone).toMatchObject({ code: 'ERR_API_UNAVAILABLE', status: 503 })
    expect(gone.message).toMatch(new RegExp(`1 of the 2 pods|pod ${a.name}`))
    expect((await refusal(admin.request('GET', '/inspection'))).status).toBe(503)
    expect((await refusal(admin.request('GET', '/inspection/count'))).status).toBe(503)

    // Stopped (no pod wanted): 503 too, never an empty answer.
    await driver.stop(ID)
    await waitFor(() => cluster.pods(NS, NAME).length === 0, 'the pods to stop', {
      timeoutMs: 10_000,
      intervalMs: 50,
    })
    const stopped = await refusal(verifyOrders(admin, 0))
    expect(stopped).toMatchObject({ code: 'ERR_API_UNAVAILABLE', status: 503 })
    expect(stopped.message).toContain('no pod running')
  })
})
