import net from 'node:net'
import { describe, expect, it } from 'vitest'
import { startServer } from '../../helpers/server.js'
import { waitFor } from '../../helpers/wait.js'

/** Opens a raw connection and sends a request head announcing a body that never completes. */
async function slowSender(
  url: string,
  path: string,
): Promise<{ socket: net.Socket; received: () => string; closed: Promise<void> }> {
  const { hostname, port } = new URL(url)
  const socket = net.connect(Number(port), hostname)
  await new Promise<void>((resolve, reject) =>
    socket.once('connect', resolve).once('error', reject),
  )
  let text = ''
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1')
  })
  socket.on('error', () => {})
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nab`,
  )
  return { socket, received: () => text, closed }
}

describe('slow request bodies', () => {
  it(
    'does not let clients that send their body slowly hold the capacity of a mock service',
    { timeout: 15_000 },
    async () => {
      const app = await startServer({
        dsl: {
          capacity: 10,
          transactions: [{ dsl: { requestDsl: { path: '/a' }, responseDsl: { text: 'ok' } } }],
        },
      })
      const senders = await Promise.all(
        Array.from({ length: 10 }, async () => await slowSender(app.url, '/a')),
      )
      // Each has sent its head and part of its body; trickle one more byte to be sure they are reading.
      for (const s of senders) s.socket.write('c')
      await waitFor(() => app.runtime.inFlight() >= 10, 'ten slow bodies in flight', {
        timeoutMs: 3000,
      })
      // All ten are being received, and none holds one of the ten places.
      expect(app.runtime.inFlight()).toBe(10)
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${app.url}/a`)
        expect(res.status).toBe(200)
        expect(await res.text()).toBe('ok')
      }
      for (const s of senders) s.socket.destroy()
    },
  )

  it(
    'answers 408 ERR_SERVE_BODY_TIMEOUT and closes when the body does not arrive within --body-timeout',
    { timeout: 15_000 },
    async () => {
      const app = await startServer({
        dsl: [{ dsl: { requestDsl: { path: '/a' }, responseDsl: { text: 'ok' } } }],
        options: { bodyTimeout: 300 },
      })
      const started = Date.now()
      const sender = await slowSender(app.url, '/a')
      await sender.closed
      const elapsed = Date.now() - started
      expect(sender.received()).toMatch(/^HTTP\/1\.1 408 /)
      expect(sender.received()).toContain('ERR_SERVE_BODY_TIMEOUT')
      expect(elapsed).toBeGreaterThanOrEqual(280)
      // the body never arrives: a bound on hanging, far above the usual time, not a speed figure (the test machine is shared)
      expect(elapsed).toBeLessThan(10_000)
      // A body that arrives in time is served.
      const res = await fetch(`${app.url}/a`, { method: 'POST', body: 'hello' })
      expect(await res.text()).toBe('ok')
    },
  )
})
