import { describe, expect, it } from 'vitest'
import { newestEntry, inspectionDetail } from '../../helpers/admin.js'
import { startServer } from '../../helpers/server.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * Think time (docs/decisions.md#think-time): `responseDsl.responseDelay` per transaction, `thinkTime` per
 * mock service, the transaction's own winning; timers only. Lower bounds allow 10 ms of timer
 * slack; upper bounds are generous for a loaded 2-core machine.
 */

const on = (path: string, responseDsl: Record<string, unknown> = {}) => ({
  dsl: { requestDsl: { method: 'GET', path }, responseDsl: { text: path, ...responseDsl } },
})

/** Milliseconds a GET takes, after checking it succeeded. */
async function timed(url: string, init?: RequestInit): Promise<number> {
  const started = performance.now()
  const res = await fetch(url, init)
  expect(res.status).toBe(200)
  await res.arrayBuffer()
  return performance.now() - started
}

describe('think time', () => {
  it('delays a transaction with a fixed responseDelay by its duration', async () => {
    const app = await startServer({
      dsl: [on('/slow', { responseDelay: { type: 'fixed', duration: 200 } })],
    })
    expect(await timed(`${app.url}/slow`)).toBeGreaterThanOrEqual(190)
  })

  it('accepts the delay type in any case', async () => {
    const app = await startServer({
      dsl: [on('/slow', { responseDelay: { type: 'Fixed', duration: 200 } })],
    })
    expect(await timed(`${app.url}/slow`)).toBeGreaterThanOrEqual(190)
  })

  it('delays a uniform responseDelay within its bounds', async () => {
    const app = await startServer({
      dsl: [on('/u', { responseDelay: { type: 'uniform', lower: 150, upper: 250 } })],
    })
    const ms = await timed(`${app.url}/u`)
    expect(ms).toBeGreaterThanOrEqual(140)
    // a bound on hanging, far above the usual time, not a speed figure (the test machine is shared)
    expect(ms).toBeLessThan(2000)
  })

  it('delays a lognormal responseDelay capped at its upper bound', async () => {
    const app = await startServer({
      dsl: [
        on('/l', { responseDelay: { type: 'lognormal', median: 150, sigma: 0.0001, upper: 400 } }),
      ],
    })
    const ms = await timed(`${app.url}/l`)
    expect(ms).toBeGreaterThanOrEqual(140)
    // capped at 400 ms: a bound on hanging, far above the usual time, not a speed figure (the test machine is shared)
    expect(ms).toBeLessThan(2000)
  })

  it('applies the mock service thinkTime given as an integer of milliseconds', async () => {
    const app = await startServer({ dsl: { thinkTime: 200, transactions: [on('/a')] } })
    expect(await timed(`${app.url}/a`)).toBeGreaterThanOrEqual(190)
  })

  it('applies the mock service thinkTime given as a delay object', async () => {
    const app = await startServer({
      dsl: { thinkTime: { type: 'fixed', duration: 200 }, transactions: [on('/a')] },
    })
    expect(await timed(`${app.url}/a`)).toBeGreaterThanOrEqual(190)
  })

  it("lets the transaction's own delay win over the mock service thinkTime", async () => {
    const app = await startServer({
      dsl: {
        thinkTime: 600,
        transactions: [
          on('/own', { responseDelay: { type: 'fixed', duration: 20 } }),
          on('/inherit'),
        ],
      },
    })
    const [own, inherited] = await Promise.all([
      timed(`${app.url}/own`),
      timed(`${app.url}/inherit`),
    ])
    expect(own).toBeGreaterThanOrEqual(15)
    expect(inherited).toBeGreaterThanOrEqual(590)
    // compared with the request sent alongside it, not with the clock: a loaded machine slows both
    expect(own).toBeLessThan(inherited / 2)
  })

  it("lets a transaction's explicit `none` delay win over the mock service thinkTime", async () => {
    const app = await startServer({
      dsl: { thinkTime: 5000, transactions: [on('/fast', { responseDelay: { type: 'none' } })] },
    })
    // far below the 5 s think time it escapes: a bound robust to a loaded machine
    expect(await timed(`${app.url}/fast`)).toBeLessThan(2500)
  })

  it('answers a request without delay at once while another waits out its think time', async () => {
    const app = await startServer({
      dsl: [on('/slow', { responseDelay: { type: 'fixed', duration: 800 } }), on('/fast')],
    })
    const finished: string[] = []
    const slow = timed(`${app.url}/slow`).then((ms) => {
      finished.push('slow')
      return ms
    })
    // The slow request is in its think time before the fast one is sent.
    await waitFor(() => app.runtime.inFlight() === 1, 'the slow request to be in flight')
    const fast = await timed(`${app.url}/fast`)
    finished.push('fast')
    const slowMs = await slow
    expect(slowMs).toBeGreaterThanOrEqual(790)
    // compared with the slow request, not with the clock
    expect(fast).toBeLessThan(slowMs / 2)
    expect(finished).toEqual(['fast', 'slow'])
  })

  it('waits out concurrent think times in parallel, not one after another', async () => {
    const app = await startServer({
      dsl: [on('/slow', { responseDelay: { type: 'fixed', duration: 300 } })],
    })
    const started = performance.now()
    const each = await Promise.all(
      Array.from({ length: 20 }, async () => await timed(`${app.url}/slow`)),
    )
    const total = performance.now() - started
    for (const ms of each) expect(ms).toBeGreaterThanOrEqual(290)
    // Serial waits would take 6 s, parallel ones 0.3 s: a bound far from both.
    expect(total).toBeLessThan(3000)
  })

  it('records the think time in the inspection duration', async () => {
    const app = await startServer({
      dsl: [on('/slow', { responseDelay: { type: 'fixed', duration: 200 } })],
      admin: true,
    })
    await timed(`${app.url}/slow`)
    const entry = await newestEntry(app)
    const { body } = await inspectionDetail(app, entry.id)
    expect(body.result?.durationMs).toBeGreaterThanOrEqual(190)
    expect(body.result?.statusCode).toBe(200)
  })

  it('frees the request place when the client leaves during the think time', async () => {
    const app = await startServer({
      dsl: [on('/slow', { responseDelay: { type: 'fixed', duration: 300 } })],
    })
    const abort = new AbortController()
    const pending = fetch(`${app.url}/slow`, { signal: abort.signal })
    await waitFor(() => app.runtime.inFlight() === 1, 'the request to wait out its think time')
    abort.abort()
    await expect(pending).rejects.toThrow()
    await waitFor(() => app.runtime.inFlight() === 0, 'the place to be freed', { timeoutMs: 3000 })
    // And the server still answers.
    expect(await timed(`${app.url}/slow`)).toBeGreaterThanOrEqual(290)
  })
})
