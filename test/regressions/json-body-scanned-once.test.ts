import { afterEach, describe, expect, it, vi } from 'vitest'
import { JsonPathScanner } from '../../src/match/json-scan.js'
import { startServer } from '../helpers/server.js'

// Defect: a JSON POST matched on `$.shipping.kind` among ten transactions had its body scanned
// twice per request. The discriminator read the value through the first transaction's scanner and
// the matching transaction's own predicate through another scanner compiled for the same
// expression, so the request's one-entry cache of the last scan missed.
const KINDS = ['standard', 'express', 'overnight', 'pickup', 'locker', 'drone', 'bike', 'freight']

function order(kind: string): string {
  return JSON.stringify({
    customer: 'c-1042',
    items: [{ sku: 'A-1', qty: 2 }],
    shipping: { kind, address: '1 Main St' },
  })
}

describe('a JSON body matched through the discriminator is scanned once per request', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('answers each kind with one scan of its body', async () => {
    const app = await startServer({
      dsl: KINDS.map((kind) => ({
        name: kind,
        dsl: {
          requestDsl: {
            method: 'POST',
            path: '/api/orders',
            body: [{ key: '$.shipping.kind', matcherName: 'equals', matchingValue: kind }],
          },
          responseDsl: { text: kind },
        },
      })),
    })
    const scans = vi.spyOn(JsonPathScanner.prototype, 'scan')
    for (const kind of KINDS) {
      const before = scans.mock.calls.length
      const res = await fetch(`${app.url}/api/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: order(kind),
      })
      expect(await res.text()).toBe(kind)
      expect(scans.mock.calls.length - before, kind).toBe(1)
    }
  })
})
