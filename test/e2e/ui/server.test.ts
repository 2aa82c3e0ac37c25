import http from 'node:http'
import { describe, expect, it, onTestFinished } from 'vitest'
import { createUiFront } from '../../../src/api/index.js'
import { createSilentLogger } from '../../../src/log/index.js'
import { startCli, type CliServer } from '../../helpers/cli.js'
import { mockServiceInput } from '../../helpers/mock-service-input.js'
import { startTestPlatform, unavailableDeployer } from '../../helpers/platform.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * The dashboard's server side over plain HTTP (no browser): static files, sign-in to the session
 * cookie, the cookie + token translation to the API's auth, CSRF, sign out, and the live
 * inspection stream shared by tabs.
 */

const key = { id: 'ui-key', secret: 'ui-secret-0123456789' }
const UI = { 'x-requested-with': 'test' }

async function signIn(
  platform: CliServer,
): Promise<{ cookie: string; token: string; setCookie: string }> {
  const res = await fetch(`${platform.url}/ui/session`, {
    method: 'POST',
    headers: { ...UI, 'content-type': 'application/json' },
    body: JSON.stringify({ keyId: key.id, secret: key.secret }),
  })
  expect(res.status).toBe(200)
  const setCookie = res.headers.get('set-cookie') ?? ''
  const body = (await res.json()) as { result: { csrfToken: string } }
  return { cookie: setCookie.split(';')[0] ?? '', token: body.result.csrfToken, setCookie }
}

describe('dashboard server', () => {
  it('serves the built app with a strict content security policy, gzipped when asked', async () => {
    const platform = await startCli(
      ['platform', '--port', '0', '--data-dir', tempDir('understudy-ui-')],
      { env: { UNDERSTUDY_API_KEY_ID: key.id, UNDERSTUDY_API_KEY_SECRET: key.secret } },
    )
    const redirect = await fetch(`${platform.url}/ui`, { redirect: 'manual' })
    expect(redirect.status).toBe(302)
    expect(redirect.headers.get('location')).toBe('/ui/')
    const index = await fetch(`${platform.url}/ui/`)
    expect(index.status).toBe(200)
    expect(index.headers.get('content-security-policy')).toContain("default-src 'self'")
    expect(await index.text()).toContain('/ui/app.js')
    const app = await fetch(`${platform.url}/ui/app.js`, { headers: { 'accept-encoding': 'gzip' } })
    expect(app.status).toBe(200)
    expect(app.headers.get('content-type')).toContain('text/javascript')
    expect(app.headers.get('content-encoding')).toBe('gzip')
    // The whole app stays well under the 200 KB of compressed JavaScript.
    expect(Number(app.headers.get('content-length'))).toBeLessThan(200_000)
    const deepLink = await fetch(`${platform.url}/ui/mocks/3`)
    expect(await deepLink.text()).toContain('/ui/app.js')
    expect((await fetch(`${platform.url}/ui/app.js`, { method: 'POST' })).status).toBe(405)
  })

  it('signs in to an HttpOnly SameSite=Strict cookie that works only with its token, refuses writes without CSRF token, and signs out', async () => {
    const platform = await startCli(
      ['platform', '--port', '0', '--data-dir', tempDir('understudy-ui-')],
      { env: { UNDERSTUDY_API_KEY_ID: key.id, UNDERSTUDY_API_KEY_SECRET: key.secret } },
    )
    const post = async (body: unknown, headers: Record<string, string> = UI): Promise<Response> =>
      fetch(`${platform.url}/ui/session`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    expect((await post({ keyId: key.id, secret: key.secret }, {})).status).toBe(403)
    const blank = await post({ keyId: ' ', secret: '' })
    expect(blank.status).toBe(400)
    expect(
      ((await blank.json()) as { error: { details: Array<{ path: string }> } }).error.details.map(
        (d) => d.path,
      ),
    ).toEqual(['/keyId', '/secret'])
    expect((await post('not an object')).status).toBe(400)
    const wrong = await post({ keyId: key.id, secret: 'nope' })
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get('set-cookie')).toBeNull()

    const { cookie, token, setCookie } = await signIn(platform)
    expect(setCookie).toMatch(/HttpOnly/)
    expect(setCookie).toMatch(/SameSite=Strict/)
    expect(setCookie).toMatch(/Path=\//)
    const user = (headers: Record<string, string>) =>
      fetch(`${platform.url}/api/v4/user`, { headers })
    // The cookie alone (what a mock service on another port of the same host could see) is nothing.
    expect((await user({ ...UI, cookie })).status).toBe(401)
    expect((await user({ cookie, 'x-csrf-token': token })).status).toBe(401)
    const unauthorized = await user({ ...UI, cookie })
    expect(unauthorized.headers.get('www-authenticate')).toBeNull()
    expect((await fetch(`${platform.url}/ui/session`, { headers: { cookie } })).status).toBe(401)
    expect((await user({ ...UI, cookie, 'x-csrf-token': token })).status).toBe(200)
    expect(
      (await fetch(`${platform.url}/ui/session`, { headers: { cookie, 'x-csrf-token': token } }))
        .status,
    ).toBe(200)

    const create = (csrf: string) =>
      fetch(`${platform.url}/api/v1/workspaces/1/services`, {
        method: 'POST',
        headers: { ...UI, cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'pets' }),
      })
    expect((await create('forged')).status).toBe(401)
    expect((await create(token)).status).toBe(201)
    const list = await fetch(`${platform.url}/api/v1/workspaces/1/services`, {
      headers: { ...UI, cookie, 'x-csrf-token': token },
    })
    expect(((await list.json()) as { total: number }).total).toBe(1)

    expect(
      (
        await fetch(`${platform.url}/ui/session`, {
          method: 'DELETE',
          headers: { cookie, 'x-csrf-token': 'forged' },
        })
      ).status,
    ).toBe(403)
    const out = await fetch(`${platform.url}/ui/session`, {
      method: 'DELETE',
      headers: { cookie, 'x-csrf-token': token },
    })
    expect(out.status).toBe(204)
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/)
    expect((await user({ ...UI, cookie, 'x-csrf-token': token })).status).toBe(401)
  })

  it('streams new inspection entries to every tab from one shared poller, which stops when the last tab leaves', async () => {
    let entries: Array<Record<string, unknown>> = []
    let polls = 0
    const admin = http.createServer((req, res) => {
      polls++
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ result: entries, total: entries.length }))
    })
    await new Promise<void>((resolve) => admin.listen(0, '127.0.0.1', resolve))
    onTestFinished(() => new Promise<void>((resolve) => admin.close(() => resolve())))
    const adminAddress = admin.address() as { port: number }
    const platform = await startTestPlatform({
      deployer: () => ({
        ...unavailableDeployer,
        admin: async () => ({ url: `http://127.0.0.1:${adminAddress.port}`, token: null }),
      }),
    })
    const service = await platform.store.services.create({
      workspaceId: platform.workspaceId,
      name: 'pets',
      description: null,
      by: 'test',
    })
    const mock = await platform.store.mockServices.create(
      mockServiceInput(platform.workspaceId, service.id, { name: 'pets mock' }),
    )

    const front = createUiFront(
      { store: platform.store, log: createSilentLogger(), baseUrl: platform.url },
      (_req, res) => {
        res.writeHead(404)
        res.end()
      },
    )
    const server = http.createServer(front.handle)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    onTestFinished(async () => {
      front.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    })
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    const [keyId, secret] = Buffer.from(platform.auth.slice(6), 'base64').toString().split(':') as [
      string,
      string,
    ]
    const signed = await fetch(`${url}/ui/session`, {
      method: 'POST',
      headers: { ...UI, 'content-type': 'application/json' },
      body: JSON.stringify({ keyId, secret }),
    })
    const cookie = (signed.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
    const token = ((await signed.json()) as { result: { csrfToken: string } }).result.csrfToken
    const streamUrl = `${url}/ui/events/workspaces/${platform.workspaceId}/service-mocks/${mock.id}/inspection?token=${encodeURIComponent(token)}`

    expect(
      (await fetch(streamUrl.replace(/token=.*/, 'token=x'), { headers: { cookie } })).status,
    ).toBe(401)

    const tabs = [new AbortController(), new AbortController()]
    const readers = await Promise.all(
      tabs.map(async (tab) => {
        const res = await fetch(streamUrl, { headers: { cookie }, signal: tab.signal })
        expect(res.headers.get('content-type')).toContain('text/event-stream')
        let text = ''
        const reader = res.body?.getReader()
        const decoder = new TextDecoder()
        // Each check reads the next chunk of the stream: there is nothing to poll in between.
        const until = async (needle: string): Promise<void> => {
          await waitFor(
            async () => {
              if (text.includes(needle)) return true
              const chunk = await reader?.read()
              if (chunk === undefined || chunk.done) {
                throw new Error(`stream ended without ${needle} in ${text}`)
              }
              text += decoder.decode(chunk.value)
              return text.includes(needle)
            },
            `${needle} in the stream`,
            { timeoutMs: 10_000, intervalMs: 0 },
          )
        }
        return { until }
      }),
    )
    expect(front.streams.pollerCount).toBe(1)
    entries = [{ id: 7, operation: 'GET', url: '/pets', timestamp: Date.now(), matched: true }]
    await Promise.all(readers.map(async (r) => r.until(`"id":${7 + 10_000_000_000 * mock.id}`)))
    const pollsWithTwoTabs = polls
    expect(pollsWithTwoTabs).toBeGreaterThan(0)
    for (const tab of tabs) tab.abort()
    await waitFor(() => front.streams.pollerCount === 0, 'every poller to stop')
  })

  it('delivers a burst of 500 requests whole, says how many the ring evicted unread, and ends the stream with the session', async () => {
    // A fake runtime admin listener over a ring of `capacity` records, newest first, honouring skip and limit.
    let ring: Array<Record<string, unknown>> = []
    let nextId = 1
    let capacity = 10_000
    const record = (count: number): void => {
      for (let i = 0; i < count; i++) {
        ring.unshift({
          id: nextId++,
          operation: 'GET',
          url: `/burst/${nextId}`,
          timestamp: Date.now(),
          matched: true,
          statusCode: 200,
        })
      }
      ring = ring.slice(0, capacity)
    }
    const admin = http.createServer((req, res) => {
      const query = new URL(req.url ?? '/', 'http://x').searchParams
      const skip = Number(query.get('skip') ?? 0)
      const limit = Number(query.get('limit') ?? 50)
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ result: ring.slice(skip, skip + limit), total: ring.length }))
    })
    await new Promise<void>((resolve) => admin.listen(0, '127.0.0.1', resolve))
    onTestFinished(() => new Promise<void>((resolve) => admin.close(() => resolve())))
    const adminPort = (admin.address() as { port: number }).port
    const platform = await startTestPlatform({
      deployer: () => ({
        ...unavailableDeployer,
        admin: async () => ({ url: `http://127.0.0.1:${adminPort}`, token: null }),
      }),
    })
    const service = await platform.store.services.create({
      workspaceId: platform.workspaceId,
      name: 'pets',
      description: null,
      by: 'test',
    })
    const mock = await platform.store.mockServices.create(
      mockServiceInput(platform.workspaceId, service.id, { name: 'pets mock' }),
    )
    const front = createUiFront(
      { store: platform.store, log: createSilentLogger(), baseUrl: platform.url },
      (_req, res) => {
        res.writeHead(404)
        res.end()
      },
    )
    const server = http.createServer(front.handle)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    onTestFinished(async () => {
      front.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    })
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    const [keyId, secret] = Buffer.from(platform.auth.slice(6), 'base64').toString().split(':') as [
      string,
      string,
    ]
    const signed = await fetch(`${url}/ui/session`, {
      method: 'POST',
      headers: { ...UI, 'content-type': 'application/json' },
      body: JSON.stringify({ keyId, secret }),
    })
    const cookie = (signed.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
    const token = ((await signed.json()) as { result: { csrfToken: string } }).result.csrfToken
    const streamUrl = `${url}/ui/events/workspaces/${platform.workspaceId}/service-mocks/${mock.id}/inspection?token=${encodeURIComponent(token)}`

    // The stream's events, parsed as they come.
    const res = await fetch(streamUrl, { headers: { cookie } })
    expect(res.status).toBe(200)
    const ids = new Set<number>()
    const dropped: number[] = []
    let ended = false
    let buffer = ''
    const reading = (async () => {
      const decoder = new TextDecoder()
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true })
        let cut: number
        while ((cut = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, cut)
          buffer = buffer.slice(cut + 2)
          const name = /^event: (.*)$/m.exec(block)?.[1]
          const data = /^data: (.*)$/m.exec(block)?.[1]
          if (name === 'entries' && data !== undefined) {
            for (const e of JSON.parse(data) as Array<{ id: number }>) ids.add(e.id)
          }
          if (name === 'dropped' && data !== undefined) {
            dropped.push((JSON.parse(data) as { count: number }).count)
          }
        }
      }
      ended = true
    })()
    const until = async (test: () => boolean, what: string): Promise<void> => {
      await waitFor(test, `${what} (${ids.size} ids so far, dropped ${dropped.join(',')})`, {
        timeoutMs: 15_000,
        intervalMs: 50,
      })
    }
    record(3)
    await until(() => ids.size === 3, 'the first entries')
    // 500 at once, between two polls: all 500 arrive, none dropped.
    record(500)
    await until(() => ids.size === 503, 'the burst of 500')
    expect(dropped).toEqual([])
    // 2500 at once into a ring of 1200: the 1200 it holds arrive, and the 1300 evicted are counted.
    capacity = 1200
    record(2500)
    await until(() => ids.size === 503 + 1200, 'what the ring still holds')
    await until(() => dropped.length > 0, 'the dropped event')
    expect(dropped).toEqual([1300])

    // Signing out ends the stream; reconnecting is refused with a 401.
    const out = await fetch(`${url}/ui/session`, {
      method: 'DELETE',
      headers: { ...UI, cookie, 'x-csrf-token': token },
    })
    expect(out.status).toBe(204)
    await until(() => ended, 'the stream to end')
    await reading
    expect((await fetch(streamUrl, { headers: { cookie } })).status).toBe(401)
  })
})
