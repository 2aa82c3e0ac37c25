import { describe, expect, it } from 'vitest'
import { envelope, expectError } from '../e2e/platform/catalog-helpers.js'
import { startTestPlatform } from '../helpers/platform.js'

/*
 * The sandbox flow of the product's MCP tools (sv-mcp `virtual_services_sandbox`): `init` sends
 * `GET /workspaces/{ws}/sandbox?transactionId=T`, then `test_request` sends
 * `POST /workspaces/{ws}/sandbox/test-request {httpRequest: {method, path, name, queryParameters,
 * headers, body}}` naming no transaction (`body` base64). It answered 400 "transactionId is
 * required". The tool reads `status`, `statusMessage` (a string), `headers`, `body` and
 * `matchingLog[].m`, and takes an empty `matchingLog` for a match.
 */

const b64 = (text: string): string => Buffer.from(text).toString('base64')

describe('sandbox: opened by GET, then tested without naming the transaction', () => {
  it('tests the request against the sandbox the caller opened, and says why a request does not match', async () => {
    const platform = await startTestPlatform()
    const ws = `/api/v1/workspaces/${platform.workspaceId}`
    const service = await envelope<{ id: number }>(
      await platform.request(`${ws}/services`, { method: 'POST', json: { name: 'svc' } }),
    )
    const made = await envelope<Array<{ id: number }>>(
      await platform.request(`${ws}/transactions?serviceId=${service.result.id}`, {
        method: 'POST',
        json: {
          transactions: [
            {
              name: 'test transaction',
              dsl: {
                requestDsl: {
                  method: 'GET',
                  url: { key: 'url', matcherName: 'matches', matchingValue: '/test-transaction' },
                },
                responseDsl: { status: 201, content: b64('response'), contentType: 'text' },
              },
            },
            {
              name: 'orders',
              dsl: {
                requestDsl: {
                  method: 'POST',
                  path: '/orders',
                  body: [{ matcherName: 'contains', matchingValue: '"id":1' }],
                },
                responseDsl: { status: 200, content: b64('{"ok":true}'), contentType: 'json' },
              },
            },
          ],
        },
      }),
    )
    const [txnId, ordersId] = made.result.map((t) => t.id) as [number, number]
    const testRequest = async (httpRequest: Record<string, unknown>) =>
      platform.request(`${ws}/sandbox/test-request`, { method: 'POST', json: { httpRequest } })

    // nothing opened yet: refused, naming the field and how to open one
    const refused = await expectError(
      await testRequest({ method: 'GET', path: '/test-transaction', name: 'svc' }),
      400,
      'ERR_API_VALIDATION',
      '/transactionId',
    )
    expect(refused.error?.message).toMatch(/sandbox\?transactionId=/)

    const init = await platform.request(`${ws}/sandbox?transactionId=${txnId}`)
    expect(init.status).toBe(200)
    const opened = await envelope<{ serviceId: number; userId: number; transactionId: number }>(
      init,
    )
    expect(opened.result).toMatchObject({
      serviceId: service.result.id,
      userId: platform.userId,
      transactionId: txnId,
    })

    const hit = await testRequest({
      method: 'GET',
      path: '/test-transaction',
      name: 'svc',
      queryParameters: [],
      headers: [],
    })
    expect(hit.status).toBe(200)
    const answer = await envelope<{
      status: number
      statusMessage: string
      headers: Array<{ name: string; value: string }>
      body: string
      matchingLog: unknown[]
    }>(hit)
    expect(answer.result).toMatchObject({ status: 201, statusMessage: 'Created', matchingLog: [] })
    expect(Buffer.from(answer.result.body, 'base64').toString()).toBe('response')

    const miss = await testRequest({ method: 'POST', path: '/test-transaction', name: 'svc' })
    expect(miss.status).toBe(200)
    const missed = await envelope<{
      status: number
      statusMessage: string
      matchingLog: Array<{ t: number; m: string }>
    }>(miss)
    expect(missed.result.status).toBe(404)
    expect(typeof missed.result.statusMessage).toBe('string')
    expect(missed.result.matchingLog.map((e) => e.m)).toEqual([
      'Request method POST did not match GET',
    ])

    // opening another transaction replaces the sandbox; `body` is the request body, base64
    await envelope(await platform.request(`${ws}/sandbox?transactionId=${ordersId}`))
    const posted = await envelope<{ status: number; matchingLog: unknown[] }>(
      await testRequest({
        method: 'POST',
        path: '/orders',
        name: 'svc',
        headers: [{ name: 'Content-Type', value: 'application/json' }],
        body: b64('{"id":1}'),
      }),
    )
    expect(posted.result).toMatchObject({ status: 200, matchingLog: [] })
    const wrongBody = await envelope<{ matchingLog: Array<{ m: string }> }>(
      await testRequest({ method: 'POST', path: '/orders', name: 'svc', body: b64('{"id":2}') }),
    )
    expect(wrongBody.result.matchingLog.length).toBeGreaterThan(0)

    // a transaction named in the request still wins over the opened sandbox
    const named = await envelope<{ status: number }>(
      await platform.request(`${ws}/sandbox/test-request?transactionId=${txnId}`, {
        method: 'POST',
        json: { httpRequest: { method: 'GET', path: '/test-transaction' } },
      }),
    )
    expect(named.result.status).toBe(201)

    // the sandbox goes with its transaction
    expect(
      (await platform.request(`${ws}/transactions/${ordersId}`, { method: 'DELETE' })).status,
    ).toBe(200)
    await expectError(
      await testRequest({ method: 'POST', path: '/orders', name: 'svc' }),
      400,
      'ERR_API_VALIDATION',
      '/transactionId',
    )
  })
})
