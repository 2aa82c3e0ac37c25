import { describe, expect, it } from 'vitest'
import { AdminRelay, adminRequest, relayable } from '../../../src/deploy/index.js'
import { isUnderstudyError } from '../../../src/errors/index.js'

/*
 * The platform's side of the relay: only calls of the runtime admin API are queued, a call is
 * taken by its own ship only, and one nobody takes or answers fails closed naming the ship.
 */

const ship = { harborId: 'harbor-1', shipId: 'ship-b' }
const never = new AbortController().signal

describe('relayable', () => {
  it.each([
    ['GET', '/health'],
    ['GET', '/inspection?skip=0&limit=50'],
    ['GET', '/inspection?path=/pets/*&method=GET'],
    ['GET', '/inspection/12'],
    ['GET', '/inspection/count?matched=false'],
    ['GET', '/inspection/unmatched?limit=5'],
    ['DELETE', '/inspection'],
    ['POST', '/inspection/verify'],
    ['GET', '/recordings?keepLatency=true'],
    ['DELETE', '/recordings'],
    ['GET', '/scenarios'],
    ['PUT', '/scenarios/login%20flow'],
    ['DELETE', '/scenarios/cart?instance=a'],
    ['PUT', '/scenarios/a..b'],
  ])('allows %s %s', (method, path) => {
    expect(relayable(method, path)).toBe(true)
  })

  it.each([
    ['PUT', '/config'],
    ['GET', '/config'],
    ['GET', '/log'],
    ['GET', '/__admin/mappings'],
    ['GET', '/ui'],
    ['GET', '/inspection/../config'],
    ['GET', '/inspection/1/../../config'],
    ['GET', '//other.example/health'],
    ['GET', 'http://127.0.0.1:9/health'],
    ['GET', '/health#x'],
    ['GET', '/health\r\nHost: x'],
    ['PATCH', '/scenarios/x'],
    ['PUT', '/scenarios/a/b'],
    ['PUT', '/scenarios/..'],
    ['DELETE', '/scenarios/%2e%2E'],
    ['DELETE', '/scenarios/.%2e?instance=x'],
    ['PUT', '/scenarios/a\\..\\config'],
  ])('refuses %s %s', (method, path) => {
    expect(relayable(method, path)).toBe(false)
  })
})

describe('AdminRelay', () => {
  it('hands a call to its ship only, and resolves with the answer that ship posts', async () => {
    const relay = new AdminRelay({ takeWithinMs: 5000 })
    const answered = relay.call(ship, 7, { method: 'GET', path: '/health', timeoutMs: 1000 })
    expect(await relay.take('ship-a', 4, 0, never)).toEqual([])
    const [taken] = await relay.take('ship-b', 4, 0, never)
    expect(taken).toMatchObject({ mockServiceId: 7, method: 'GET', path: '/health' })
    expect(relay.answer('ship-a', taken?.callId as string, { status: 200, body: {} })).toBe(false)
    expect(relay.answer('ship-b', 'unknown', { status: 200, body: {} })).toBe(false)
    expect(
      relay.answer('ship-b', taken?.callId as string, { status: 200, body: { result: 1 } }),
    ).toBe(true)
    expect(await answered).toEqual({ status: 200, body: { result: 1 } })
    relay.close()
  })

  it('wakes a waiting long poll as soon as a call is queued', async () => {
    const relay = new AdminRelay({ takeWithinMs: 5000 })
    const polled = relay.take('ship-b', 4, 20_000, never)
    const answered = relay.call(ship, 7, { method: 'GET', path: '/scenarios', timeoutMs: 1000 })
    const [taken] = await polled
    relay.answer('ship-b', taken?.callId as string, { status: 200, body: {} })
    await answered
    relay.close()
  })

  it('refuses a path outside the runtime admin API before queueing it', async () => {
    const relay = new AdminRelay()
    await expect(
      relay.call(ship, 7, { method: 'PUT', path: '/config', timeoutMs: 1000, json: {} }),
    ).rejects.toThrow(/not an admin call agents answer/)
    expect(await relay.take('ship-b', 4, 0, never)).toEqual([])
    relay.close()
  })

  it('fails closed through adminRequest: 503 ERR_API_UNAVAILABLE naming the ship when no agent takes the call', async () => {
    const relay = new AdminRelay({ takeWithinMs: 50 })
    const err = await adminRequest(relay.admin(ship, 7), '/inspection', {
      method: 'GET',
      timeoutMs: 1000,
      unavailable: 'ERR_API_UNAVAILABLE',
    }).catch((e: unknown) => e)
    expect(isUnderstudyError(err, 'ERR_API_UNAVAILABLE')).toBe(true)
    expect((err as Error).message).toContain('agent ship-b of private location harbor-1')
    // The call was withdrawn: a late poll does not take it.
    expect(await relay.take('ship-b', 4, 0, never)).toEqual([])
    relay.close()
  })

  it('fails a call taken but never answered, and every call when closed', async () => {
    const relay = new AdminRelay({ takeWithinMs: 50 })
    const answered = relay.call(ship, 7, { method: 'GET', path: '/health', timeoutMs: 10 })
    await relay.take('ship-b', 1, 0, never)
    await expect(answered).rejects.toThrow(/took the call but did not answer/)
    const pending = relay.call(ship, 7, { method: 'GET', path: '/health', timeoutMs: 10 })
    relay.close()
    await expect(pending).rejects.toThrow(/stopping/)
  })
})
