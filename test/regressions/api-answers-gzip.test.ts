import { request } from 'undici'
import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { startTestPlatform } from '../helpers/platform.js'

/*
 * The control plane's JSON answers are gzipped for a client that accepts gzip (the dashboard's
 * lists of thousands of transactions), and only then: as they were for one that does not, or
 * refuses it with q=0, and for small answers.
 */

describe('API answers compressed on request', () => {
  it('gzips a large list for a client that accepts gzip, and only then', async () => {
    const platform = await startTestPlatform()
    const service = await platform.request('/api/v1/workspaces/1/services', {
      method: 'POST',
      json: { name: 'big' },
    })
    const serviceId = ((await service.json()) as { result: { id: number } }).result.id
    const transactions = Array.from({ length: 200 }, (_, i) => ({
      name: `GET /items/${i}`,
      dsl: { requestDsl: { method: 'GET', path: `/items/${i}` }, responseDsl: { json: { i } } },
    }))
    expect(
      (
        await platform.request(`/api/v1/workspaces/1/transactions?serviceId=${serviceId}`, {
          method: 'POST',
          json: { transactions },
        })
      ).status,
    ).toBe(200)
    const url = `${platform.url}/api/v1/workspaces/1/transactions?serviceId=${serviceId}&limit=200`
    const headers = { authorization: platform.auth }

    const zipped = await request(url, {
      headers: { ...headers, 'accept-encoding': 'gzip, deflate' },
    })
    expect(zipped.statusCode).toBe(200)
    expect(zipped.headers['content-encoding']).toBe('gzip')
    expect(zipped.headers['vary']).toBe('accept-encoding')
    const raw = Buffer.from(await zipped.body.arrayBuffer())
    const body = JSON.parse(gunzipSync(raw).toString('utf8')) as {
      result: unknown[]
      total: number
    }
    expect(body.result).toHaveLength(200)
    expect(raw.length).toBeLessThan(gunzipSync(raw).length / 4)

    for (const encoding of [undefined, 'gzip;q=0', 'identity']) {
      const plain = await request(url, {
        headers: { ...headers, ...(encoding === undefined ? {} : { 'accept-encoding': encoding }) },
      })
      expect(plain.headers['content-encoding']).toBeUndefined()
      expect(((await plain.body.json()) as { result: unknown[] }).result).toHaveLength(200)
    }
    // A small answer stays as it is.
    const small = await request(`${platform.url}/api/v1/workspaces/1/services/${serviceId}`, {
      headers: { ...headers, 'accept-encoding': 'gzip' },
    })
    expect(small.headers['content-encoding']).toBeUndefined()
    await small.body.dump()
  })

  it('streams a large import answer through gzip', async () => {
    const platform = await startTestPlatform()
    const service = await platform.request('/api/v1/workspaces/1/services', {
      method: 'POST',
      json: { name: 'upload' },
    })
    const serviceId = ((await service.json()) as { result: { id: number } }).result.id
    const form = new FormData()
    form.set('serviceId', String(serviceId))
    const doc = {
      transactions: Array.from({ length: 100 }, (_, i) => ({
        name: `t${i}`,
        dsl: { requestDsl: { method: 'GET', path: `/t/${i}` }, responseDsl: { text: 'x' } },
      })),
    }
    form.append('file', new Blob([JSON.stringify(doc)], { type: 'application/json' }), 'doc.json')
    // fetch asks for gzip and undoes it, as a browser does.
    const res = await fetch(`${platform.url}/api/v1/workspaces/1/transactions`, {
      method: 'POST',
      body: form,
      headers: { authorization: platform.auth },
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-encoding')).toBe('gzip')
    const body = (await res.json()) as { result: unknown[] }
    expect(body.result).toHaveLength(100)
  })
})
