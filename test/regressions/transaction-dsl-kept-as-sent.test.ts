import { describe, expect, it } from 'vitest'
import { envelope } from '../e2e/platform/catalog-helpers.js'
import { startTestPlatform } from '../helpers/platform.js'

/*
 * `POST /transactions` dropped the documented DSL fields a client sent empty (`queryParams: []`,
 * `cookies: []`, `credentials: {}`, `body: []`, `binary: false`...), so a client comparing what
 * it sent with what it read (or PUTting what it read) saw a change it never made. They come back
 * as sent, and still match as if absent.
 */

const b64 = (text: string): string => Buffer.from(text).toString('base64')

/** A DSL as the product's clients write it: every list present, most of them empty (sv-mcp's models default them to []). */
const sent = {
  priority: 10,
  type: 'HTTP',
  requestDsl: {
    method: 'GET',
    path: '/pets',
    url: { key: 'url', matcherName: 'equals_url', matchingValue: '/pets' },
    headers: [],
    queryParams: [],
    cookies: [],
    credentials: { username: '', password: '' },
    body: [],
  },
  responseDsl: {
    status: 200,
    headers: [],
    binary: false,
    contentType: 'json',
    content: b64('[]'),
    statusCodeConditions: [],
  },
  statusCodeConditions: [],
}

describe('transactions: the DSL comes back as it was sent', () => {
  it('keeps documented fields sent empty, in the create answer, GET, and after a PUT of what was read; they match as if absent', async () => {
    const platform = await startTestPlatform()
    const ws = `/api/v1/workspaces/${platform.workspaceId}`
    const service = await envelope<{ id: number }>(
      await platform.request(`${ws}/services`, { method: 'POST', json: { name: 'pets' } }),
    )
    const created = await platform.request(`${ws}/transactions?serviceId=${service.result.id}`, {
      method: 'POST',
      json: { transactions: [{ name: 'list', description: 'all pets', tags: [], dsl: sent }] },
    })
    expect(created.status).toBe(200)
    // one transaction answers as one Transaction (the mock services specification)
    const answer = await envelope<{ id: number; dsl: unknown }>(created)
    expect(answer.result.dsl).toEqual(sent)
    const id = answer.result.id

    const read = await envelope<Record<string, unknown> & { dsl: unknown }>(
      await platform.request(`${ws}/transactions/${id}`),
    )
    expect(read.result.dsl).toEqual(sent)
    expect(
      (await platform.request(`${ws}/transactions/${id}`, { method: 'PUT', json: read.result }))
        .status,
    ).toBe(201)
    expect(
      (await envelope<{ dsl: unknown }>(await platform.request(`${ws}/transactions/${id}`))).result
        .dsl,
    ).toEqual(sent)

    // `credentials: {}` stays `{}` too
    const bare = {
      requestDsl: { method: 'GET', path: '/bare', credentials: {} },
      responseDsl: { status: 204 },
    }
    const made = await envelope<{ dsl: { requestDsl: Record<string, unknown> } }>(
      await platform.request(`${ws}/transactions?serviceId=${service.result.id}`, {
        method: 'POST',
        json: { transactions: [{ name: 'bare', dsl: bare }] },
      }),
    )
    expect(made.result.dsl.requestDsl['credentials']).toEqual({})

    // empty, they ask for nothing: the sandbox matches a request without credentials, headers or body
    const tested = await envelope<{ status: number; matchingLog: unknown[] }>(
      await platform.request(`${ws}/sandbox/test-request?transactionId=${id}`, {
        method: 'POST',
        json: { httpRequest: { method: 'GET', path: '/pets' } },
      }),
    )
    expect(tested.result).toMatchObject({ status: 200, matchingLog: [] })
  })
})
