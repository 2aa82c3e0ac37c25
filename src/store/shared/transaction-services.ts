import type { TransactionRepository } from '../repositories.js'
import { listParams, num, type SqlRunner } from './runner.js'

/** Ids per statement: a mock service may name thousands, and either store binds each one. */
const CHUNK = 256

/**
 * The transaction ids' lookup of their services, written once for both stores: one statement a
 * chunk of ids instead of a round trip per id, which is what a mock service create inside the
 * write lock pays on PostgreSQL.
 *
 * @example
 * const services = await transactionServices(run).servicesOf(1, [7, 8]) // Map { 7 => 3, 8 => 3 }
 */
export function transactionServices(run: SqlRunner): Pick<TransactionRepository, 'servicesOf'> {
  return {
    async servicesOf(workspaceId, ids) {
      // An id past 2^53 names no row (ids are far below it) and would overflow PostgreSQL's bigint.
      const wanted = [...new Set(ids)].filter((id) => Number.isSafeInteger(id))
      const services = new Map<number, number>()
      for (let start = 0; start < wanted.length; start += CHUNK) {
        const { placeholders, params } = listParams(padded(wanted.slice(start, start + CHUNK)))
        const rows = await run(
          `SELECT id, service_id FROM transactions WHERE workspace_id = @workspaceId AND id IN (${placeholders})`,
          { ...params, workspaceId },
        )
        for (const row of rows) services.set(num(row['id']), num(row['service_id']))
      }
      return services
    },
  }
}

/**
 * The ids repeated up to the next power of two, so that the statements of every count of ids
 * are a handful of texts (each store keeps its prepared statements by text).
 */
function padded(ids: readonly number[]): number[] {
  let size = 1
  while (size < ids.length) size *= 2
  const last = ids.at(-1)
  if (last === undefined) return []
  return [...ids, ...Array.from({ length: size - ids.length }, () => last)]
}
