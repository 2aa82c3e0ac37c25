import { describe, expect, it } from 'vitest'
import { startTestPlatform } from '../../helpers/platform.js'
import { createService, formOf } from './catalog-helpers.js'

/*
 * docs/decisions.md#envelopes: never a 500 or a stack trace for bad input. Odd bodies for every catalog
 * endpoint (services, tags, transactions, convert, assets): each must be a 4xx envelope.
 */

describe('/api/v1 catalog endpoints with odd input', () => {
  it('answers every odd JSON body with a 4xx envelope, never a 5xx', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    const ws = `/api/v1/workspaces/${platform.workspaceId}`
    const cases: Array<[string, string, unknown]> = [
      ['POST', `${ws}/services`, null],
      ['POST', `${ws}/services`, 'x'],
      ['PUT', `${ws}/services/${serviceId}`, { id: 1e300, name: 'x' }],
      ['POST', `${ws}/transactions?serviceId=${serviceId}`, null],
      ['POST', `${ws}/transactions?serviceId=${serviceId}`, { transactions: [null] }],
      ['POST', `${ws}/transactions?serviceId=${serviceId}`, [null]],
      ['POST', `${ws}/transactions?serviceId=${serviceId}`, { dsl: null }],
      [
        'POST',
        `${ws}/transactions?serviceId=${serviceId}`,
        { transactions: [{ dsl: { requestDsl: null } }] },
      ],
      [
        'POST',
        `${ws}/transactions?serviceId=${serviceId}`,
        { transactions: [{ dsl: { requestDsl: {} }, tags: [1] }] },
      ],
      [
        'POST',
        `${ws}/transactions?serviceId=${'9'.repeat(15)}`,
        { transactions: [{ dsl: { requestDsl: {} } }] },
      ],
      ['PUT', `${ws}/transactions/1`, { serviceId: 1e300 }],
      ['PUT', `${ws}/transactions/1`, null],
      ['PUT', `${ws}/transactions/1`, { dsl: 5 }],
      ['PATCH', `${ws}/transactions`, { action: 'DELETE', transactions: [1e20] }],
      ['PATCH', `${ws}/transactions`, { action: 5, transactions: [1] }],
      ['PATCH', `${ws}/transactions`, null],
      ['POST', `${ws}/assets/validate-name`, { name: 'x', idToIgnore: 1e300, serviceId: 1e300 }],
      ['POST', `${ws}/assets/validate-name`, null],
      ['PATCH', `${ws}/assets/1`, { serviceId: 1e300 }],
      ['POST', '/api/v1/tags', { name: 'x', id: 1e300 }],
      ['PUT', '/api/v1/tags/1', null],
    ]
    for (const [method, path, json] of cases) {
      const res = await platform.request(path, {
        method,
        body: JSON.stringify(json),
        headers: { 'content-type': 'application/json' },
      })
      const text = await res.text()
      expect(
        res.status,
        `${method} ${path} ${JSON.stringify(json)}: ${text}`,
      ).toBeGreaterThanOrEqual(400)
      expect(res.status, `${method} ${path} ${JSON.stringify(json)}: ${text}`).toBeLessThan(500)
      expect((JSON.parse(text) as { error: { code: string } }).error.code).toMatch(/^ERR_/)
    }
  })

  it('answers odd uploads with a 4xx envelope naming the file, never a 5xx', async () => {
    const platform = await startTestPlatform()
    const serviceId = String(await createService(platform))
    const path = `/api/v1/workspaces/${platform.workspaceId}/transactions`
    const files = [
      { name: 'empty.json', bytes: '' },
      { name: 'broken.zip', bytes: new Uint8Array([0x50, 0x4b, 3, 4, 1, 2, 3]) },
      { name: 'odd.json', bytes: '{"log": 5}' },
      { name: 'odd.yaml', bytes: 'openapi: 3.0.0\npaths: 5' },
    ]
    for (const file of files) {
      const res = await platform.request(path, {
        method: 'POST',
        body: formOf({ serviceId }, [file]),
      })
      const text = await res.text()
      expect([400, 415], `${file.name}: ${text}`).toContain(res.status)
      expect(text).toContain(file.name)
    }
    const raw = await fetch(platform.url + path, {
      method: 'POST',
      headers: { authorization: platform.auth, 'content-type': 'multipart/form-data; boundary=x' },
      body: '--x\r\ngarbage',
    })
    expect(raw.status).toBe(400)
    expect(await raw.json()).toMatchObject({ error: { code: 'ERR_API_BAD_REQUEST' } })
  })
})
