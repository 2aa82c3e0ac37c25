import { describe, expect, it } from 'vitest'
import { startServer } from '../../helpers/server.js'
import { waitFor } from '../../helpers/wait.js'

/* Runtime close (what SIGTERM does, docs/architecture.md#start-up-contract): in-flight requests finish, then it closes. */

const slow = (ms: number) => [
  {
    dsl: {
      requestDsl: { method: 'GET', path: '/slow' },
      responseDsl: { text: 'done', responseDelay: { type: 'fixed', duration: ms } },
    },
  },
]

describe('drain', () => {
  it('lets a request in flight finish before closing, then refuses connections', async () => {
    const app = await startServer({ dsl: slow(300) })
    const pending = fetch(`${app.url}/slow`)
    await waitFor(() => app.runtime.inFlight() === 1, 'the request to be in flight', {
      timeoutMs: 3000,
    })
    const started = performance.now()
    await app.close()
    const res = await pending
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('done')
    // a bound on hanging, far above the usual time, not a speed figure (the test machine is shared)
    expect(performance.now() - started).toBeLessThan(5000)
    await expect(fetch(`${app.url}/slow`)).rejects.toThrow()
  })

  it('cuts requests still in flight once drainTimeout has passed', async () => {
    const app = await startServer({ dsl: slow(10_000), options: { drainTimeout: 200 } })
    const pending = fetch(`${app.url}/slow`).then(async (res) => await res.text())
    await waitFor(() => app.runtime.inFlight() === 1, 'the request to be in flight', {
      timeoutMs: 3000,
    })
    const started = performance.now()
    await app.close()
    // cut after 200 ms rather than waiting out the 10 s answer: a bound far from both
    expect(performance.now() - started).toBeLessThan(5000)
    await expect(pending).rejects.toThrow()
  })

  it('closes at once when nothing is in flight, HTTPS and h2c listeners included', async () => {
    const app = await startServer({ dsl: slow(10), options: { tlsPort: 0, h2cPort: 0 } })
    expect((await fetch(`${app.url}/slow`)).status).toBe(200)
    const started = performance.now()
    await app.close()
    // waiting for the idle keep-alive connection would take its 5 s timeout: a bound below it
    expect(performance.now() - started).toBeLessThan(3000)
  })
})
