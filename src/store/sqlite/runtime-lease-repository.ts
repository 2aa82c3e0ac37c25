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
import { defineTable } from './codec.js'
import { returnedRow, rowOf, type RepoContext } from './context.js'

const claim = claimSql('@adopt = 1')

const leases = defineTable(runtimeLeaseTable)

/**
 * The runtime leases in SQLite, where one platform holds them all: the same code path as on a
 * shared PostgreSQL database (src/store/tables/runtime-lease.ts holds the statements).
 *
 * @example
 * await runtimeLeaseRepository(ctx).claim({ mockServiceId: 7, holder: 'h:1', home: 'h', now, expires: now + 15_000, adopt: false })
 */
export function runtimeLeaseRepository(ctx: RepoContext): RuntimeLeaseRepository {
  const { conn } = ctx
  const decode = (row: unknown) => leases.decode(returnedRow(row))
  const get = (mockServiceId: number) => {
    const row = rowOf(conn.statement(getSql).get({ mockServiceId }))
    return row === undefined ? undefined : decode(row)
  }
  return {
    async claim(input) {
      ctx.check()
      const { mockServiceId, holder, home, now, expires, adopt } = input
      const row = rowOf(
        conn
          .statement(claim)
          .get({ mockServiceId, holder, home, now, expires, adopt: adopt ? 1 : 0 }),
      )
      return row === undefined ? (get(mockServiceId) ?? decode(row)) : decode(row)
    },
    async get(mockServiceId) {
      ctx.check()
      return get(mockServiceId)
    },
    async renew(holder, expires) {
      ctx.check()
      return conn.statement(renewSql).all({ holder, expires }).map(decode)
    },
    async requestHandover(mockServiceId, requester) {
      ctx.check()
      conn.statement(requestHandoverSql).run({ mockServiceId, requester })
    },
    async handOver(mockServiceId, from, to, expires) {
      ctx.check()
      const params = { mockServiceId, from, to, expires, now: ctx.now() }
      return conn.statement(handOverSql).all(params).length > 0
    },
    async record(mockServiceId, holder, facts) {
      ctx.check()
      const { sql, params } = recordSql(facts)
      const all = { ...params, mockServiceId, holder, now: ctx.now() }
      return conn.statement(sql).all(all).length > 0
    },
    async releaseAll(holder) {
      ctx.check()
      return conn.statement(releaseAllSql).all({ holder, now: ctx.now() }).length
    },
    async remove(mockServiceId, holder) {
      ctx.check()
      return conn.statement(removeSql).all({ mockServiceId, holder }).length > 0
    },
    async expired(now) {
      ctx.check()
      return conn.statement(expiredSql).all({ now }).map(decode)
    },
    async sharedSecret(name, candidate) {
      ctx.check()
      conn.statement(insertSecretSql).run({ name, value: candidate })
      return String(returnedRow(conn.statement(secretSql).get({ name }))['value'])
    },
  }
}
