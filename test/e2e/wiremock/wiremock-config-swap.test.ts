import { describe, expect, it } from 'vitest'
import { startWireMockInProcess } from '../../helpers/wiremock.js'

// Stubs of the WireMock admin API are layered over the runtime's own document: a configuration
// swap (`PUT /config` on the admin port, as the platform's configure does) replaces the document
// and keeps the stubs.

describe('WireMock stubs and configuration swaps', () => {
  it('keeps the stubs across PUT /config, and a GET /config put back does not serve them twice', async () => {
    const { url, adminUrl } = await startWireMockInProcess({ adminPort: 0 })
    const admin = adminUrl ?? ''
    await fetch(`${url}/__admin/mappings`, {
      method: 'POST',
      body: JSON.stringify({ request: { url: '/stub' }, response: { body: 'stub' } }),
    })
    const swapped = await fetch(`${admin}/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { dsl: { requestDsl: { path: '/own' }, responseDsl: { text: 'own' } } },
      ]),
    })
    expect(swapped.status).toBe(200)
    expect(await (await fetch(`${url}/own`)).text()).toBe('own')
    expect(await (await fetch(`${url}/stub`)).text()).toBe('stub')

    const config = (await (await fetch(`${admin}/config`)).json()) as {
      result: { transactions: unknown[] }
    }
    expect(config.result.transactions).toHaveLength(2)
    const again = await fetch(`${admin}/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(config.result),
    })
    expect(again.status).toBe(200)
    const after = (await (await fetch(`${admin}/config`)).json()) as {
      result: { transactions: unknown[] }
    }
    expect(after.result.transactions).toHaveLength(2)

    await fetch(`${url}/__admin/mappings`, { method: 'DELETE' })
    expect((await fetch(`${url}/stub`)).status).toBe(404)
    expect((await fetch(`${url}/own`)).status).toBe(404)
    await fetch(`${url}/__admin/mappings/reset`, { method: 'POST' })
    expect(await (await fetch(`${url}/own`)).text()).toBe('own')
  })
})
