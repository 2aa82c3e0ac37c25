import { describe, expect, it } from 'vitest'
import { MAX_TRANSACTIONS } from '../../src/dsl/index.js'
import { envelope } from '../e2e/platform/catalog-helpers.js'
import { startTestPlatform } from '../helpers/platform.js'

const RUN = 10_000
const dslJson = (i: number): string =>
  JSON.stringify({
    requestDsl: { method: 'GET', path: `/items/${i}` },
    responseDsl: { status: 200, text: String(i) },
  })

// Defect: the platform assembled and sent a mock service of any size to its runtime, which then
// refused it past 250,000 transactions (or, before the bound, grew until it died). Deploying and
// configuring such a mock service is now refused with 422 naming the bound, before anything is
// sent. Storing 250,001 transactions through the API, one request each, takes far longer than a
// test may, and an upload holds about 100,000: the rows are stored through the store's bulk
// insert, the one the upload itself writes with, then the mock service is deployed over HTTP.
describe('the platform refuses to deploy a mock service past 250,000 transactions', () => {
  it('answers 422 naming the bound for deploy and configure', { timeout: 300_000 }, async () => {
    const platform = await startTestPlatform()
    const ws = `/api/v1/workspaces/${platform.workspaceId}`
    const service = await envelope<{ id: number }>(
      await platform.request(`${ws}/services`, { method: 'POST', json: { name: 'big' } }),
    )
    const into = {
      workspaceId: platform.workspaceId,
      serviceId: service.result.id,
      by: 'seed@example.com',
    }
    for (let from = 0; from <= MAX_TRANSACTIONS; from += RUN) {
      const rows = Array.from({ length: Math.min(RUN, MAX_TRANSACTIONS + 1 - from) }, (_, k) => ({
        name: `t${from + k}`,
        description: null,
        dslType: 'GENERIC_DSL',
        tags: [],
        dslJson: dslJson(from + k),
      }))
      await platform.store.write(async (tx) => await tx.transactions.createEncodedMany(into, rows))
    }
    const listed = await platform.request(
      `${ws}/transactions?serviceId=${service.result.id}&limit=1`,
    )
    expect(((await listed.json()) as { total: number }).total).toBe(MAX_TRANSACTIONS + 1)
    const mock = await envelope<{ id: number }>(
      await platform.request(`${ws}/service-mocks`, {
        method: 'POST',
        json: { serviceId: service.result.id, name: 'big' },
      }),
    )
    for (const action of ['deploy', 'configure']) {
      const res = await platform.request(`${ws}/service-mocks/${mock.result.id}/${action}`, {
        method: 'POST',
      })
      expect(res.status, action).toBe(422)
      const body = (await res.json()) as { error: { code: string; message: string } }
      expect(body.error.code, action).toBe('ERR_API_UNPROCESSABLE')
      expect(body.error.message, action).toContain(
        'has 250,001 transactions: a mock service may have at most 250,000',
      )
    }
  })
})
