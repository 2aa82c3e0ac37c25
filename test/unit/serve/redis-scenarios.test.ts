import { describe, expect, it } from 'vitest'
import { connectRedisScenarios } from '../../../src/serve/scenario/redis.js'
import { hasRedis, REDIS_SKIP_REASON, startRedis } from '../../helpers/redis.js'

/*
 * The Redis scenario store in this process, against Debian's redis-server: the compare-and-set,
 * ttl, list and reset of the states, and what another connection with the same prefix sees.
 */

if (!hasRedis) console.warn(`[redis scenario store unit tests skipped] ${REDIS_SKIP_REASON}`)

describe.skipIf(!hasRedis)('RedisScenarios', () => {
  it('commits a transition once, refreshes a stale reader, and lists and resets what Redis holds', async () => {
    const redis = await startRedis()
    const a = await connectRedisScenarios(`${redis.url}?prefix=unit`)
    const b = await connectRedisScenarios(`${redis.url}/0?prefix=unit`)
    try {
      a.begin()
      expect(a.state('checkout', null)).toBe('Started')
      a.set('checkout', null, 'Paid', null)
      const turnA = a.end()
      b.begin()
      expect(b.state('checkout', null)).toBe('Started')
      b.set('checkout', null, 'Paid', null)
      const turnB = b.end()
      expect(await a.commit(turnA!)).toBe(true)
      // b read a stale state: refused, and told the current one.
      expect(await b.commit(turnB!)).toBe(false)
      b.begin()
      expect(b.state('checkout', null)).toBe('Paid')
      expect(b.end()).not.toBeNull()

      // An instance with a ttl, and one scenario of another name.
      expect(
        await a.commit({
          reads: [],
          writes: [
            ['cart', 'u1', 'Filled', 60_000],
            ['other', null, 'On', null],
          ],
        }),
      ).toBe(true)
      expect(await b.list()).toEqual([
        { name: 'cart', instance: 'u1', state: 'Filled' },
        { name: 'checkout', instance: null, state: 'Paid' },
        { name: 'other', instance: null, state: 'On' },
      ])
      expect(await b.reset('cart', 'u1')).toBe(1)
      expect(await b.reset('checkout')).toBe(1)
      expect(await a.list()).toEqual([{ name: 'other', instance: null, state: 'On' }])
      // A write back to Started removes the key.
      expect(
        await a.commit({
          reads: [['other', null, 'On']],
          writes: [['other', null, 'Started', null]],
        }),
      ).toBe(true)
      expect(await a.reset()).toBe(0)
      expect(await a.list()).toEqual([])
    } finally {
      await a.close()
      await b.close()
    }
  })

  it('keeps another prefix apart and refuses a store it cannot reach', async () => {
    const redis = await startRedis()
    const one = await connectRedisScenarios(`${redis.url}?prefix=one`)
    const two = await connectRedisScenarios(redis.url)
    try {
      expect(await one.commit({ reads: [], writes: [['s', null, 'X', null]] })).toBe(true)
      expect(await two.list()).toEqual([])
    } finally {
      await one.close()
      await two.close()
    }
    await expect(connectRedisScenarios('redis://127.0.0.1:1')).rejects.toThrow(
      /cannot reach redis:\/\/127\.0\.0\.1:1/,
    )
  })
})
