import type { TransactionFilter, TransactionRepository } from '../repositories.js'
import type { StoredTransaction } from '../types.js'
import { mergePatch } from '../tables/columns.js'
import { transactionUpdatable, transactionTable } from '../tables/transactions.js'
import { defineTable, type Row } from './codec.js'
import {
  auditSortKeys,
  listPageInTurns,
  prepareList,
  returnedRow,
  type RepoContext,
  type SortKeys,
} from './context.js'
import { FOLD_FUNCTION } from './connection.js'
import { noteRowsWritten } from './list-changes.js'

/*
 * Transactions, with their tags in `transaction_tags` (one row per tag, in the given order).
 * Every read aggregates the tags back into a JSON array, so a transaction is one row.
 */

const transactions = defineTable(transactionTable)

/**
 * The insert of `createEncoded`, with positional values and no RETURNING: an import stores tens
 * of thousands of rows in one write, and binding eleven named values from an object and reading a
 * returned row back cost more per row than the row's own insert.
 */
// The DSL may be bound as UTF-8 bytes (a BLOB): CAST makes it the TEXT the column holds, byte for byte.
const insertEncodedSql =
  'INSERT INTO transactions (workspace_id, service_id, name, description, dsl_type, dsl, created, updated, created_by, updated_by) ' +
  'VALUES (?, ?, ?, ?, ?, CAST(? AS TEXT), ?, ?, ?, ?)'

/** Counts inserted rows (migration 11: updates and deletes are counted by triggers, inserts here). */
const countInsertedSql =
  'INSERT INTO transaction_counts (workspace_id, service_id, n, changes) VALUES (@workspaceId, @serviceId, @n, @n) ' +
  'ON CONFLICT (workspace_id, service_id) DO UPDATE SET n = n + excluded.n, changes = changes + excluded.changes'

const rewriteEncodedSql =
  'UPDATE transactions SET name = ?, description = ?, dsl_type = ?, dsl = CAST(? AS TEXT) WHERE id = ? AND workspace_id = ?'

const tagsOf =
  '(SELECT json_group_array(x.name ORDER BY x.position) FROM transaction_tags x WHERE x.transaction_id = t.id) AS tags'
const select = `${transactions.columns
  .split(', ')
  .map((c) => `t.${c}`)
  .join(', ')}, ${tagsOf}`

const sortKeys: SortKeys = {
  ...auditSortKeys,
  serviceId: 'service_id',
  dslType: 'dsl_type',
}

/**
 * Every sort has an index in the list's order: led by the workspace (migrations 11, 14 and 20),
 * or for `serviceId` the `(service_id, workspace_id)` index of migration 1 (`servicesInRange`).
 */
const indexedSorts = Object.keys(sortKeys)

/*
 * A `serviceId` order read from `transactions_service (service_id, workspace_id)`, one seek per
 * service of the workspace in order, instead of a sort of the workspace's rows: every range of
 * the order (and the whole of it) is written as the transaction's service among the workspace's
 * services in that range (keyset-sql.ts `firstKeyRange`), always true of a row of the workspace
 * (the foreign key). The range goes inside the subquery: beside a plain `service_id > ?`, SQLite
 * walked every row of the services before it (1 ms at 50,000 rows for LIMIT 1 OFFSET 32).
 */
const servicesInRange =
  't.service_id IN (SELECT id FROM services WHERE workspace_id = @workspaceId AND id {op} {value})'

function decode(row: Row): StoredTransaction {
  return { ...transactions.decode(row), tags: JSON.parse(String(row['tags'])) as string[] }
}

/**
 * The WHERE of a list. Each filter adds a fixed fragment, and lists of values travel as one JSON
 * parameter (json_each), so there are at most 2^6 statement texts to prepare, whatever the values.
 */
function whereOf(
  workspaceId: number,
  filter: TransactionFilter,
): { where: string; params: Row; summary: string } {
  // With ids, the rows are found by id: the unary `+` keeps SQLite's planner (which has no
  // statistics) from walking the workspace's or the service's index instead, testing every row
  // against the ids (2.7 ms at 50,000 rows against 0.08 ms for a few ids).
  const byId = filter.ids === undefined ? '' : '+'
  const conditions = [`${byId}t.workspace_id = @workspaceId`]
  const params: Row = { workspaceId }
  if (filter.serviceId !== undefined) {
    conditions.push(`${byId}t.service_id = @serviceId`)
    params['serviceId'] = filter.serviceId
  }
  if (filter.name !== undefined) {
    conditions.push('t.name = @name')
    params['name'] = filter.name
  }
  if (filter.contains !== undefined && filter.contains !== '') {
    // instr over folded text rather than LIKE: no wildcard in the needle can mean anything
    // (`%`, `_` and `\` are plain characters), and folding is JavaScript's, so non-ASCII letters
    // compare without case too (SQLite's LIKE and lower() fold ASCII only).
    conditions.push(
      `(instr(${FOLD_FUNCTION}(t.name), @contains) > 0 OR instr(${FOLD_FUNCTION}(ifnull(t.description, '')), @contains) > 0)`,
    )
    params['contains'] = filter.contains.toLowerCase()
  }
  if (filter.tags !== undefined && filter.tags.length > 0) {
    // "No requested tag is missing": exact comparison of whole names, whatever they contain.
    conditions.push(
      'NOT EXISTS (SELECT 1 FROM json_each(@tags) j WHERE NOT EXISTS ' +
        '(SELECT 1 FROM transaction_tags x WHERE x.transaction_id = t.id AND x.name = j.value))',
    )
    params['tags'] = JSON.stringify(filter.tags)
  }
  if (filter.dslType !== undefined) {
    conditions.push('t.dsl_type = @dslType')
    params['dslType'] = filter.dslType
  }
  if (filter.ids !== undefined) {
    // An empty list selects nothing: "these ids" of none is none, not "no filter".
    conditions.push('t.id IN (SELECT value FROM json_each(@ids))')
    params['ids'] = JSON.stringify(filter.ids)
  }
  const onlyWorkspaceAndService = conditions.length === (filter.serviceId === undefined ? 1 : 2)
  return {
    where: conditions.join(' AND '),
    params,
    summary: summaryOf(filter, onlyWorkspaceAndService),
  }
}

/*
 * The summary of a list (see ListSpec.summary), from the counts the triggers of migration 11 keep:
 * a few rows per workspace (one per service), whatever the number of transactions. A list by
 * workspace, or by workspace and service, reads its total there; a list with any other filter
 * still counts its rows, and watches the changes of the same rows.
 */
const countsOfWorkspace = 'FROM transaction_counts WHERE workspace_id = @workspaceId'
const countsOfService = `${countsOfWorkspace} AND service_id = @serviceId`
/** The change count of a workspace's every transaction: what the writes noted must add up to (list-changes.ts). */
const workspaceVersion = `SELECT ifnull(SUM(changes), 0) AS version ${countsOfWorkspace}`

/*
 * What each write adds to the change count of the rows' workspace (migration 11), noted with the
 * rows: an insert 1 (counted by the store), a delete 1, an update 2 (its trigger counts the row
 * out of its old service and into its new one).
 */
const INSERTED = 1
const DELETED = 1
const UPDATED = 2

function summaryOf(filter: TransactionFilter, onlyWorkspaceAndService: boolean): string {
  const counts = filter.serviceId === undefined ? countsOfWorkspace : countsOfService
  return `SELECT ${onlyWorkspaceAndService ? 'ifnull(SUM(n), 0)' : 'NULL'} AS total, ifnull(SUM(changes), 0) AS version ${counts}`
}

/** Distinct values, first occurrence first. */
function distinct<T>(values: readonly T[]): T[] {
  return [...new Set(values)]
}

/**
 * Transactions of a workspace. Their service must be in the same workspace (the foreign key is
 * (service_id, workspace_id)), and they go when their service goes.
 *
 * @example
 * const page = await transactionRepository(ctx).list(1, { tags: ['smoke'], contains: 'order' }, { limit: 50, skip: 0 })
 */
export function transactionRepository(ctx: RepoContext): Omit<TransactionRepository, 'servicesOf'> {
  const { conn } = ctx
  const get = (workspaceId: number, id: number): StoredTransaction | undefined => {
    const row = conn
      .statement(`SELECT ${select} FROM transactions t WHERE t.id = ? AND t.workspace_id = ?`)
      .get(id, workspaceId)
    return row === undefined ? undefined : decode(row as Row)
  }
  const countInserted = (workspaceId: number, serviceId: number, n: number): void => {
    if (n > 0) conn.statement(countInsertedSql).run({ workspaceId, serviceId, n })
  }
  const insertTags = (id: number, tags: readonly string[]): void => {
    const insert = conn.statement(
      'INSERT INTO transaction_tags (transaction_id, name, position) VALUES (?, ?, ?)',
    )
    distinct(tags).forEach((name, position) => insert.run(id, name, position))
  }
  const replaceTags = (id: number, tags: readonly string[]): void => {
    conn.statement('DELETE FROM transaction_tags WHERE transaction_id = ?').run(id)
    insertTags(id, tags)
  }
  /** Adds and removes tags of one transaction; true when its tags changed. */
  const changeTagsOf = (id: number, add: readonly string[], remove: readonly string[]): boolean => {
    let changes = 0
    const insert = conn.statement(
      'INSERT INTO transaction_tags (transaction_id, name, position) ' +
        'SELECT @id, @name, ifnull(max(position), -1) + 1 FROM transaction_tags WHERE transaction_id = @id ' +
        'ON CONFLICT (transaction_id, name) DO NOTHING',
    )
    for (const name of distinct(add)) changes += insert.run({ id, name }).changes
    const drop = conn.statement(
      'DELETE FROM transaction_tags WHERE transaction_id = ? AND name = ?',
    )
    for (const name of distinct(remove)) changes += drop.run(id, name).changes
    return changes > 0
  }
  return {
    async create(input) {
      ctx.check()
      const now = ctx.now()
      const row = returnedRow(
        conn.statement(transactions.insertSql).get(
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
      countInserted(input.workspaceId, input.serviceId, 1)
      noteRowsWritten(conn, input.workspaceId, [id], INSERTED)
      replaceTags(id, input.tags)
      return { ...transactions.decode(row), tags: distinct(input.tags) }
    },
    async createEncodedMany(into, rows) {
      ctx.check()
      const now = ctx.now()
      const insert = conn.statement(insertEncodedSql)
      const ids: number[] = []
      try {
        for (const row of rows) {
          const { lastInsertRowid } = insert.run(
            into.workspaceId,
            into.serviceId,
            row.name,
            row.description ?? null,
            row.dslType,
            row.dslJson,
            now,
            now,
            into.by,
            into.by,
          )
          const id = Number(lastInsertRowid)
          ids.push(id)
          // a new row has no tags to replace
          if (row.tags.length > 0) insertTags(id, row.tags)
        }
      } finally {
        // the rows inserted before a failure are counted too, for a caller that goes on and commits
        countInserted(into.workspaceId, into.serviceId, ids.length)
        noteRowsWritten(conn, into.workspaceId, ids, ids.length * INSERTED)
      }
      return ids
    },
    async rewriteEncoded(workspaceId, id, row) {
      ctx.check()
      const changed =
        conn
          .statement(rewriteEncodedSql)
          .run(row.name, row.description ?? null, row.dslType, row.dslJson, id, workspaceId)
          .changes > 0
      if (changed) {
        noteRowsWritten(conn, workspaceId, [id], UPDATED)
        replaceTags(id, row.tags)
      }
      return changed
    },
    async get(workspaceId, id) {
      ctx.check()
      return get(workspaceId, id)
    },
    async list(workspaceId, filter, query) {
      ctx.check()
      const { where, params, summary } = whereOf(workspaceId, filter)
      const byService = (query.sort ?? '').replace(/^[-+]/, '') === 'serviceId'
      const spec = {
        select,
        from: 'transactions t',
        where,
        params,
        sortable: sortKeys,
        query,
        decode,
        summary,
        scope: 't.workspace_id = @workspaceId',
        indexedSorts,
        ...(byService ? { firstKeyRange: servicesInRange } : {}),
        changes: { scope: workspaceId, scopeVersion: workspaceVersion },
      }
      await prepareList(ctx, spec)
      ctx.check()
      return await listPageInTurns(ctx, spec)
    },
    async update(workspaceId, id, patch) {
      ctx.check()
      const current = get(workspaceId, id)
      if (current === undefined) return undefined
      const next = mergePatch(current, patch, transactionUpdatable)
      next.updated = ctx.now()
      next.updatedBy = patch.by
      const { changes } = conn.statement(transactions.updateSql).run(transactions.encode(next))
      noteRowsWritten(conn, workspaceId, [id], changes * UPDATED)
      if (patch.tags !== undefined) replaceTags(id, patch.tags)
      return get(workspaceId, id)
    },
    async delete(workspaceId, id) {
      ctx.check()
      const { changes } = conn
        .statement('DELETE FROM transactions WHERE id = ? AND workspace_id = ?')
        .run(id, workspaceId)
      if (changes > 0) noteRowsWritten(conn, workspaceId, [id], DELETED)
      return changes > 0
    },
    async deleteMany(workspaceId, ids) {
      ctx.check()
      const remove = conn.statement('DELETE FROM transactions WHERE id = ? AND workspace_id = ?')
      const removed = distinct(ids).filter((id) => remove.run(id, workspaceId).changes > 0)
      noteRowsWritten(conn, workspaceId, removed, removed.length * DELETED)
      return removed
    },
    async changeTags(workspaceId, ids, tags, by) {
      ctx.check()
      const exists = conn.statement(
        'SELECT 1 AS found FROM transactions WHERE id = ? AND workspace_id = ?',
      )
      const touch = conn.statement(
        'UPDATE transactions SET updated = ?, updated_by = ? WHERE id = ?',
      )
      const now = ctx.now()
      const changed: number[] = []
      for (const id of distinct(ids)) {
        if (exists.get(id, workspaceId) === undefined) continue
        // Only a transaction whose tags really changed counts as updated.
        if (changeTagsOf(id, tags.add ?? [], tags.remove ?? [])) {
          touch.run(now, by, id)
          noteRowsWritten(conn, workspaceId, [id], UPDATED)
        }
        changed.push(id)
      }
      return changed
    },
  }
}
