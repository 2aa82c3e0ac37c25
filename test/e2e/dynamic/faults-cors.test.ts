import http from 'node:http'
import net from 'node:net'
import { describe, expect, it } from 'vitest'
import { startServer } from '../../helpers/server.js'

const faults = `
transactions:
  - dsl: {requestDsl: {path: /reset}, responseDsl: {text: x, fault: connection_reset}}
  - dsl: {requestDsl: {path: /empty}, responseDsl: {text: x, fault: empty_response}}
  - dsl: {requestDsl: {path: /chunk}, responseDsl: {text: x, fault: malformed_chunk}}
  - dsl: {requestDsl: {path: /garbage}, responseDsl: {text: x, fault: random_data_then_close}}
  - dsl: {requestDsl: {path: /sometimes}, responseDsl: {text: fine, fault: {type: empty_response, probability: 0.3}}}
  - dsl: {requestDsl: {path: /fine}, responseDsl: {text: fine}}
`

/** One GET with node:http on a fresh connection: the answer, or the error code the client saw. */
async function get(url: string): Promise<{ status?: number; body?: string; error?: string }> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
      )
      res.on('error', (err: NodeJS.ErrnoException) =>
        resolve({ status: res.statusCode ?? 0, error: err.code ?? err.message }),
      )
      res.on('aborted', () => resolve({ status: res.statusCode ?? 0, error: 'aborted' }))
    })
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }))
  })
}

/** The raw bytes a server sends for one request, until it closes. */
async function raw(port: number, path: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`),
    )
    const chunks: Buffer[] = []
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.on('close', () => resolve(Buffer.concat(chunks)))
    socket.on('error', reject)
  })
}

describe('fault injection', () => {
  it('shows every fault to a real client and records it in inspection', async () => {
    const app = await startServer({ yaml: faults, admin: true })
    expect((await get(`${app.url}/reset`)).error).toBe('ECONNRESET')
    expect((await get(`${app.url}/empty`)).error).toBe('ECONNRESET')
    const chunk = await get(`${app.url}/chunk`)
    expect(chunk.status).toBe(200)
    expect(chunk.error).toBeDefined()
    const port = Number(new URL(app.url).port)
    const chunkBytes = (await raw(port, '/chunk')).toString('latin1')
    expect(chunkBytes).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n400\r\nlorem ipsum $/)
    const garbage = await raw(port, '/garbage')
    expect(garbage.length).toBe(256)
    expect(garbage.subarray(0, 5).toString('latin1')).not.toBe('HTTP/')
    expect((await get(`${app.url}/garbage`)).error).toBeDefined()
    expect((await get(`${app.url}/fine`)).body).toBe('fine')

    const list = (await (await fetch(`${app.admin?.url ?? ''}/inspection?limit=100`)).json()) as {
      result: Array<{ id: number; url: string; hasError: boolean }>
    }
    const reset = list.result.find((r) => r.url === '/reset')
    expect(reset?.hasError).toBe(true)
    const detail = (await (
      await fetch(`${app.admin?.url ?? ''}/inspection/${reset?.id ?? 0}`)
    ).json()) as { result: { matchingData: unknown } }
    expect(detail.result.matchingData).toEqual({ fault: 'connection_reset' })
    expect(list.result.find((r) => r.url === '/fine')?.hasError).toBe(false)
  })

  it('applies a fault to its share of requests, within statistical bounds', async () => {
    const app = await startServer({ yaml: faults })
    let failed = 0
    const n = 400
    for (let i = 0; i < n; i += 50) {
      const results = await Promise.all(
        Array.from({ length: 50 }, async () => get(`${app.url}/sometimes`)),
      )
      failed += results.filter((r) => r.error !== undefined).length
    }
    // p = 0.3, n = 400: mean 120, sd ~9.2; 5 sd either side.
    expect(failed).toBeGreaterThan(74)
    expect(failed).toBeLessThan(166)
  })

  it('applies the mock service faults block to every transaction without its own', async () => {
    const app = await startServer({
      yaml: 'faults: {type: connection_reset}\ntransactions:\n  - dsl: {requestDsl: {path: /a}, responseDsl: {text: a}}\n',
    })
    expect((await get(`${app.url}/a`)).error).toBe('ECONNRESET')
  })
})

describe('CORS', () => {
  const yaml = `
cors: {origins: ['https://app.example'], methods: [GET, POST], headers: [X-Token], credentials: true, maxAge: 600}
transactions:
  - dsl: {requestDsl: {method: GET, path: /data}, responseDsl: {json: {ok: true}}}
`
  it('answers a browser preflight without matching, and adds the headers to every answer', async () => {
    const app = await startServer({ yaml })
    const preflight = await fetch(`${app.url}/data`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-token, content-type',
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example')
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, POST')
    expect(preflight.headers.get('access-control-allow-headers')).toBe('X-Token')
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true')
    expect(preflight.headers.get('access-control-max-age')).toBe('600')

    const ok = await fetch(`${app.url}/data`, { headers: { origin: 'https://app.example' } })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example')
    const missing = await fetch(`${app.url}/nothing`, {
      headers: { origin: 'https://app.example' },
    })
    expect(missing.status).toBe(404)
    expect(missing.headers.get('access-control-allow-origin')).toBe('https://app.example')
    const stranger = await fetch(`${app.url}/data`, { headers: { origin: 'https://evil.example' } })
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('is off by default: OPTIONS is matched like any request', async () => {
    const app = await startServer({
      yaml: '- dsl: {requestDsl: {method: GET, path: /data}, responseDsl: {text: a}}\n',
    })
    const res = await fetch(`${app.url}/data`, {
      method: 'OPTIONS',
      headers: { origin: 'https://x', 'access-control-request-method': 'GET' },
    })
    expect(res.status).toBe(404)
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    const star = await startServer({
      yaml: 'cors: true\ntransactions:\n  - dsl: {requestDsl: {path: /d}, responseDsl: {text: a}}\n',
    })
    expect(
      (await fetch(`${star.url}/d`, { headers: { origin: 'https://x' } })).headers.get(
        'access-control-allow-origin',
      ),
    ).toBe('*')
  })
})
