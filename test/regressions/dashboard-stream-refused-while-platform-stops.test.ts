import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { InspectionStreams } from '../../src/api/ui/inspection-stream.js'
import { createSilentLogger } from '../../src/log/index.js'

/*
 * A stopping platform ends the dashboard's live streams, and the browser reconnects at once, on
 * a socket kept alive from before the stop. That reconnection opened a new stream (and a new
 * poller of the platform's own API), which held the socket, so the closing server never ended:
 * the process kept running after SIGTERM. A stream asked for once the streams are closed is
 * refused with 503, and the socket is closed with it.
 */

describe('a dashboard live stream asked for while the platform stops', () => {
  it('is refused with 503 and Connection: close, so the server can end', async () => {
    // Nothing listens at the polled address: the poller would only fail and retry.
    const streams = new InspectionStreams('http://127.0.0.1:9', createSilentLogger())
    const server = createServer((req, res) => {
      req.resume()
      streams.subscribe(res, 'Basic x', 'key', 1, 1)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    onTestFinished(() => {
      streams.close()
      server.closeAllConnections()
      server.close()
    })
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`

    const open = await fetch(url, { signal: AbortSignal.timeout(5000) })
    expect(open.status).toBe(200)
    expect(open.headers.get('content-type')).toMatch(/^text\/event-stream/)
    await open.body?.cancel()

    streams.close()
    const again = await fetch(url, { signal: AbortSignal.timeout(5000) })
    expect(again.status).toBe(503)
    expect(again.headers.get('connection')).toBe('close')
    expect(await again.json()).toMatchObject({ error: { code: 'ERR_API_UNAVAILABLE' } })
    expect(streams.pollerCount).toBe(0)

    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    server.closeIdleConnections()
    await closed
  })
})
