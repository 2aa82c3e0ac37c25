import type { SearchRepository } from '../repositories.js'
import type { Row } from './codec.js'
import type { RepoContext } from './context.js'

/**
 * Runs a search compiled by src/store/sqlite/search-compiler.ts: one parameterised SELECT whose
 * rows carry the total as `__total` (counted from the same scan); the separate COUNT runs only
 * when the page is past the end and so has no row to carry it.
 *
 * @example
 * const { rows, total } = await searchRepository(ctx).run(compileSearch(request, scope))
 */
export function searchRepository(ctx: RepoContext): SearchRepository {
  return {
    dialect: 'sqlite',
    async run(compiled) {
      ctx.check()
      return ctx.conn.snapshot(() => {
        const rows = ctx.conn.statement(compiled.sql).all(compiled.params) as Row[]
        const first = rows[0]
        const total =
          first !== undefined
            ? Number(first['__total'])
            : (ctx.conn.statement(compiled.countSql).get(compiled.params) as { n: number }).n
        for (const row of rows) delete row['__total']
        return { rows, total }
      })
    },
  }
}
