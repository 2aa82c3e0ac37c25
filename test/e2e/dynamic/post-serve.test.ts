import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { startServer } from '../../helpers/server.js'
import { waitFor } from '../../helpers/wait.js'

/** A local webhook receiver that records bodies. */
async function receiver(): Promise<{
  url: string
  bodies: string[]
  received: (n: number) => Promise<void>
}> {
  const bodies: string[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      bodies.push(
        `${req.method ?? ''} ${req.url ?? ''} ${req.headers['x-hook'] as string} ${Buffer.concat(chunks).toString()}`,
      )
      res.end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(
    async () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const received = async (n: number): Promise<void> => {
    await waitFor(() => bodies.length >= n, `${n} webhook calls`, {
      timeoutMs: 10_000,
      intervalMs: 20,
    })
  }
  return { url, bodies, received }
}

describe('postServe webhooks', () => {
  it('calls the webhook after each answer, templated, while a load runs, and counts what it sent', async () => {
    const hook = await receiver()
    const yaml = `
transactions:
  - dsl:
      requestDsl: {method: POST, path: "/orders/{id}"}
      responseDsl:
        status: 201
        text: created
        postServe:
          - {url: "${hook.url}/hook", method: PUT, headers: [{name: X-Hook, value: "1"}], body: "order {{request.path.id}} got {{response.status}}"}
`
    const app = await startServer({ yaml, admin: true })
    const n = 200
    const answers = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const res = await fetch(`${app.url}/orders/${i}`, { method: 'POST', body: '{}' })
        return res.status
      }),
    )
    expect(answers.every((s) => s === 201)).toBe(true)
    await hook.received(n)
    expect(hook.bodies).toHaveLength(n)
    expect(hook.bodies).toContain('PUT /hook 1 order 7 got 201')
    // the sender thread reports its counters every few ms
    let sent = 0
    await waitFor(
      async () => {
        const stats = (await (await fetch(`${app.admin?.url ?? ''}/scenarios`)).json()) as {
          result: { postServe: { sent: number; failed: number } }
        }
        sent = stats.result.postServe.sent
        return sent >= n
      },
      `${n} webhook calls counted`,
      { intervalMs: 20 },
    )
    expect(sent).toBe(n)
  })

  it('counts a failing webhook without slowing or failing the answer', async () => {
    const yaml = `
transactions:
  - dsl:
      requestDsl: {path: /a}
      responseDsl: {text: a, postServe: [{url: "http://127.0.0.1:1/nothing"}]}
`
    const app = await startServer({ yaml, admin: true })
    expect((await fetch(`${app.url}/a`)).status).toBe(200)
    let failed = 0
    await waitFor(
      async () => {
        const stats = (await (await fetch(`${app.admin?.url ?? ''}/scenarios`)).json()) as {
          result: { postServe: { failed: number } }
        }
        failed = stats.result.postServe.failed
        return failed > 0
      },
      'the failed call to be counted',
      { timeoutMs: 10_000, intervalMs: 50 },
    )
    expect(failed).toBe(1)
  })
})
