import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Audit, ListQuery, Page } from '../types.js'
import { newAudited, type TableCodec } from '../tables/columns.js'
import type { Row } from './codec.js'
import type { Connection } from './connection.js'
import type { SqlRunner } from '../shared/runner.js'
import {
  afterArms,
  countOfArms,
  everyFirstKey,
  keyOrder,
  orderByClause,
  orderedUnion,
  rangeArms,
  sameFirstKeySql,
  type SortOrder,
} from './keyset-sql.js'
import { pageEndAt, rememberPageEnd, totalAt, totalKnownAt } from './keyset.js'
import {
  keyParams,
  markBefore,
  positionsAt,
  readPositions,
  type ListShift,
  type PositionStatements,
} from './list-positions.js'
import { comparisonOf } from './key-compare.js'
import { rowsBetweenMarks, type SegmentStatements } from './list-segments.js'

/**
 * What a repository works with: a connection (the reader for the store's own repositories, the
 * writer inside `write`), a guard, and the clock.
 */
export interface RepoContext {
  readonly conn: Connection
  /** Throws when the store is closed, or when the `write` these repositories were given to has ended. */
  readonly check: () => void
  /** Epoch milliseconds. */
  readonly now: () => number
}

/** Sort keys a list accepts: field name to SQL expression(s), comma-separated. */
export type SortKeys = Readonly<Record<string, string>>

/** Sort keys every audited resource (services, tags, transactions...) accepts. */
export const auditSortKeys: SortKeys = {
  id: 'id',
  name: 'name COLLATE NOCASE',
  created: 'created',
  updated: 'updated',
  createdBy: 'created_by COLLATE NOCASE',
  updatedBy: 'updated_by COLLATE NOCASE',
}

/**
 * The sort of `sort` (`name`, `-updated`; default `id`). Ties are broken by id in the same
 * direction, so that paging is stable and `-x` is exactly the reverse of `x`. Text sorts ignore
 * ASCII case, as a person reading a list expects.
 *
 * An unknown field throws a plain Error: the API validates `sort` against its own list first
 * (src/api/paging.ts), so reaching here with one is a programming error, not a 400.
 *
 * @example
 * sortOrder(auditSortKeys, '-name') // { expressions: ['name COLLATE NOCASE', 'id'], descending: true }
 */
function sortOrder(sortable: SortKeys, sort: string | undefined, idColumn = 'id'): SortOrder {
  const descending = sort?.startsWith('-') ?? false
  const field = sort === undefined || sort === '' ? 'id' : sort.replace(/^[-+]/, '')
  const expression = Object.hasOwn(sortable, field) ? sortable[field] : undefined
  if (expression === undefined) {
    throw new Error(
      `cannot sort by "${field}": expected one of ${Object.keys(sortable).join(', ')}`,
    )
  }
  const expressions = expression.split(',').map((part) => part.trim())
  if (field !== 'id') expressions.push(idColumn)
  return { expressions, descending }
}

/** One list: a WHERE over a table, counted and paged. */
interface ListSpec<T> {
  select: string
  from: string
  /** Conditions with named parameters (`workspace_id = @workspaceId`). */
  where: string
  params: Row
  sortable: SortKeys
  query: ListQuery
  decode: (row: Row) => T
  /** The tie-breaking id column, qualified when `from` is a join (default `id`). */
  idColumn?: string
  /**
   * A statement (with `params`) that reads without scanning the list one row `{ total, version }`:
   * `version` changes whenever a row the list may hold is inserted, changed or deleted, and
   * `total` is the list's total, or NULL when it must be counted. With it the list is paged by
   * keyset where it can (src/store/sqlite/keyset.ts); without it, by COUNT(*) and OFFSET.
   */
  summary?: string
  /**
   * The part of `where` an index in every sort order starts with (`t.workspace_id = @workspaceId`):
   * with it and `summary`, `prepareList` reads the list's positions in slices of the scope's rows
   * (src/store/sqlite/list-positions.ts).
   */
  scope?: string
  /**
   * The sort fields an index in `scope` serves (ties by id): positions are read only for these, a
   * slice of another order would sort the scope each time.
   */
  indexedSorts?: readonly string[]
  /**
   * The scope's key as writes note it (list-changes.ts) and its change count (`{ version }`, with
   * `params`): with them a small write moves the list's positions instead of having them read again.
   */
  changes?: { scope: number; scopeVersion: string }
  /** The first sort key's ranges written another way (keyset-sql.ts `SortOrder.firstKeyRange`). */
  firstKeyRange?: string
}

/** Prefix of the sort-key columns a keyset-paged list selects beside its own, and of their parameters. */
const KEY_COLUMN = 'list_key_'
/** Prefix of the parameters of the last keys a slice of positions reaches. */
const BOUND_COLUMN = 'list_bound_'
/**
 * A `skip` up to this is read by OFFSET when no page ends there: stepping over this many index
 * entries costs about what one page does. A farther one is answered from the list's positions.
 */
const NEAR_SKIP = 1000

/** What a keyset-paged list is made of, derived once per call from its spec. */
interface ListShape {
  order: SortOrder
  /** The sort-key columns, `expression AS list_key_N`. */
  keys: string
  countSql: string
  /** The key of the list's total in the cache of counted totals: its COUNT and parameters. */
  countKey: string
  pageSql: string
  /** `pageSql` selecting only the id (`list_id`) and sort keys of each row. */
  pageIdsSql: string
  /** The rows whole, with their id as `list_id`, of the ids in `@list_ids` (a JSON array), in no order. */
  rowsByIdSql: string
  /** The key of the list's caches: its page statement and parameters (not limit or skip). */
  list: string
}

function shapeOf<T>(spec: ListSpec<T>): ListShape {
  const order = sortOrder(spec.sortable, spec.query.sort, spec.idColumn)
  if (spec.firstKeyRange !== undefined) order.firstKeyRange = spec.firstKeyRange
  const keys = order.expressions
    .map((expression, i) => `${expression} AS ${KEY_COLUMN}${i}`)
    .join(', ')
  const idColumn = spec.idColumn ?? 'id'
  const every = everyFirstKey(order)
  const where = every === '1' ? spec.where : `${spec.where} AND ${every}`
  const ordered = `FROM ${spec.from} WHERE ${where} ORDER BY ${orderByClause(order)} LIMIT @limit OFFSET @skip`
  const pageSql = `SELECT ${spec.select}, ${keys} ${ordered}`
  const countSql = `SELECT COUNT(*) AS n FROM ${spec.from} WHERE ${spec.where}`
  const params = JSON.stringify(spec.params)
  return {
    order,
    keys,
    countSql,
    countKey: `${countSql}\u0000${params}`,
    pageSql,
    pageIdsSql: `SELECT ${idColumn} AS list_id, ${keys} ${ordered}`,
    rowsByIdSql:
      `SELECT ${spec.select}, ${idColumn} AS list_id FROM ${spec.from} WHERE ${idColumn} IN (SELECT value FROM json_each(@list_ids))` +
      (spec.from.includes(' JOIN ') && spec.scope !== undefined ? ` AND ${spec.scope}` : ''),
    list: `${pageSql}\u0000${params}`,
  }
}

/**
 * A page and the total before paging, read in one snapshot so that they agree. `limit` is taken
 * as given (the API caps it); a negative one means no limit, as in SQLite.
 *
 * @example
 * listPage(ctx, { select: 'id, name', from: 'services', where: 'workspace_id = @ws', params: { ws: 1 }, sortable: auditSortKeys, query, decode })
 */
export function listPage<T>(ctx: RepoContext, spec: ListSpec<T>): Page<T> {
  const { limit, skip } = spec.query
  if (spec.summary === undefined) {
    const order = sortOrder(spec.sortable, spec.query.sort, spec.idColumn)
    const countSql = `SELECT COUNT(*) AS n FROM ${spec.from} WHERE ${spec.where}`
    const pageSql = `SELECT ${spec.select} FROM ${spec.from} WHERE ${spec.where} ORDER BY ${orderByClause(order)} LIMIT @limit OFFSET @skip`
    return ctx.conn.snapshot(() => {
      const total = (ctx.conn.statement(countSql).get(spec.params) as { n: number }).n
      const rows = ctx.conn.statement(pageSql).all({ ...spec.params, limit, skip }) as Row[]
      return { items: rows.map(spec.decode), total }
    })
  }
  const shape = shapeOf(spec)
  return ctx.conn.snapshot(() => {
    const summary = summaryOf(ctx, spec)
    const total = totalOf(ctx, spec, shape, summary)
    const rows = pageRows(ctx, spec, shape, summary.version, total)
    rememberEnd(ctx, spec, shape, summary.version, rows)
    return { items: rows.map(spec.decode), total }
  })
}

/**
 * The rows of a page, read the cheapest way the list allows: none past the end; after the keys
 * of the page before when it ended at `skip`; from the last of the list's positions before
 * `skip`, stepping over the rest; by OFFSET otherwise. `idsOnly`: only the id (`list_id`) and
 * sort keys of each row, from the index, without reading the rows whole.
 */
function pageRows<T>(
  ctx: RepoContext,
  spec: ListSpec<T>,
  shape: ListShape,
  version: number,
  total: number,
  idsOnly = false,
): Row[] {
  const { limit, skip } = spec.query
  if (skip >= total) return []
  const end = pageEndAt(ctx.conn, shape.list, skip, version)
  const after = idsOnly ? keysetIdsSql : keysetSql
  if (end !== undefined) {
    return ctx.conn
      .statement(after(spec, shape, 'LIMIT @limit'))
      .all({ ...spec.params, ...keyParams(KEY_COLUMN, end.keys), limit }) as Row[]
  }
  const positions = skip === 0 ? undefined : positionsAt(ctx.conn, shape.list, version)
  const mark = positions === undefined ? undefined : markBefore(positions, skip)
  if (mark !== undefined) {
    return ctx.conn.statement(after(spec, shape, 'LIMIT @limit OFFSET @skip')).all({
      ...spec.params,
      ...keyParams(KEY_COLUMN, mark.keys),
      limit,
      skip: skip - mark.position,
    }) as Row[]
  }
  return ctx.conn
    .statement(idsOnly ? shape.pageIdsSql : shape.pageSql)
    .all({ ...spec.params, limit, skip }) as Row[]
}

/** The summary row of a list: its change count, and its total when it is maintained. */
function summaryOf<T>(
  ctx: RepoContext,
  spec: ListSpec<T>,
): { total: number | null; version: number } {
  return ctx.conn.statement(spec.summary ?? '').get(spec.params) as {
    total: number | null
    version: number
  }
}

/** The total of a keyset-paged list at `version`: maintained, from its positions, or counted. */
function totalOf<T>(
  ctx: RepoContext,
  spec: ListSpec<T>,
  shape: ListShape,
  summary: { total: number | null; version: number },
): number {
  return (
    summary.total ??
    positionsAt(ctx.conn, shape.list, summary.version)?.total ??
    totalAt(ctx.conn, shape.countKey, summary.version, () => countOf(ctx, spec, shape))
  )
}

function countOf<T>(ctx: RepoContext, spec: ListSpec<T>, shape: ListShape): number {
  return (ctx.conn.statement(shape.countSql).get(spec.params) as { n: number }).n
}

/** Remembers where a page of a keyset-paged list ended, for the page after it. */
function rememberEnd<T>(
  ctx: RepoContext,
  spec: ListSpec<T>,
  shape: ListShape,
  version: number,
  rows: readonly Row[],
): void {
  const last = rows.at(-1)
  if (last === undefined || spec.query.limit <= 0) return
  rememberPageEnd(ctx.conn, shape.list, spec.query.skip + rows.length, {
    version,
    keys: shape.order.expressions.map((_, i) => last[`${KEY_COLUMN}${i}`]),
  })
}

/** `rows` in the order of their `list_id` in `ids` (every id has its row: nothing changed between). */
function inOrderOf(ids: readonly unknown[], rows: readonly Row[]): Row[] {
  const byId = new Map<unknown, Row>(rows.map((row) => [row['list_id'], row]))
  const ordered: Row[] = []
  for (const id of ids) {
    const row = byId.get(id)
    if (row !== undefined) ordered.push(row)
  }
  return ordered
}

/** How many times a page is read again when its list changed between two of its turns. */
const PAGE_ATTEMPTS = 3

/**
 * `listPage` for a list with a summary, in three turns of the event loop instead of one, none
 * holding it for more than about half a millisecond: the total and the page's ids and sort keys
 * (from the index, the filter evaluated on the way; for a filtered list with positions, between
 * them, a slice per turn: list-segments.ts); then the page's rows whole, by id, in a
 * snapshot that checks the list's change count is still the one the ids were read at (when it
 * is not, the page is read again, and after a few changed attempts in one turn as `listPage`
 * does); then their decoding (JSON of every row). Inside a write, or without a summary, it is
 * `listPage`: a write's own rows must not be read across awaits.
 *
 * @example
 * await prepareList(ctx, spec)
 * return await listPageInTurns(ctx, spec)
 */
export async function listPageInTurns<T>(ctx: RepoContext, spec: ListSpec<T>): Promise<Page<T>> {
  if (spec.summary === undefined || ctx.conn.db.inTransaction) return listPage(ctx, spec)
  const shape = shapeOf(spec)
  for (let attempt = 0; attempt < PAGE_ATTEMPTS; attempt++) {
    const head = ctx.conn.snapshot(() => {
      const summary = summaryOf(ctx, spec)
      const total = totalOf(ctx, spec, shape, summary)
      // A filtered list with positions is read between them: a rare filter's page would walk the scope.
      const positions =
        summary.total === null && spec.query.limit > 0 && spec.query.skip < total
          ? positionsAt(ctx.conn, shape.list, summary.version)
          : undefined
      const ids =
        positions === undefined ? pageRows(ctx, spec, shape, summary.version, total, true) : []
      return { version: summary.version, total, ids, positions }
    })
    if (head.positions !== undefined) {
      const { skip, limit } = spec.query
      const between = await rowsBetweenMarks(
        ctx.conn,
        head.positions,
        segmentStatements(spec, shape),
        spec.params,
        skip,
        limit,
      )
      ctx.check()
      if (between === undefined) continue
      head.ids = between
    }
    if (head.ids.length === 0) return { items: [], total: head.total }
    await nextTurn()
    ctx.check()
    const ids = head.ids.map((row) => row['list_id'])
    const rows = ctx.conn.snapshot(() =>
      summaryOf(ctx, spec).version === head.version
        ? (ctx.conn.statement(shape.rowsByIdSql).all({ list_ids: JSON.stringify(ids) }) as Row[])
        : undefined,
    )
    if (rows === undefined) continue
    rememberEnd(ctx, spec, shape, head.version, head.ids)
    await nextTurn()
    ctx.check()
    return { items: inOrderOf(ids, rows).map(spec.decode), total: head.total }
  }
  return listPage(ctx, spec)
}

/**
 * `listPage` after `prepareList`: how a list with a maintained summary and a scope is read.
 *
 * @example
 * return await preparedListPage(ctx, { ...spec, summary: listSummary('users', 'accountId'), scope: 'account_id = @accountId' })
 */
export async function preparedListPage<T>(ctx: RepoContext, spec: ListSpec<T>): Promise<Page<T>> {
  await prepareList(ctx, spec)
  ctx.check()
  return listPage(ctx, spec)
}

/**
 * Reads, off the request's synchronous path, what a keyset-paged list would otherwise compute
 * on it: the positions of a list whose total must be counted (a filter the maintained counts do
 * not cover) and is not known at its current change count, or of a list asked for a far `skip`
 * that does not continue the page before. Call it before `listPage`; it changes no result, and
 * a list that changes meanwhile is served as if it had not been called.
 *
 * @example
 * await prepareList(ctx, spec)
 * return listPage(ctx, spec)
 */
export async function prepareList<T>(ctx: RepoContext, spec: ListSpec<T>): Promise<void> {
  const { summary, scope } = spec
  // Inside a write the slices would see the write's own uncommitted rows across awaits.
  if (summary === undefined || scope === undefined || ctx.conn.db.inTransaction) return
  const field = (spec.query.sort ?? '').replace(/^[-+]/, '')
  if (!(spec.indexedSorts ?? []).includes(field === '' ? 'id' : field)) return
  const shape = shapeOf(spec)
  const known = ctx.conn.statement(summary).get(spec.params) as {
    total: number | null
    version: number
  }
  if (positionsAt(ctx.conn, shape.list, known.version) !== undefined) return
  const { skip } = spec.query
  const totalUnknown =
    known.total === null && !totalKnownAt(ctx.conn, shape.countKey, known.version)
  const farSkip =
    skip > NEAR_SKIP &&
    (known.total === null || skip < known.total) &&
    pageEndAt(ctx.conn, shape.list, skip, known.version) === undefined
  if (!totalUnknown && !farSkip) return
  await readPositions(ctx.conn, shape.list, positionStatements(spec, shape), spec.params)
}

function positionStatements<T>(spec: ListSpec<T>, shape: ListShape): PositionStatements {
  const { order } = shape
  const scope = { from: spec.from, where: spec.scope ?? '', columns: shape.keys }
  const bound = (arms: readonly string[]) =>
    orderedUnion(scope, order, arms, KEY_COLUMN, 'LIMIT 1 OFFSET @list_offset')
  const count = (arms: readonly string[]) => countOfArms(spec.from, spec.where, arms)
  const after = afterArms(order, KEY_COLUMN)
  return {
    bound: { first: bound([everyFirstKey(order)]), after: bound(after) },
    countUpTo: {
      first: count(rangeArms(order, undefined, BOUND_COLUMN, false)),
      after: count(rangeArms(order, KEY_COLUMN, BOUND_COLUMN, false)),
      afterWithinTies: count(rangeArms(order, KEY_COLUMN, BOUND_COLUMN, true)),
    },
    sameFirstKey: sameFirstKeySql(order, KEY_COLUMN, BOUND_COLUMN),
    countRest: { first: count([everyFirstKey(order)]), after: count(after) },
    version: spec.summary ?? '',
    ...shiftOf(spec, shape),
    keyCount: order.expressions.length,
    keyColumn: KEY_COLUMN,
    boundColumn: BOUND_COLUMN,
  }
}

/** How a write moves the list's positions (list-changes.ts), when its order is one key-compare.ts mirrors. */
function shiftOf<T>(spec: ListSpec<T>, shape: ListShape): { shift?: ListShift } {
  const comparison = comparisonOf(shape.order)
  if (spec.changes === undefined || comparison === undefined) return {}
  const idColumn = spec.idColumn ?? 'id'
  return {
    shift: {
      scope: spec.changes.scope,
      scopeVersion: spec.changes.scopeVersion,
      listVersion: spec.summary ?? '',
      params: spec.params,
      // The written ids drive the join (CROSS JOIN fixes SQLite's join order; the subquery keeps
      // json_each's own `id` column out of the list's names). Left to itself, the planner walks
      // the scope's index and tests each row against the ids: 2 to 4 ms per statement at 50,000
      // rows, twice per kept list, on every one-row write.
      rowsOf:
        `SELECT ${idColumn} AS list_id, ${shape.keys} ` +
        `FROM (SELECT value AS written_id FROM json_each(@list_written)) CROSS JOIN ${spec.from} ` +
        `WHERE (${spec.where}) AND ${idColumn} = written_id`,
      keyColumn: KEY_COLUMN,
      comparison,
    },
  }
}

/** The statements of `rowsBetweenMarks`: the ids and keys of the list's rows within a slice. */
function segmentStatements<T>(spec: ListSpec<T>, shape: ListShape): SegmentStatements {
  const { order } = shape
  const idColumn = spec.idColumn ?? 'id'
  const list = {
    from: spec.from,
    where: spec.where,
    columns: `${idColumn} AS list_id, ${shape.keys}`,
  }
  const rows = (arms: readonly string[]) =>
    orderedUnion(list, order, arms, KEY_COLUMN, 'LIMIT @limit OFFSET @skip')
  return {
    upTo: {
      first: rows(rangeArms(order, undefined, BOUND_COLUMN, false)),
      after: rows(rangeArms(order, KEY_COLUMN, BOUND_COLUMN, false)),
      afterWithinTies: rows(rangeArms(order, KEY_COLUMN, BOUND_COLUMN, true)),
    },
    rest: { first: rows([everyFirstKey(order)]), after: rows(afterArms(order, KEY_COLUMN)) },
    sameFirstKey: sameFirstKeySql(order, KEY_COLUMN, BOUND_COLUMN),
    version: spec.summary ?? '',
    keyColumn: KEY_COLUMN,
    boundColumn: BOUND_COLUMN,
  }
}

/**
 * The page after a row whose sort keys are `@list_key_N`, then `tail` (LIMIT, OFFSET): the ids
 * and keys of the page first, from the index alone, then the page's rows, so that rows stepped
 * over are never read whole.
 */
function keysetSql<T>(spec: ListSpec<T>, shape: ListShape, tail: string): string {
  const idColumn = spec.idColumn ?? 'id'
  const page = keysetIdsSql(spec, shape, tail)
  const keys = shape.order.expressions.map((_, i) => `p.${KEY_COLUMN}${i}`).join(', ')
  // A join (members with their users) is joined whole, and its id (a user's) is unique only in the scope.
  const rows =
    spec.from.includes(' JOIN ') && spec.scope !== undefined
      ? `(${spec.from}) ON ${idColumn} = p.list_id AND ${spec.scope}`
      : `${spec.from} ON ${idColumn} = p.list_id`
  return (
    `WITH list_page AS MATERIALIZED (${page}) ` +
    `SELECT ${spec.select}, ${keys} FROM list_page p JOIN ${rows} ` +
    `ORDER BY ${keyOrder(shape.order, KEY_COLUMN, 'p.')}`
  )
}

/** The ids (`list_id`) and sort keys of the page after the keys `@list_key_N`, from the index. */
function keysetIdsSql<T>(spec: ListSpec<T>, shape: ListShape, tail: string): string {
  return orderedUnion(
    {
      from: spec.from,
      where: spec.where,
      columns: `${spec.idColumn ?? 'id'} AS list_id, ${shape.keys}`,
    },
    shape.order,
    afterArms(shape.order, KEY_COLUMN),
    KEY_COLUMN,
    tail,
  )
}

/**
 * A row of `statement.get`, or undefined.
 *
 * @example
 * const row = rowOf(conn.statement('SELECT id FROM accounts WHERE id = ?').get(1))
 */
export function rowOf(value: unknown): Row | undefined {
  return value as Row | undefined
}

/**
 * The row an INSERT/UPDATE ... RETURNING gave; its absence is a bug, not an outcome.
 *
 * @example
 * const row = returnedRow(conn.statement(codec.insertSql).get(params))
 */
export function returnedRow(value: unknown): Row {
  if (value === undefined) throw new Error('the statement returned no row')
  return value as Row
}

/**
 * Inserts a new audited record: created/updated now, createdBy/updatedBy the acting user. Returns
 * it as stored, with its id.
 *
 * @example
 * const asset = insertAudited(ctx, assets, { ...fields, by: 'ada@example.com' })
 */
export function insertAudited<T extends Audit & { id: number }>(
  ctx: RepoContext,
  codec: TableCodec<T>,
  input: Omit<T, 'id' | keyof Audit> & { by: string },
): T {
  const record = newAudited(input, ctx.now())
  return codec.decode(returnedRow(ctx.conn.statement(codec.insertSql).get(codec.encode(record))))
}

/**
 * The statements written once for both stores (src/store/shared), run on this context's
 * connection after checking that it is still open.
 *
 * @example
 * const rows = await sqlRunner(ctx)('SELECT id FROM ships WHERE harbor_id = @harborId', { harborId })
 */
export function sqlRunner(ctx: RepoContext): SqlRunner {
  return async (sql, params = {}) => {
    ctx.check()
    const statement = ctx.conn.statement(sql)
    if (statement.reader) return statement.all(params) as Array<Record<string, unknown>>
    statement.run(params)
    return []
  }
}
