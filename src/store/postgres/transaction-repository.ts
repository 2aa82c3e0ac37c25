import type {
  EncodedTransactionRow,
  TransactionFilter,
  TransactionRepository,
} from '../repositories.js'
import { mergePatch } from '../tables/columns.js'
import { transactionUpdatable, transactionTable } from '../tables/transactions.js'
import type { StoredTransaction } from '../types.js'
import { definePgTable } from './codec.js'
import type { PgRepoContext } from './context.js'
import { noteRowsWritten } from './list-changes.js'
import { MAX_WRITTEN_ROWS } from '../shared/written-rows.js'
import { pgAuditSortKeys, pgListPage, type PgSortKeys } from './list.js'
import { all, one, returned, type Row } from './sql.js'

/*
 * Transactions in PostgreSQL, with their tags in `transaction_tags` (one row per tag, in the given
 * order); every read aggregates the tags back into a JSON array, so a transaction is one row.
 */

const transactions = definePgTable(transactionTable)

/**
 * Rows of an import per INSERT: one statement binds a column's values as one array (unnest), so
 * a run of rows costs one round trip, and the event loop gets a turn between runs.
 */
const INSERT_BATCH = 1000

const insertEncodedSql =
  'INSERT INTO transactions (workspace_id, service_id, name, description, dsl_type, dsl, created, updated, created_by, updated_by) ' +
  'SELECT @workspaceId, @serviceId, r.name, r.description, r.dsl_type, r.dsl::json, @now, @now, @by, @by ' +
  'FROM unnest(@names::text[], @descriptions::text[], @dslTypes::text[], @dsls::text[]) WITH ORDINALITY AS r(name, description, dsl_type, dsl, n) ' +
  'ORDER BY r.n RETURNING id'

const insertTagsSql =
  'INSERT INTO transaction_tags (transaction_id, name, position) ' +
  'SELECT * FROM unnest(@ids::bigint[], @names::text[], @positions::integer[])'

/** Counts inserted rows (updates and deletes are counted by triggers, inserts here). */
const countInsertedSql =
  'INSERT INTO transaction_counts (workspace_id, service_id, n, changes) VALUES (@workspaceId, @serviceId, @n, @n) ' +
  'ON CONFLICT (workspace_id, service_id) DO UPDATE SET n = transaction_counts.n + excluded.n, changes = transaction_counts.changes + excluded.changes'

/** Changes kept in `transaction_changes`: enough for lists a few minutes behind on a busy platform. */
const KEPT_CHANGES = 10000

/**
 * Logs rows as they are before this write updates or deletes them (migration 14), locked so
 * that the values logged are the ones the write changes, and prunes the log to its last
 * `KEPT_CHANGES` entries; the log's new sequence numbers.
 */
const logChangesSql =
  'WITH logged AS (INSERT INTO transaction_changes (id, workspace_id, service_id, name, description, dsl_type, created, updated, created_by, updated_by, tags) ' +
  'SELECT t.id, t.workspace_id, t.service_id, t.name, t.description, t.dsl_type, t.created, t.updated, t.created_by, t.updated_by, ' +
  "coalesce((SELECT array_agg(x.name ORDER BY x.position) FROM transaction_tags x WHERE x.transaction_id = t.id), '{}') " +
  'FROM transactions t WHERE t.id = ANY(@ids::bigint[]) AND t.workspace_id = @workspaceId ORDER BY t.id FOR UPDATE RETURNING seq), ' +
  // Rows another write is pruning are skipped, so that two writes never wait on each other here.
  `pruned AS (DELETE FROM transaction_changes WHERE seq IN (SELECT seq FROM transaction_changes ` +
  `WHERE seq <= (SELECT max(seq) FROM logged) - ${KEPT_CHANGES} FOR UPDATE SKIP LOCKED)) ` +
  'SELECT seq FROM logged'

const rewriteEncodedSql =
  'UPDATE transactions SET name = @name, description = @description, dsl_type = @dslType, dsl = @dsl::json WHERE id = @id AND workspace_id = @workspaceId RETURNING id'

const tagsOf =
  "(SELECT coalesce(json_agg(x.name ORDER BY x.position), '[]'::json) FROM transaction_tags x WHERE x.transaction_id = t.id) AS tags"
const select = `${transactions.columns
  .split(', ')
  .map((c) => `t.${c}`)
  .join(', ')}, ${tagsOf}`

const sortKeys: PgSortKeys = {
  ...pgAuditSortKeys,
  serviceId: 'service_id',
  dslType: 'dsl_type',
}

function decode(row: Row): StoredTransaction {
  const tags = row['tags']
  return {
    ...transactions.decode(row),
    tags: (typeof tags === 'string' ? JSON.parse(tags) : tags) as string[],
  }
}

/** Text of a DSL given as a string or its UTF-8 bytes. */
const utf8 = new TextDecoder()
function dslText(dsl: string | Uint8Array): string {
  return typeof dsl === 'string' ? dsl : utf8.decode(dsl)
}

/**
 * The WHERE of a list: a fixed fragment per filter, lists of values bound as arrays, so there are
 * at most 2^6 statement texts whatever the values.
 */
function whereOf(
  workspaceId: number,
  filter: TransactionFilter,
): { where: string; departedWhere: string; params: Row; summary: string; scope?: string } {
  const conditions = ['t.workspace_id = @workspaceId']
  const params: Row = { workspaceId }
  if (filter.serviceId !== undefined) {
    conditions.push('t.service_id = @serviceId')
    params['serviceId'] = filter.serviceId
  }
  if (filter.name !== undefined) {
    conditions.push('t.name = @name')
    params['name'] = filter.name
  }
  if (filter.contains !== undefined && filter.contains !== '') {
    // strpos over folded text rather than LIKE: no wildcard in the needle means anything, and
    // ICU's folding, like JavaScript's, lowers non-ASCII letters too.
    conditions.push(
      `(strpos(lower(t.name COLLATE "und-x-icu"), @contains) > 0 OR strpos(lower(coalesce(t.description, '') COLLATE "und-x-icu"), @contains) > 0)`,
    )
    params['contains'] = filter.contains.toLowerCase()
  }
  let tagged: string | undefined
  if (filter.tags !== undefined && filter.tags.length > 0) {
    // "No requested tag is missing": exact comparison of whole names, whatever they contain.
    tagged =
      'NOT EXISTS (SELECT 1 FROM unnest(@tags::text[]) j(value) WHERE NOT EXISTS ' +
      '(SELECT 1 FROM transaction_tags x WHERE x.transaction_id = t.id AND x.name = j.value))'
    conditions.push(tagged)
    params['tags'] = [...filter.tags]
  }
  if (filter.dslType !== undefined) {
    conditions.push('t.dsl_type = @dslType')
    params['dslType'] = filter.dslType
  }
  if (filter.ids !== undefined) {
    // An empty list selects nothing: "these ids" of none is none, not "no filter".
    conditions.push('t.id = ANY(@ids::bigint[])')
    params['ids'] = [...filter.ids]
  }
  const onlyWorkspaceAndService = conditions.length === (filter.serviceId === undefined ? 1 : 2)
  // A substring or tags filter is evaluated row by row: its list is counted, and paged, from
  // positions among the workspace's rows; the others are counted from an index.
  const unindexed = params['contains'] !== undefined || params['tags'] !== undefined
  return {
    where: conditions.join(' AND '),
    // The logged rows carry their tags as an array (migration 14): the same filter over them.
    departedWhere: conditions
      .map((condition) => (condition === tagged ? '@tags::text[] <@ t.tags' : condition))
      .join(' AND '),
    params,
    summary: summaryOf(filter, onlyWorkspaceAndService),
    ...(unindexed ? { scope: 't.workspace_id = @workspaceId' } : {}),
  }
}

const countsOfWorkspace = 'FROM transaction_counts WHERE workspace_id = @workspaceId'
const countsOfService = `${countsOfWorkspace} AND service_id = @serviceId`

/** The workspace's change count: every write to its transactions moves it (list-changes.ts). */
const workspaceVersionSql = `SELECT coalesce(SUM(changes), 0) AS version ${countsOfWorkspace}`

/**
 * The list's total from the maintained counts when no other filter applies, its change count,
 * and the workspace's.
 */
function summaryOf(filter: TransactionFilter, onlyWorkspaceAndService: boolean): string {
  const total = onlyWorkspaceAndService ? 'coalesce(SUM(n), 0)' : 'NULL::bigint'
  if (filter.serviceId === undefined) {
    return `SELECT ${total} AS total, coalesce(SUM(changes), 0) AS version, coalesce(SUM(changes), 0) AS scope_version ${countsOfWorkspace}`
  }
  return `SELECT ${total} AS total, coalesce(SUM(changes), 0) AS version, (${workspaceVersionSql}) AS scope_version ${countsOfService}`
}

function distinct<T>(values: readonly T[]): T[] {
  return [...new Set(values)]
}

/**
 * Transactions of a workspace, in PostgreSQL.
 *
 * @example
 * const page = await pgTransactionRepository(ctx).list(1, { tags: ['smoke'] }, { limit: 50, skip: 0 })
 */
export function pgTransactionRepository(
  ctx: PgRepoContext,
): Omit<TransactionRepository, 'servicesOf'> {
  const { db } = ctx
  const get = async (workspaceId: number, id: number): Promise<StoredTransaction | undefined> => {
    const row = await one(
      db,
      `SELECT ${select} FROM transactions t WHERE t.id = @id AND t.workspace_id = @workspaceId`,
      { id, workspaceId },
    )
    return row === undefined ? undefined : decode(row)
  }
  // Each write notes the rows it changed and what it adds to the workspace's change count: the
  // counted inserts one per row, the triggers of migration 1 two per UPDATE (the old service's
  // count and the new one's), one per DELETE.
  const note = (workspaceId: number, ids: readonly number[], changes: number, inserted = false) => {
    noteRowsWritten(ctx.writes, workspaceId, ids, changes, inserted)
  }
  // Rows about to be updated or deleted, as they are, for other instances' lists. A write of
  // more rows than lists are moved by is not logged (they read their rows again): an upload
  // placing thousands of rows would pay a statement per row for nothing.
  const logChanged = async (workspaceId: number, ids: readonly number[]): Promise<number[]> => {
    const written = ctx.writes === undefined ? 0 : ctx.writes.count
    if (ids.length === 0 || ctx.writes?.tooMany === true) return []
    if (written + ids.length > MAX_WRITTEN_ROWS) return []
    const logged = await all(db, logChangesSql, { ids, workspaceId })
    return logged.map((r) => r['seq'] as number)
  }
  const countInserted = async (workspaceId: number, serviceId: number, ids: readonly number[]) => {
    const n = ids.length
    if (n > 0) await all(db, countInsertedSql, { workspaceId, serviceId, n })
    note(workspaceId, ids, n, true)
  }
  const insertTags = async (rows: ReadonlyArray<{ id: number; tags: readonly string[] }>) => {
    const ids: number[] = []
    const names: string[] = []
    const positions: number[] = []
    for (const { id, tags } of rows) {
      distinct(tags).forEach((name, position) => {
        ids.push(id)
        names.push(name)
        positions.push(position)
      })
    }
    if (ids.length > 0) await all(db, insertTagsSql, { ids, names, positions })
  }
  const replaceTags = async (id: number, tags: readonly string[]) => {
    await all(db, 'DELETE FROM transaction_tags WHERE transaction_id = @id', { id })
    await insertTags([{ id, tags }])
  }
  const changeTagsOf = async (
    id: number,
    add: readonly string[],
    remove: readonly string[],
  ): Promise<boolean> => {
    let changes = 0
    for (const name of distinct(add)) {
      changes += (
        await all(
          db,
          'INSERT INTO transaction_tags (transaction_id, name, position) ' +
            'SELECT @id, @name, coalesce(max(position), -1) + 1 FROM transaction_tags WHERE transaction_id = @id ' +
            'ON CONFLICT (transaction_id, name) DO NOTHING RETURNING 1',
          { id, name },
        )
      ).length
    }
    for (const name of distinct(remove)) {
      changes += (
        await all(
          db,
          'DELETE FROM transaction_tags WHERE transaction_id = @id AND name = @name RETURNING 1',
          { id, name },
        )
      ).length
    }
    return changes > 0
  }
  const insertRun = async (
    into: { workspaceId: number; serviceId: number; by: string },
    rows: readonly EncodedTransactionRow[],
    now: number,
  ): Promise<number[]> => {
    const inserted = await all(db, insertEncodedSql, {
      ...into,
      now,
      names: rows.map((r) => r.name),
      descriptions: rows.map((r) => r.description ?? null),
      dslTypes: rows.map((r) => r.dslType),
      dsls: rows.map((r) => dslText(r.dslJson)),
    })
    // Identity values are drawn in insert order, which the ORDER BY fixes as the rows' order.
    const ids = inserted.map((r) => r['id'] as number).sort((a, b) => a - b)
    await insertTags(rows.map((r, i) => ({ id: ids[i]!, tags: r.tags })))
    return ids
  }
  return {
    async create(input) {
      ctx.check()
      const now = ctx.now()
      const row = returned(
        await one(
          db,
          transactions.insertSql,
          transactions.encode({
            workspaceId: input.workspaceId,
            serviceId: input.serviceId,
            name: input.name,
            description: input.description,
            dslType: input.dslType,
            dsl: input.dsl,
            created: now,
            updated: now,
            createdBy: input.by,
            updatedBy: input.by,
          }),
        ),
      )
      const id = row['id'] as number
      await countInserted(input.workspaceId, input.serviceId, [id])
      await insertTags([{ id, tags: input.tags }])
      return { ...transactions.decode(row), tags: distinct(input.tags) }
    },
    async createEncodedMany(into, rows) {
      ctx.check()
      const now = ctx.now()
      const ids: number[] = []
      for (let start = 0; start < rows.length; start += INSERT_BATCH) {
        ids.push(...(await insertRun(into, rows.slice(start, start + INSERT_BATCH), now)))
      }
      await countInserted(into.workspaceId, into.serviceId, ids)
      return ids
    },
    async rewriteEncoded(workspaceId, id, row) {
      ctx.check()
      await logChanged(workspaceId, [id])
      const changed =
        (
          await all(db, rewriteEncodedSql, {
            name: row.name,
            description: row.description ?? null,
            dslType: row.dslType,
            dsl: dslText(row.dslJson),
            id,
            workspaceId,
          })
        ).length > 0
      if (changed) {
        await replaceTags(id, row.tags)
        note(workspaceId, [id], 2)
      }
      return changed
    },
    async get(workspaceId, id) {
      ctx.check()
      return await get(workspaceId, id)
    },
    async list(workspaceId, filter, query) {
      ctx.check()
      const { where, departedWhere, params, summary, scope } = whereOf(workspaceId, filter)
      return await pgListPage(ctx, {
        select,
        from: 'transactions t',
        where,
        params,
        sortable: sortKeys,
        query,
        decode,
        summary,
        ...(scope === undefined ? {} : { scope }),
        changes: {
          scope: workspaceId,
          scopeVersion: workspaceVersionSql,
          // The summary counts the changes of the service's rows, or of the workspace's.
          versionRows:
            filter.serviceId === undefined
              ? 't.workspace_id = @workspaceId'
              : 't.workspace_id = @workspaceId AND t.service_id = @serviceId',
          departures: { table: 'transaction_changes', where: departedWhere },
        },
      })
    },
    async update(workspaceId, id, patch) {
      ctx.check()
      const current = await get(workspaceId, id)
      if (current === undefined) return undefined
      const next = mergePatch(current, patch, transactionUpdatable)
      next.updated = ctx.now()
      next.updatedBy = patch.by
      await logChanged(workspaceId, [id])
      const updated = await all(db, transactions.updateSql, transactions.encode(next))
      if (patch.tags !== undefined) await replaceTags(id, patch.tags)
      note(workspaceId, [id], 2 * updated.length)
      return await get(workspaceId, id)
    },
    async delete(workspaceId, id) {
      ctx.check()
      await logChanged(workspaceId, [id])
      const rows = await all(
        db,
        'DELETE FROM transactions WHERE id = @id AND workspace_id = @workspaceId RETURNING id',
        { id, workspaceId },
      )
      note(workspaceId, [id], rows.length)
      return rows.length > 0
    },
    async deleteMany(workspaceId, ids) {
      ctx.check()
      const wanted = distinct(ids)
      await logChanged(workspaceId, wanted)
      const rows = await all(
        db,
        'DELETE FROM transactions WHERE id = ANY(@ids::bigint[]) AND workspace_id = @workspaceId RETURNING id',
        { ids: wanted, workspaceId },
      )
      const deleted = new Set(rows.map((r) => r['id'] as number))
      note(workspaceId, [...deleted], deleted.size)
      return wanted.filter((id) => deleted.has(id))
    },
    async changeTags(workspaceId, ids, tags, by) {
      ctx.check()
      const now = ctx.now()
      const wanted = distinct(ids)
      const existing = new Set(
        (
          await all(
            db,
            'SELECT id FROM transactions WHERE id = ANY(@ids::bigint[]) AND workspace_id = @workspaceId',
            { ids: wanted, workspaceId },
          )
        ).map((r) => r['id'] as number),
      )
      const changed: number[] = []
      for (const id of wanted) {
        if (!existing.has(id)) continue
        // Logged before its tags change; only a transaction whose tags really changed counts as
        // updated (and stays logged).
        const logged = await logChanged(workspaceId, [id])
        if (await changeTagsOf(id, tags.add ?? [], tags.remove ?? [])) {
          await all(db, 'UPDATE transactions SET updated = @now, updated_by = @by WHERE id = @id', {
            now,
            by,
            id,
          })
          note(workspaceId, [id], 2)
        } else if (logged.length > 0) {
          await all(db, 'DELETE FROM transaction_changes WHERE seq = ANY(@logged::bigint[])', {
            logged,
          })
        }
        changed.push(id)
      }
      return changed
    },
  }
}
