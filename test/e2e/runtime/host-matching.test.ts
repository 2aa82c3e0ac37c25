import http from 'node:http'
import { describe, expect, it } from 'vitest'
import { startServer } from '../../helpers/server.js'
import { adminCall } from '../../helpers/admin.js'

// Several APIs on one port: with matchHost (serve --match-host), requestDsl.host must name the
// request's Host; without it, host is a note and every Host matches.
const twoApis = [
  {
    name: 'github users',
    dsl: {
      requestDsl: { method: 'GET', path: '/users', host: 'api.github.com' },
      responseDsl: { text: 'github' },
    },
  },
  {
    name: 'gitlab users',
    dsl: {
      requestDsl: { method: 'GET', path: '/users', host: 'https://GitLab.example:8443' },
      responseDsl: { text: 'gitlab' },
    },
  },
  {
    name: 'any host',
    dsl: { requestDsl: { method: 'GET', path: '/ping' }, responseDsl: { text: 'pong' } },
  },
]

async function get(
  url: string,
  path: string,
  host: string,
): Promise<{ status: number; body: string }> {
  return await new Promise((resolve, reject) => {
    http
      .get(url + path, { headers: { host } }, (res) => {
        let body = ''
        res.on('data', (c: Buffer) => {
          body += c.toString()
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      })
      .on('error', reject)
  })
}

describe('host matching', () => {
  it('routes by Host when asked, case-insensitive and whatever the port', async () => {
    const app = await startServer({ dsl: twoApis, options: { matchHost: true }, admin: true })
    expect(await get(app.url, '/users', 'api.github.com')).toEqual({ status: 200, body: 'github' })
    expect(await get(app.url, '/users', 'gitlab.example:8080')).toEqual({
      status: 200,
      body: 'gitlab',
    })
    expect(await get(app.url, '/users', 'API.GITHUB.COM:443')).toEqual({
      status: 200,
      body: 'github',
    })
    expect((await get(app.url, '/users', 'elsewhere.test')).status).toBe(404)
    expect((await get(app.url, '/users', 'api.github.com.evil.test')).status).toBe(404)
    expect(await get(app.url, '/ping', 'anything.test')).toEqual({ status: 200, body: 'pong' })
    // the configuration is shown as written, without the matchers added for serving
    const config = await adminCall<{
      transactions: Array<{ dsl: { requestDsl: { headers?: unknown[] } } }>
    }>(app, 'GET', '/config')
    expect(config.body.result.transactions[0]?.dsl.requestDsl.headers ?? []).toEqual([])
  })

  it('routes by Host when the mock-service document asks for it (matchHost: true), also after a PUT /config', async () => {
    const app = await startServer({
      dsl: { name: 'apis', matchHost: true, transactions: twoApis },
      admin: true,
    })
    expect(await get(app.url, '/users', 'api.github.com')).toEqual({ status: 200, body: 'github' })
    expect((await get(app.url, '/users', 'elsewhere.test')).status).toBe(404)
    const json = (doc: unknown) => ({ text: JSON.stringify(doc), contentType: 'application/json' })
    const swapped = await adminCall(
      app,
      'PUT',
      '/config',
      json({ name: 'apis', transactions: twoApis }),
    )
    expect(swapped.status).toBe(200)
    expect(await get(app.url, '/users', 'api.github.com')).toEqual({ status: 200, body: 'gitlab' })
    await adminCall(
      app,
      'PUT',
      '/config',
      json({ name: 'apis', matchHost: true, transactions: twoApis }),
    )
    expect(await get(app.url, '/users', 'api.github.com')).toEqual({ status: 200, body: 'github' })
  })

  it('ignores host by default: the later transaction of equal priority answers', async () => {
    const app = await startServer({ dsl: twoApis })
    expect(await get(app.url, '/users', 'api.github.com')).toEqual({ status: 200, body: 'gitlab' })
  })
})
