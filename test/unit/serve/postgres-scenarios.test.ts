import { describe, expect, it } from 'vitest'
import { connectPostgresScenarios } from '../../../src/serve/scenario/postgres.js'
import { freshPgDatabase, hasPostgres, PG_SKIP_REASON } from '../../helpers/postgres.js'

/*
 * The PostgreSQL scenario store in this process, against a real server: the compare-and-set, ttl,
 * list and reset of the states, and what another connection with the same prefix sees.
 */

if (!hasPostgres) console.warn(`[PostgreSQL scenario store unit tests skipped] ${PG_SKIP_REASON}`)

async function databaseUrl(): Promise<string> {
  const url = await freshPgDatabase()
  if (url === undefined) throw new Error(PG_SKIP_REASON)
  return url
}

describe.skipIf(!hasPostgres)('PostgresScenarios', () => {
  it('commits a transition once, refreshes a stale reader, and lists and resets what the database holds', async () => {
    const url = await databaseUrl()
    // Two processes starting at once both create the table (or find it).
    const [a, b] = await Promise.all([
      connectPostgresScenarios(`${url}?prefix=unit`),
      connectPostgresScenarios(`${url}?prefix=unit`),
    ])
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

      // An instance with a ttl, one that has already expired, and a scenario of another name.
      expect(
        await a.commit({
          reads: [],
          writes: [
            ['cart', 'u1', 'Filled', 60_000],
            ['flash', 'u1', 'Seen', 1],
            ['other', null, 'On', null],
          ],
        }),
      ).toBe(true)
      await new Promise((resolve) => setTimeout(resolve, 20))
      expect(await b.list()).toEqual([
        { name: 'cart', instance: 'u1', state: 'Filled' },
        { name: 'checkout', instance: null, state: 'Paid' },
        { name: 'other', instance: null, state: 'On' },
      ])
      // An expired state reads as Started: a read of Started holds.
      expect(
        await b.commit({
          reads: [['flash', 'u1', 'Started']],
          writes: [['flash', 'u1', 'Again', null]],
        }),
      ).toBe(true)
      expect(await b.reset('flash')).toBe(1)
      expect(await b.reset('cart', 'u1')).toBe(1)
      expect(await b.reset('checkout')).toBe(1)
      expect(await a.list()).toEqual([{ name: 'other', instance: null, state: 'On' }])
      // A write back to Started removes the row; a read-only commit changes nothing.
      expect(
        await a.commit({
          reads: [['other', null, 'On']],
          writes: [['other', null, 'Started', null]],
        }),
      ).toBe(true)
      expect(await a.commit({ reads: [['other', null, 'On']], writes: [] })).toBe(false)
      expect(await a.reset()).toBe(0)
      expect(await a.list()).toEqual([])
    } finally {
      await a.close()
      await b.close()
    }
  })

  it('makes exactly one of many concurrent transitions through two connections', async () => {
    const url = await databaseUrl()
    const a = await connectPostgresScenarios(`${url}?prefix=race`)
    const b = await connectPostgresScenarios(`${url}?prefix=race`)
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 200 }, async (_, i) => {
          const store = i % 2 === 0 ? a : b
          return await store.commit({
            reads: [['s', 'x', 'Started']],
            writes: [['s', 'x', `won-${i}`, null]],
          })
        }),
      )
      expect(outcomes.filter(Boolean)).toHaveLength(1)
    } finally {
      await a.close()
      await b.close()
    }
  })

  it('keeps another prefix apart and refuses a database it cannot reach', async () => {
    const url = await databaseUrl()
    const one = await connectPostgresScenarios(`${url}?prefix=one`)
    const two = await connectPostgresScenarios(url)
    try {
      expect(await one.commit({ reads: [], writes: [['s', null, 'X', null]] })).toBe(true)
      expect(await two.list()).toEqual([])
      expect(await two.reset()).toBe(0)
      expect(await one.list()).toEqual([{ name: 's', instance: null, state: 'X' }])
    } finally {
      await one.close()
      await two.close()
    }
    await expect(
      connectPostgresScenarios('postgres://nobody:secret@127.0.0.1:1/none'),
    ).rejects.toThrow(/cannot reach postgres:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/none/)
  })
})
