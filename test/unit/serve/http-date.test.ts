import { afterEach, describe, expect, it, vi } from 'vitest'

afterEach(() => {
  vi.useRealTimers()
})

/** A fresh copy of the module, so that no date made by another test is kept. */
async function freshHttpDate(): Promise<() => string> {
  vi.resetModules()
  return (await import('../../../src/serve/http-date.js')).httpDate
}

describe('httpDate', () => {
  it('gives the current second as an HTTP date, the same string within the second', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-27T04:20:00.250Z') })
    const httpDate = await freshHttpDate()
    const first = httpDate()
    expect(first).toBe('Fri, 27 Nov 2026 04:20:00 GMT')
    vi.advanceTimersByTime(700)
    expect(httpDate()).toBe(first)
  })

  it('moves on at the next second, and keeps no timer once nobody asks', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-27T04:20:00.900Z') })
    const httpDate = await freshHttpDate()
    expect(httpDate()).toBe('Fri, 27 Nov 2026 04:20:00 GMT')
    vi.advanceTimersByTime(100)
    expect(httpDate()).toBe('Fri, 27 Nov 2026 04:20:01 GMT')
    vi.advanceTimersByTime(5_000)
    expect(vi.getTimerCount()).toBe(0)
    expect(httpDate()).toBe('Fri, 27 Nov 2026 04:20:06 GMT')
  })
})
