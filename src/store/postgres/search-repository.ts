import type { SearchRepository } from '../repositories.js'
import type { PgRepoContext } from './context.js'
import { snapshot } from './list.js'
import { all, one } from './sql.js'

/**
 * Runs a search compiled for PostgreSQL (compileSearch with the 'postgres' dialect): one SELECT
 * whose rows carry the total as `__total`; the COUNT runs only when the page is past the end.
 *
 * @example
 * const { rows, total } = await pgSearchRepository(ctx).run(compileSearch(request, scope, 'postgres'))
 */
export function pgSearchRepository(ctx: PgRepoContext): SearchRepository {
  return {
    dialect: 'postgres',
    async run(compiled) {
      ctx.check()
      return await snapshot(ctx.db, async (q) => {
        const rows = await all(q, compiled.sql, compiled.params)
        const first = rows[0]
        const total =
          first !== undefined
            ? Number(first['__total'])
            : Number((await one(q, compiled.countSql, compiled.params))?.['n'])
        for (const row of rows) delete row['__total']
        return { rows, total }
      })
    },
  }
}
