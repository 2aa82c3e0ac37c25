import type { RuntimeLeaseRepository } from '../repositories.js'
import {
  claimSql,
  expiredSql,
  getSql,
  handOverSql,
  insertSecretSql,
  recordSql,
  releaseAllSql,
  removeSql,
  renewSql,
  requestHandoverSql,
  runtimeLeaseTable,
  secretSql,
} from '../tables/runtime-lease.js'
import { definePgTable } from './codec.js'
import type { PgRepoContext } from './context.js'
import { all, one, returned, type Row } from './sql.js'

const claim = claimSql('@adopt::boolean')

const leases = definePgTable(runtimeLeaseTable)

const decode = (row: Row) => leases.decode(row)

/**
 * The runtime leases in PostgreSQL, shared by every platform instance of the database: each
 * statement is one atomic upsert or update, so two instances claiming at once see one winner.
 *
 * @example
 * await pgRuntimeLeaseRepository(ctx).claim({ mockServiceId: 7, holder: 'h:1', home: 'h', now, expires: now + 15_000, adopt: false })
 */
export function pgRuntimeLeaseRepository(ctx: PgRepoContext): RuntimeLeaseRepository {
  const get = async (mockServiceId: number) => {
    const row = await one(ctx.db, getSql, { mockServiceId })
    return row === undefined ? undefined : decode(row)
  }
  return {
    async claim(input) {
      ctx.check()
      const row = await one(ctx.db, claim, { ...input })
      return row === undefined
        ? ((await get(input.mockServiceId)) ?? decode(returned(row)))
        : decode(row)
    },
    async get(mockServiceId) {
      ctx.check()
      return await get(mockServiceId)
    },
    async renew(holder, expires) {
      ctx.check()
      return (await all(ctx.db, renewSql, { holder, expires })).map(decode)
    },
    async requestHandover(mockServiceId, requester) {
      ctx.check()
      await all(ctx.db, requestHandoverSql, { mockServiceId, requester })
    },
    async handOver(mockServiceId, from, to, expires) {
      ctx.check()
      const params = { mockServiceId, from, to, expires, now: ctx.now() }
      return (await all(ctx.db, handOverSql, params)).length > 0
    },
    async record(mockServiceId, holder, facts) {
      ctx.check()
      const { sql, params } = recordSql(facts)
      const rows = await all(ctx.db, sql, { ...params, mockServiceId, holder, now: ctx.now() })
      return rows.length > 0
    },
    async releaseAll(holder) {
      ctx.check()
      return (await all(ctx.db, releaseAllSql, { holder, now: ctx.now() })).length
    },
    async remove(mockServiceId, holder) {
      ctx.check()
      return (await all(ctx.db, removeSql, { mockServiceId, holder })).length > 0
    },
    async expired(now) {
      ctx.check()
      return (await all(ctx.db, expiredSql, { now })).map(decode)
    },
    async sharedSecret(name, candidate) {
      ctx.check()
      await all(ctx.db, insertSecretSql, { name, value: candidate })
      return String(returned(await one(ctx.db, secretSql, { name }))['value'])
    },
  }
}
