/*
 * SQL of ranges of a list's order, for keyset paging and the slices of a list's positions.
 *
 * A list is ordered by a sort key and then id (`created, id`). "The rows after the row whose keys
 * are (k0, k1)" is exactly the row value `(created, id) > (k0, k1)`, but SQLite seeks an index
 * with a row value only over its declared columns, never the rowid (id) every index ends with,
 * and not at all over a folded key (`name COLLATE NOCASE`): it would walk the index from the
 * first row equal to k0, and an import gives tens of thousands of rows one `created` and one
 * `createdBy`. So a range is written as arms, each a seek: `created = k0 AND id > k1` (the rest
 * of k0's ties, by rowid) and `created > k0`, merged in order by a UNION ALL with the list's
 * ORDER BY (SQLite merges the two ordered scans; nothing is sorted).
 */

/** The expressions a list is sorted by, id last, and the direction of all of them. */
export interface SortOrder {
  expressions: readonly string[]
  descending: boolean
  /**
   * The first key's range conditions written another way, `{op} {value}` in it (e.g. the key
   * among the values of a subquery; `{op} {value}` becomes `IS NOT NULL` for the whole order): when the plain `key > value` makes SQLite walk an index
   * past the range's first rows instead of seeking.
   */
  firstKeyRange?: string
}

/** The ORDER BY clause of a sort: `name COLLATE NOCASE DESC, id DESC`. */
export function orderByClause(order: SortOrder): string {
  const direction = order.descending ? 'DESC' : 'ASC'
  return order.expressions.map((expression) => `${expression} ${direction}`).join(', ')
}

/** ` COLLATE NOCASE` when the expression has one: constants compared as the key is. */
function collationOf(expression: string): string {
  return / COLLATE \w+$/i.exec(expression)?.[0] ?? ''
}

/** `key {operator} @{param}` over the first key, or its `firstKeyRange`. */
function firstKeyBeyond(order: SortOrder, operator: string, param: string): string {
  if (order.firstKeyRange === undefined) {
    return `${order.expressions[0] ?? ''} ${operator} @${param}`
  }
  return order.firstKeyRange.replace('{op}', operator).replace('{value}', `@${param}`)
}

/**
 * A condition every row of the list meets: `1`, or the first key's `firstKeyRange` open at both
 * ends, so that a statement over the whole order reads it as the ranges do.
 *
 * @example
 * everyFirstKey({ expressions: ['created', 'id'], descending: false }) // '1'
 */
export function everyFirstKey(order: SortOrder): string {
  return order.firstKeyRange?.replace('{op} {value}', 'IS NOT NULL') ?? '1'
}

/** The comparison operators of the list's direction: "after" is greater when ascending. */
function operatorsOf(order: SortOrder) {
  return order.descending
    ? { after: '<', before: '>', atOrBefore: '>=' }
    : { after: '>', before: '<', atOrBefore: '<=' }
}

/**
 * Conditions whose union is the rows strictly after the keys `@{prefix}N`, each an index seek.
 *
 * @example
 * afterArms({ expressions: ['created', 'id'], descending: false }, 'k')
 * // ['created = @k0 AND id > @k1', 'created > @k0']
 */
export function afterArms(order: SortOrder, prefix: string): string[] {
  const op = operatorsOf(order)
  const [key, id] = order.expressions
  if (order.expressions.length !== 2 || key === undefined || id === undefined) {
    return [rowValue(order, prefix, op.after)]
  }
  return [
    `${key} = @${prefix}0 AND ${id} ${op.after} @${prefix}1`,
    firstKeyBeyond(order, op.after, `${prefix}0`),
  ]
}

/**
 * Conditions whose union is the rows after the keys `@{after}N` and up to and including the keys
 * `@{upTo}N` (which are not before them); `after` undefined: from the first row. `oneKeyValue`:
 * both ends have the same first key (see `sameFirstKeySql`), the range is within its ties.
 *
 * @example
 * rangeArms({ expressions: ['created', 'id'], descending: false }, undefined, 'b', false)
 * // ['created < @b0', 'created = @b0 AND id <= @b1']
 */
export function rangeArms(
  order: SortOrder,
  after: string | undefined,
  upTo: string,
  oneKeyValue: boolean,
): string[] {
  const op = operatorsOf(order)
  const [key, id] = order.expressions
  if (order.expressions.length !== 2 || key === undefined || id === undefined) {
    const last = rowValue(order, upTo, op.atOrBefore)
    return [after === undefined ? last : `${rowValue(order, after, op.after)} AND ${last}`]
  }
  const lastTies = `${key} = @${upTo}0 AND ${id} ${op.atOrBefore} @${upTo}1`
  const beforeLast = firstKeyBeyond(order, op.before, `${upTo}0`)
  if (after === undefined) return [beforeLast, lastTies]
  const firstTies = `${key} = @${after}0 AND ${id} ${op.after} @${after}1`
  if (oneKeyValue) return [`${firstTies} AND ${id} ${op.atOrBefore} @${upTo}1`]
  return [firstTies, `${firstKeyBeyond(order, op.after, `${after}0`)} AND ${beforeLast}`, lastTies]
}

/**
 * One row `{ same }`: 1 when the first keys `@{a}0` and `@{b}0` are equal as the list compares
 * them (case folded for a NOCASE key).
 *
 * @example
 * sameFirstKeySql({ expressions: ['name COLLATE NOCASE', 'id'], descending: false }, 'k', 'b')
 * // 'SELECT (@k0 COLLATE NOCASE) = @b0 AS same'
 */
export function sameFirstKeySql(order: SortOrder, a: string, b: string): string {
  return `SELECT (@${a}0${collationOf(order.expressions[0] ?? '')}) = @${b}0 AS same`
}

/** A row value over the whole order, with the first key's own bound, which SQLite can seek by. */
function rowValue(order: SortOrder, prefix: string, operator: string): string {
  const first = order.expressions[0] ?? ''
  const loose = operator.startsWith('>') ? '>=' : '<='
  const values = order.expressions.map((_, i) => `@${prefix}${i}`).join(', ')
  return `${first} ${loose} @${prefix}0 AND (${order.expressions.join(', ')}) ${operator} (${values})`
}

/**
 * Rows of `from` matching `where` and any of `arms`, in the list's order, as one statement:
 * `columns` selected (the sort keys among them as `{keyColumn}N`), then `tail` (LIMIT, OFFSET).
 *
 * @example
 * orderedUnion({ from: 'transactions t', where: 't.workspace_id = @ws', columns: 'id, created AS k0, id AS k1' }, order, arms, 'k', 'LIMIT 1')
 */
export function orderedUnion(
  list: { from: string; where: string; columns: string },
  order: SortOrder,
  arms: readonly string[],
  keyColumn: string,
  tail: string,
): string {
  const selects = arms.map(
    (arm) => `SELECT ${list.columns} FROM ${list.from} WHERE (${list.where}) AND ${arm}`,
  )
  if (selects.length === 1) return `${selects[0] ?? ''} ORDER BY ${orderByClause(order)} ${tail}`
  return `${selects.join(' UNION ALL ')} ORDER BY ${keyOrder(order, keyColumn, '')} ${tail}`
}

/** The order over the selected key columns (`{qualifier}{keyColumn}N`), collations kept. */
export function keyOrder(order: SortOrder, keyColumn: string, qualifier: string): string {
  const direction = order.descending ? 'DESC' : 'ASC'
  return order.expressions
    .map((e, i) => `${qualifier}${keyColumn}${i}${collationOf(e)} ${direction}`)
    .join(', ')
}

/**
 * How many rows of `from` match `where` and any of `arms` (which do not overlap).
 *
 * @example
 * countOfArms('transactions t', 't.workspace_id = @ws', ['created < @b0', 'created = @b0 AND id <= @b1'])
 */
export function countOfArms(from: string, where: string, arms: readonly string[]): string {
  const counts = arms.map((arm) => `(SELECT COUNT(*) FROM ${from} WHERE (${where}) AND ${arm})`)
  return `SELECT ${counts.join(' + ')} AS n`
}
