import { describe, expect, it } from 'vitest'
import { startWireMockInProcess } from '../../helpers/wiremock.js'

// A stub with WireMock's matchesJsonSchema, posted through the admin API, matches the bodies that
// validate (matches_json_schema), reads back as posted, and a schema that cannot be used is
// refused with WireMock's error shape naming the pattern.

const schema = { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } }

async function post(url: string, body: unknown): Promise<Response> {
  return await fetch(`${url}/__admin/mappings`, { method: 'POST', body: JSON.stringify(body) })
}

async function send(url: string, body: unknown): Promise<number> {
  return (
    await fetch(`${url}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  ).status
}

describe('matchesJsonSchema through the WireMock admin API', () => {
  it('matches bodies that validate, as text or object, on the body or under a JSONPath', async () => {
    const { url } = await startWireMockInProcess()
    const stub = {
      request: {
        method: 'POST',
        urlPath: '/orders',
        bodyPatterns: [{ matchesJsonSchema: JSON.stringify(schema), schemaVersion: 'V202012' }],
      },
      response: { status: 201 },
    }
    const created = await post(url, stub)
    expect(created.status).toBe(201)
    expect(await created.json()).toMatchObject({ request: stub.request })
    expect(await send(url, { id: 7 })).toBe(201)
    expect(await send(url, { id: 'seven' })).toBe(404)

    await fetch(`${url}/__admin/mappings`, { method: 'DELETE' })
    await post(url, {
      request: {
        method: 'POST',
        urlPath: '/orders',
        bodyPatterns: [{ matchesJsonPath: { expression: '$.order', matchesJsonSchema: schema } }],
      },
      response: { status: 202 },
    })
    expect(await send(url, { order: { id: 1 } })).toBe(202)
    expect(await send(url, { order: {} })).toBe(404)
  })

  it('refuses an invalid schema and an unsupported schemaVersion with 422 naming the pattern', async () => {
    const { url } = await startWireMockInProcess()
    for (const pattern of [
      { matchesJsonSchema: '{"type": 12}' },
      { matchesJsonSchema: '{}', schemaVersion: 'V4' },
    ]) {
      const refused = await post(url, {
        request: { urlPath: '/orders', bodyPatterns: [pattern] },
        response: {},
      })
      expect(refused.status).toBe(422)
      const body = (await refused.json()) as {
        errors: Array<{ code: number; source: { pointer: string } }>
      }
      expect(body.errors[0]).toMatchObject({
        code: 10,
        source: { pointer: '/request/bodyPatterns/0' },
      })
    }
    expect(
      ((await (await fetch(`${url}/__admin/mappings`)).json()) as { meta: { total: number } }).meta
        .total,
    ).toBe(0)
  })
})
