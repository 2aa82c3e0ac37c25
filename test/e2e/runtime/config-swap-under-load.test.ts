import net from 'node:net'
import autocannon from 'autocannon'
import { describe, expect, it } from 'vitest'
import { putConfig } from '../../helpers/admin.js'
import { startServer } from '../../helpers/server.js'
import { startUpstream } from '../../helpers/upstream.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * `PUT /config` swaps the configuration atomically: requests in flight finish on the old one, the
 * next ones see the new one, and none fails while a load runs.
 */

const answering = (tag: string) => ({
  id: tag === 'A' ? 1 : 2,
  transactions: [
    {
      id: 10,
      dsl: { requestDsl: { method: 'GET', path: '/load' }, responseDsl: { json: { tag } } },
    },
    {
      id: 11,
      dsl: { requestDsl: { method: 'GET', path: `/only-${tag}` }, responseDsl: { text: tag } },
    },
  ],
})

/** Runs autocannon to completion (its instance is only thenable, not a Promise). */
async function runLoad(options: autocannon.Options): Promise<autocannon.Result> {
  return await new Promise((resolve, reject) => {
    autocannon(options, (err, result) => {
      if (err !== null && err !== undefined) {
        reject(err instanceof Error ? err : new Error(String(err)))
      } else resolve(result)
    })
  })
}

/** Calls `swap` every `everyMs` until `running` settles; returns how many swaps answered 200. */
async function swapWhile(
  running: Promise<unknown>,
  swap: (i: number) => Promise<number>,
  everyMs: number,
): Promise<number> {
  const state = { done: false }
  running.then(
    () => {
      state.done = true
    },
    () => {
      state.done = true
    },
  )
  let swaps = 0
  for (let i = 0; ; i++) {
    await new Promise((resolve) => setTimeout(resolve, everyMs))
    if (state.done) return swaps
    if ((await swap(i)) === 200) swaps++
  }
}

describe('configuration swap under load', () => {
  it('swaps the configuration several times during a load with zero failed requests', async () => {
    const app = await startServer({ dsl: answering('A'), admin: true })
    const load = runLoad({ url: `${app.url}/load`, connections: 10, duration: 3 })
    const swaps = await swapWhile(
      load,
      async (i) => (await putConfig(app, answering(i % 2 === 0 ? 'B' : 'A'))).status,
      250,
    )
    const result = await load

    expect(swaps).toBeGreaterThanOrEqual(5)
    expect(result.errors).toBe(0)
    expect(result.timeouts).toBe(0)
    expect(result.non2xx).toBe(0)
    expect(result.requests.total).toBeGreaterThan(100)
    expect(result['2xx']).toBe(result.requests.total)

    // The last swap is the one serving now.
    const tag = app.runtime.current().serviceMockId === 1 ? 'A' : 'B'
    expect(await (await fetch(`${app.url}/load`)).json()).toEqual({ tag })
    expect((await fetch(`${app.url}/only-${tag}`)).status).toBe(200)
    expect((await fetch(`${app.url}/only-${tag === 'A' ? 'B' : 'A'}`)).status).toBe(404)
  })

  it('keeps proxying with zero failed requests while the configuration is swapped', async () => {
    const upstream = await startUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end('live')
    })
    const proxying = (tag: string) => ({
      id: tag === 'A' ? 1 : 2,
      transactions: [
        {
          id: 10,
          dsl: {
            requestDsl: { method: 'POST', path: '/load' },
            responseDsl: { proxyUrl: `${upstream.url}/${tag}` },
          },
        },
      ],
    })
    const app = await startServer({ dsl: proxying('A'), admin: true })
    const load = runLoad({
      url: `${app.url}/load`,
      method: 'POST',
      body: 'x'.repeat(512),
      connections: 4,
      duration: 2,
    })
    const swaps = await swapWhile(
      load,
      async (i) => (await putConfig(app, proxying(i % 2 === 0 ? 'B' : 'A'))).status,
      200,
    )
    const result = await load

    expect(swaps).toBeGreaterThanOrEqual(4)
    expect(result.errors).toBe(0)
    expect(result.timeouts).toBe(0)
    expect(result.non2xx).toBe(0)
    expect(result.requests.total).toBeGreaterThan(50)
    expect(upstream.requests.some((r) => r.url === '/A/load')).toBe(true)
    expect(upstream.requests.some((r) => r.url === '/B/load')).toBe(true)
  })

  // Was a bug (fixed in src/serve/runtime.ts, compile-mock.ts): a swap closed the old
  // configuration's upstream pools at once, so a request that began before the swap and forwarded
  // after it (its body still arriving) failed with 502 UND_ERR_DESTROYED.
  it('lets a request begun before a swap finish its proxying on the old configuration', async () => {
    const upstream = await startUpstream()
    const doc = (tag: string) => ({
      transactions: [
        {
          dsl: {
            requestDsl: { method: 'POST', path: '/p' },
            responseDsl: { proxyUrl: `${upstream.url}/${tag}` },
          },
        },
      ],
    })
    const app = await startServer({ dsl: doc('old'), admin: true })
    const socket = net.connect(Number(new URL(app.url).port), '127.0.0.1')
    let data = ''
    socket.setEncoding('utf8')
    socket.on('data', (d: string) => {
      data += d
    })
    try {
      await new Promise((resolve, reject) => {
        socket.once('connect', resolve)
        socket.once('error', reject)
      })
      socket.write(
        'POST /p HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\ncontent-length: 4\r\n\r\nab',
      )
      await waitFor(() => app.runtime.inFlight() === 1, 'the request to be in flight', {
        timeoutMs: 3000,
      })
      expect((await putConfig(app, doc('new'))).status).toBe(200)
      socket.write('cd')
      await new Promise((resolve) => {
        socket.once('close', resolve)
        setTimeout(resolve, 5000)
      })
    } finally {
      socket.destroy()
    }
    expect(data.split('\r\n')[0]).toBe('HTTP/1.1 200 OK')
    // It finished on the configuration it began with.
    expect(upstream.requests[0]).toMatchObject({ url: '/old/p' })
    expect(upstream.requests[0]?.body.toString()).toBe('abcd')
    // The next request sees the new one.
    expect(await (await fetch(`${app.url}/p`, { method: 'POST', body: 'x' })).json()).toMatchObject(
      { url: '/new/p' },
    )
  })
})
