import { describe, expect, it } from 'vitest'
import { inspectionDetail, inspectionList } from '../../helpers/admin.js'
import { startServer, type TestServer } from '../../helpers/server.js'
import { readDefinition } from '../../../src/dsl/index.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * Capacity (docs/decisions.md#capacity): past `capacity` requests in flight the runtime answers 503 with
 * Retry-After: 1 and a problem+json body, and the inspection record says hasError.
 */

const slow = (path: string, ms: number) => ({
  dsl: {
    requestDsl: { method: 'GET', path },
    responseDsl: { text: 'done', responseDelay: { type: 'fixed', duration: ms } },
  },
})
const fast = (path: string) => ({
  dsl: { requestDsl: { method: 'GET', path }, responseDsl: { text: 'fast' } },
})

async function untilInFlight(app: TestServer, n: number): Promise<void> {
  await waitFor(() => app.runtime.inFlight() >= n, `${n} requests in flight`)
  expect(app.runtime.inFlight()).toBe(n)
}

describe('capacity', () => {
  it('answers 503 with Retry-After and ERR_SERVE_CAPACITY past the capacity, and serves again once places free up', async () => {
    const app = await startServer({
      dsl: { capacity: 2, transactions: [slow('/slow', 600), fast('/fast')] },
    })
    const first = [fetch(`${app.url}/slow`), fetch(`${app.url}/slow`)]
    await untilInFlight(app, 2)

    const refused = await fetch(`${app.url}/fast`)
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(refused.headers.get('content-type')).toBe('application/problem+json')
    const problem = (await refused.json()) as Record<string, unknown>
    expect(problem).toMatchObject({ status: 503, code: 'ERR_SERVE_CAPACITY' })
    expect(typeof problem['detail']).toBe('string')

    for (const res of await Promise.all(first)) {
      expect(res.status).toBe(200)
      expect(await res.text()).toBe('done')
    }
    expect(app.runtime.inFlight()).toBe(0)
    expect((await fetch(`${app.url}/fast`)).status).toBe(200)
  })

  it('lets exactly `capacity` of many concurrent requests through', async () => {
    const app = await startServer({ dsl: { capacity: 3, transactions: [slow('/slow', 700)] } })
    const responses = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const res = await fetch(`${app.url}/slow`)
        await res.arrayBuffer()
        return res.status
      }),
    )
    expect(responses.filter((s) => s === 200)).toHaveLength(3)
    expect(responses.filter((s) => s === 503)).toHaveLength(5)
  })

  it('records a refused request in inspection with hasError and the 503', async () => {
    const app = await startServer({
      dsl: { capacity: 1, transactions: [slow('/slow', 500), fast('/fast')] },
      admin: true,
    })
    const held = fetch(`${app.url}/slow`)
    await untilInFlight(app, 1)
    const refused = await fetch(`${app.url}/fast?x=1`)
    const problem = (await refused.json()) as Record<string, unknown>
    expect(refused.status).toBe(503)
    await (await held).arrayBuffer()

    const { body } = await inspectionList(app)
    const entry = body.result.find((e) => e.url === '/fast?x=1')
    expect(entry).toMatchObject({
      hasError: true,
      matched: false,
      operation: 'GET',
      source: 'MOCK',
    })
    expect(problem['requestId']).toBe(String(entry?.id))
    const ok = body.result.find((e) => e.url === '/slow')
    expect(ok).toMatchObject({ hasError: false, matched: true })

    const detail = await inspectionDetail(app, entry?.id ?? 0)
    expect(detail.body.result).toMatchObject({
      statusCode: 503,
      matchingData: { error: { code: 'ERR_SERVE_CAPACITY' } },
    })
    expect(detail.body.result?.responseHeaders).toContainEqual({ key: 'retry-after', value: '1' })
  })

  it('applies a capacity changed by a configuration swap', async () => {
    const app = await startServer({ dsl: { transactions: [slow('/slow', 500)] } })
    app.runtime.reload(readDefinition({ capacity: 1, transactions: [slow('/slow', 500)] }))
    const held = fetch(`${app.url}/slow`)
    await untilInFlight(app, 1)
    expect((await fetch(`${app.url}/slow`)).status).toBe(503)
    expect((await held).status).toBe(200)
  })

  it('does not limit requests when capacity is absent', async () => {
    const app = await startServer({ dsl: [slow('/slow', 300)] })
    const statuses = await Promise.all(
      Array.from({ length: 10 }, async () => (await fetch(`${app.url}/slow`)).status),
    )
    expect(statuses).toEqual(Array.from({ length: 10 }, () => 200))
  })
})
