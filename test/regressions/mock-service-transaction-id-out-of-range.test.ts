import { describe, expect, it } from 'vitest'
import { startTestPlatform } from '../helpers/platform.js'

// Defect: on PostgreSQL, a mock service naming a transaction id past PostgreSQL's bigint (1e20: a
// JSON integer the schema accepts) answered 500, the database refusing the comparison; on SQLite
// the same body answered 400 naming the field.

interface Envelope {
  error: { code: string; details?: Array<{ path: string; message: string }> } | null
}

describe('a mock service naming a transaction id no column holds', () => {
  it('answers 400 naming the entry, on either store, and stores nothing', async () => {
    const platform = await startTestPlatform()
    const ws = platform.workspaceId
    const base = `/api/v1/workspaces/${ws}/service-mocks`
    const created = await platform.request(`/api/v1/workspaces/${ws}/services`, {
      method: 'POST',
      json: { name: 'pets' },
    })
    const serviceId = ((await created.json()) as { result: { id: number } }).result.id
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ mockServiceTransactions: [1e20] }, '/mockServiceTransactions/0'],
      [
        { noMatchingRequestPreference: 'returnTransaction', noMatchingRequestTxnId: 1e20 },
        '/noMatchingRequestTxnId',
      ],
    ]
    for (const [fields, path] of cases) {
      const res = await platform.request(base, {
        method: 'POST',
        json: { serviceId, name: 'x', ...fields },
      })
      expect(res.status, path).toBe(400)
      const body = (await res.json()) as Envelope
      expect(body.error?.details?.[0]?.path).toBe(path)
      expect(body.error?.details?.[0]?.message).toContain('which does not exist in workspace')
    }
    const list = await platform.request(base)
    expect(((await list.json()) as { total: number }).total).toBe(0)
  })
})
