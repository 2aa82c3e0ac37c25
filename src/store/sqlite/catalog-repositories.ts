import { tagTable, serviceTable } from '../tables/catalog.js'
import type { ServiceRepository, TagRepository } from '../repositories.js'
import type { ListQuery, Page, Tag } from '../types.js'
import { mergePatch, type TableCodec } from '../tables/columns.js'
import { defineTable } from './codec.js'
import { auditSortKeys, preparedListPage, returnedRow, rowOf, type RepoContext } from './context.js'
import type { CountedList } from '../types.js'
import { listSummary } from './list-counts.js'

/*
 * Services (scoped by workspace) and tags (scoped by account): the same shape, a name unique in
 * its scope with a description and audit fields, so one implementation serves both.
 */

const services = defineTable(serviceTable)

const tags = defineTable(tagTable)

interface Named {
  id: number
  name: string
  description: string | null
  updated: number
  updatedBy: string
}

/** The operations common to services and tags; `scope` is the workspace or account id. */
interface NamedRecords<T> {
  insert: (scope: number, name: string, description: string | null, by: string) => T
  get: (scope: number, id: number) => T | undefined
  getByName: (scope: number, name: string) => T | undefined
  list: (scope: number, query: ListQuery) => Promise<Page<T>>
  update: (
    scope: number,
    id: number,
    patch: { name?: string; description?: string | null; by: string },
  ) => T | undefined
  remove: (scope: number, id: number) => boolean
}

function namedRecords<T extends Named>(
  ctx: RepoContext,
  codec: TableCodec<T>,
  scopeColumn: string,
  counted: CountedList,
): NamedRecords<T> {
  const { conn } = ctx
  const { table, columns } = codec
  const get = (scope: number, id: number): T | undefined => {
    const row = rowOf(
      conn
        .statement(`SELECT ${columns} FROM ${table} WHERE id = ? AND ${scopeColumn} = ?`)
        .get(id, scope),
    )
    return row === undefined ? undefined : codec.decode(row)
  }
  return {
    insert(scope, name, description, by) {
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
      return codec.decode(returnedRow(conn.statement(codec.insertSql).get(params)))
    },
    get,
    getByName(scope, name) {
      const row = rowOf(
        conn
          .statement(`SELECT ${columns} FROM ${table} WHERE ${scopeColumn} = ? AND name = ?`)
          .get(scope, name),
      )
      return row === undefined ? undefined : codec.decode(row)
    },
    async list(scope, query) {
      return await preparedListPage(ctx, {
        select: columns,
        from: table,
        where: `${scopeColumn} = @scope`,
        params: { scope },
        sortable: auditSortKeys,
        query,
        decode: codec.decode,
        summary: listSummary(counted, 'scope'),
        scope: `${scopeColumn} = @scope`,
        // every audit sort has an index led by the scope (migration 23)
        indexedSorts: Object.keys(auditSortKeys),
      })
    },
    update(scope, id, patch) {
      const current = get(scope, id)
      if (current === undefined) return undefined
      const next = mergePatch(current, patch, ['name', 'description'])
      next.updated = ctx.now()
      next.updatedBy = patch.by
      return codec.decode(returnedRow(conn.statement(codec.updateSql).get(codec.encode(next))))
    },
    remove(scope, id) {
      return (
        conn.statement(`DELETE FROM ${table} WHERE id = ? AND ${scopeColumn} = ?`).run(id, scope)
          .changes > 0
      )
    },
  }
}

/** The reads, update and delete that services and tags share, each checked against a closed store. */
function scopedAccess<T>(
  ctx: RepoContext,
  records: NamedRecords<T>,
): {
  get: (scope: number, id: number) => Promise<T | undefined>
  getByName: (scope: number, name: string) => Promise<T | undefined>
  list: (scope: number, query: ListQuery) => Promise<Page<T>>
  update: (
    scope: number,
    id: number,
    patch: { name?: string; description?: string | null; by: string },
  ) => Promise<T | undefined>
  delete: (scope: number, id: number) => Promise<boolean>
} {
  return {
    async get(scope, id) {
      ctx.check()
      return records.get(scope, id)
    },
    async getByName(scope, name) {
      ctx.check()
      return records.getByName(scope, name)
    },
    async list(scope, query) {
      ctx.check()
      return await records.list(scope, query)
    },
    async update(scope, id, patch) {
      ctx.check()
      return records.update(scope, id, patch)
    },
    async delete(scope, id) {
      ctx.check()
      return records.remove(scope, id)
    },
  }
}

/**
 * Services of a workspace. Names are unique per workspace (see migrations/001-initial.ts); the
 * schema refuses to delete a service that a mock service uses.
 *
 * @example
 * const pets = await serviceRepository(ctx).create({ workspaceId: 1, name: 'pets', description: null, by: 'ada@example.com' })
 */
export function serviceRepository(ctx: RepoContext): ServiceRepository {
  const records = namedRecords(ctx, services, 'workspace_id', 'services')
  return {
    async create(input) {
      ctx.check()
      return records.insert(input.workspaceId, input.name, input.description, input.by)
    },
    ...scopedAccess(ctx, records),
  }
}

/**
 * Tags of an account. Names are unique per account, which is what keeps `ensure` from creating a
 * tag twice.
 *
 * @example
 * const [smoke] = await tagRepository(ctx).ensure(1, ['smoke'], 'ada@example.com')
 */
export function tagRepository(ctx: RepoContext): TagRepository {
  const { conn } = ctx
  const records = namedRecords(ctx, tags, 'account_id', 'tags')
  return {
    async create(input) {
      ctx.check()
      return records.insert(input.accountId, input.name, input.description, input.by)
    },
    ...scopedAccess(ctx, records),
    async ensure(accountId, names, by) {
      ctx.check()
      const now = ctx.now()
      const insert = conn.statement(
        'INSERT INTO tags (account_id, name, description, created, updated, created_by, updated_by) ' +
          'VALUES (?, ?, NULL, ?, ?, ?, ?) ON CONFLICT (account_id, name) DO NOTHING',
      )
      const out: Tag[] = []
      for (const name of new Set(names)) {
        insert.run(accountId, name, now, now, by, by)
        const tag = records.getByName(accountId, name)
        if (tag === undefined) throw new Error(`tag "${name}" is missing right after its insert`)
        out.push(tag)
      }
      return out
    },
  }
}
