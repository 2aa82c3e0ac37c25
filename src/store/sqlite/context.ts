import type { Audit, ListQuery, Page } from '../types.js'
import { newAudited, type TableCodec } from '../tables/columns.js'
import type { Row } from './codec.js'
import type { Connection } from './connection.js'
import type { SqlRunner } from '../shared/runner.js'
import {
  afterArms,
  countOfArms,
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
  type PositionStatements,
} from './list-positions.js'

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
  pageSql: string
  /** The key of the list's caches: its page statement and parameters (not limit or skip). */
  list: string
}

function shapeOf<T>(spec: ListSpec<T>): ListShape {
  const order = sortOrder(spec.sortable, spec.query.sort, spec.idColumn)
  const keys = order.expressions
    .map((expression, i) => `${expression} AS ${KEY_COLUMN}${i}`)
    .join(', ')
  const pageSql = `SELECT ${spec.select}, ${keys} FROM ${spec.from} WHERE ${spec.where} ORDER BY ${orderByClause(order)} LIMIT @limit OFFSET @skip`
  return {
    order,
    keys,
    countSql: `SELECT COUNT(*) AS n FROM ${spec.from} WHERE ${spec.where}`,
    pageSql,
    list: `${pageSql}\u0000${JSON.stringify(spec.params)}`,
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
  const summarySql = spec.summary
  const shape = shapeOf(spec)
  const { order, list } = shape
  const count = (): number =>
    (ctx.conn.statement(shape.countSql).get(spec.params) as { n: number }).n
  return ctx.conn.snapshot(() => {
    const summary = ctx.conn.statement(summarySql).get(spec.params) as {
      total: number | null
      version: number
    }
    const positions = positionsAt(ctx.conn, list, summary.version)
    const total =
      summary.total ??
      positions?.total ??
      totalAt(
        ctx.conn,
        `${shape.countSql}\u0000${JSON.stringify(spec.params)}`,
        summary.version,
        count,
      )
    const rows = pageRows(ctx, spec, shape, summary.version, total)
    const last = rows.at(-1)
    if (last !== undefined && limit > 0) {
      const lastKeys = order.expressions.map((_, i) => last[`${KEY_COLUMN}${i}`])
      rememberPageEnd(ctx.conn, list, skip + rows.length, {
        version: summary.version,
        keys: lastKeys,
      })
    }
    return { items: rows.map(spec.decode), total }
  })
}

/**
 * The rows of a page, read the cheapest way the list allows: none past the end; after the keys
 * of the page before when it ended at `skip`; from the last of the list's positions before
 * `skip`, stepping over the rest; by OFFSET otherwise.
 */
function pageRows<T>(
  ctx: RepoContext,
  spec: ListSpec<T>,
  shape: ListShape,
  version: number,
  total: number,
): Row[] {
  const { limit, skip } = spec.query
  if (skip >= total) return []
  const end = pageEndAt(ctx.conn, shape.list, skip, version)
  if (end !== undefined) {
    return ctx.conn
      .statement(keysetSql(spec, shape, 'LIMIT @limit'))
      .all({ ...spec.params, ...keyParams(KEY_COLUMN, end.keys), limit }) as Row[]
  }
  const positions = skip === 0 ? undefined : positionsAt(ctx.conn, shape.list, version)
  const mark = positions === undefined ? undefined : markBefore(positions, skip)
  if (mark !== undefined) {
    return ctx.conn.statement(keysetSql(spec, shape, 'LIMIT @limit OFFSET @skip')).all({
      ...spec.params,
      ...keyParams(KEY_COLUMN, mark.keys),
      limit,
      skip: skip - mark.position,
    }) as Row[]
  }
  return ctx.conn.statement(shape.pageSql).all({ ...spec.params, limit, skip }) as Row[]
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
    known.total === null &&
    !totalKnownAt(ctx.conn, `${shape.countSql}\u0000${JSON.stringify(spec.params)}`, known.version)
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
    bound: { first: bound(['1']), after: bound(after) },
    countUpTo: {
      first: count(rangeArms(order, undefined, BOUND_COLUMN, false)),
      after: count(rangeArms(order, KEY_COLUMN, BOUND_COLUMN, false)),
      afterWithinTies: count(rangeArms(order, KEY_COLUMN, BOUND_COLUMN, true)),
    },
    sameFirstKey: sameFirstKeySql(order, KEY_COLUMN, BOUND_COLUMN),
    countRest: { first: count(['1']), after: count(after) },
    version: spec.summary ?? '',
    keyCount: order.expressions.length,
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
  const page = orderedUnion(
    { from: spec.from, where: spec.where, columns: `${idColumn} AS list_id, ${shape.keys}` },
    shape.order,
    afterArms(shape.order, KEY_COLUMN),
    KEY_COLUMN,
    tail,
  )
  const keys = shape.order.expressions.map((_, i) => `p.${KEY_COLUMN}${i}`).join(', ')
  return (
    `WITH list_page AS MATERIALIZED (${page}) ` +
    `SELECT ${spec.select}, ${keys} FROM list_page p JOIN ${spec.from} ON ${idColumn} = p.list_id ` +
    `ORDER BY ${keyOrder(shape.order, KEY_COLUMN, 'p.')}`
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
