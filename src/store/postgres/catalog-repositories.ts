import { tagTable, serviceTable } from '../tables/catalog.js'
import type { ServiceRepository, TagRepository } from '../repositories.js'
import { mergePatch, type TableCodec } from '../tables/columns.js'
import type { Tag } from '../types.js'
import { definePgTable } from './codec.js'
import type { PgRepoContext } from './context.js'
import { pgAuditSortKeys, pgListPage } from './list.js'
import { pgListSummary } from './list-counts.js'
import { all, one, returned } from './sql.js'

/*
 * Services (scoped by workspace) and tags (scoped by account): a name unique in its scope with a
 * description and audit fields, so one implementation serves both.
 */

const services = definePgTable(serviceTable)

const tags = definePgTable(tagTable)

interface Named {
  id: number
  name: string
  description: string | null
  updated: number
  updatedBy: string
}

function namedRecords<T extends Named>(
  ctx: PgRepoContext,
  codec: TableCodec<T>,
  scopeColumn: string,
  counted: 'services' | 'tags',
) {
  const { table, columns } = codec
  const get = async (scope: number, id: number): Promise<T | undefined> => {
    ctx.check()
    const row = await one(
      ctx.db,
      `SELECT ${columns} FROM ${table} WHERE id = @id AND ${scopeColumn} = @scope`,
      { id, scope },
    )
    return row === undefined ? undefined : codec.decode(row)
  }
  const getByName = async (scope: number, name: string): Promise<T | undefined> => {
    ctx.check()
    const row = await one(
      ctx.db,
      `SELECT ${columns} FROM ${table} WHERE ${scopeColumn} = @scope AND name = @name`,
      { scope, name },
    )
    return row === undefined ? undefined : codec.decode(row)
  }
  return {
    async insert(scope: number, name: string, description: string | null, by: string): Promise<T> {
      ctx.check()
      const now = ctx.now()
      const params = {
        [scopeColumn]: scope,
        name,
        description,
        created: now,
        updated: now,
        created_by: by,
        updated_by: by,
      }
      return codec.decode(returned(await one(ctx.db, codec.insertSql, params)))
    },
    get,
    getByName,
    async list(scope: number, query: Parameters<ServiceRepository['list']>[1]) {
      ctx.check()
      return await pgListPage(ctx, {
        select: columns,
        from: table,
        where: `${scopeColumn} = @scope`,
        params: { scope },
        sortable: pgAuditSortKeys,
        query,
        decode: codec.decode,
        summary: pgListSummary(counted, 'scope'),
      })
    },
    async update(
      scope: number,
      id: number,
      patch: { name?: string; description?: string | null; by: string },
    ): Promise<T | undefined> {
      const current = await get(scope, id)
      if (current === undefined) return undefined
      const next = mergePatch(current, patch, ['name', 'description'])
      next.updated = ctx.now()
      next.updatedBy = patch.by
      return codec.decode(returned(await one(ctx.db, codec.updateSql, codec.encode(next))))
    },
    async delete(scope: number, id: number): Promise<boolean> {
      ctx.check()
      const rows = await all(
        ctx.db,
        `DELETE FROM ${table} WHERE id = @id AND ${scopeColumn} = @scope RETURNING id`,
        { id, scope },
      )
      return rows.length > 0
    },
  }
}

/**
 * Services of a workspace; names unique per workspace, and one a mock service uses cannot go.
 *
 * @example
 * const pets = await pgServiceRepository(ctx).create({ workspaceId: 1, name: 'pets', description: null, by: 'ada@example.com' })
 */
export function pgServiceRepository(ctx: PgRepoContext): ServiceRepository {
  const { insert, ...access } = namedRecords(ctx, services, 'workspace_id', 'services')
  return {
    create: async (input) =>
      await insert(input.workspaceId, input.name, input.description, input.by),
    ...access,
  }
}

/**
 * Tags of an account; names unique per account, which keeps `ensure` from creating one twice.
 *
 * @example
 * const [smoke] = await pgTagRepository(ctx).ensure(1, ['smoke'], 'ada@example.com')
 */
export function pgTagRepository(ctx: PgRepoContext): TagRepository {
  const { insert, ...access } = namedRecords(ctx, tags, 'account_id', 'tags')
  return {
    create: async (input) => await insert(input.accountId, input.name, input.description, input.by),
    ...access,
    async ensure(accountId, names, by) {
      ctx.check()
      const now = ctx.now()
      const out: Tag[] = []
      for (const name of new Set(names)) {
        await all(
          ctx.db,
          'INSERT INTO tags (account_id, name, description, created, updated, created_by, updated_by) ' +
            'VALUES (@account, @name, NULL, @now, @now, @by, @by) ON CONFLICT (account_id, name) DO NOTHING',
          { account: accountId, name, now, by },
        )
        const tag = await access.getByName(accountId, name)
        if (tag === undefined) throw new Error(`tag "${name}" is missing right after its insert`)
        out.push(tag)
      }
      return out
    },
  }
}
