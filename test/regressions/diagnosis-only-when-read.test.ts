import { describe, expect, it, vi } from 'vitest'
import { startServer } from '../helpers/server.js'

// Defect: the runtime scored every transaction for a near-miss diagnosis on each unmatched request,
// even when nothing would read it (returnTransaction or bypasslive with inspection off).
describe('near-miss diagnosis is computed only when an answer or a record uses it', () => {
  const dsl = {
    noMatchingRequestPreference: 'returnTransaction',
    noMatchingRequestTxnId: 1,
    transactions: [
      {
        id: 1,
        name: 'fallback',
        dsl: {
          requestDsl: { method: 'GET', path: '/fallback' },
          responseDsl: { text: 'fallback' },
        },
      },
      {
        id: 2,
        name: 'pets',
        dsl: { requestDsl: { method: 'GET', path: '/pets' }, responseDsl: { text: 'pets' } },
      },
    ],
  }

  it('skips it for returnTransaction without inspection', async () => {
    const app = await startServer({ dsl, options: { inspection: { enabled: false } } })
    const spy = vi.spyOn(app.runtime.current().matcher, 'diagnose')
    const res = await fetch(`${app.url}/nothing`)
    expect(await res.text()).toBe('fallback')
    expect(spy).not.toHaveBeenCalled()
  })

  it('computes it when the inspection record keeps it', async () => {
    const app = await startServer({ dsl })
    const spy = vi.spyOn(app.runtime.current().matcher, 'diagnose')
    const res = await fetch(`${app.url}/petz`)
    expect(await res.text()).toBe('fallback')
    expect(spy).toHaveBeenCalledTimes(1)
  })

  it('computes it for a 404 answer, which carries it', async () => {
    const app = await startServer({
      dsl: { transactions: dsl.transactions },
      options: { inspection: { enabled: false } },
    })
    const res = await fetch(`${app.url}/petz`)
    expect(res.status).toBe(404)
    const body = (await res.json()) as { nearMisses: Array<{ name: string }> }
    expect(body.nearMisses[0]?.name).toBe('pets')
  })
})
