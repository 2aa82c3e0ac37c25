import type { SortOrder } from './keyset-sql.js'

/*
 * SQLite's order of values, in JavaScript: where a row falls among a list's marks is decided at
 * commit for each written row (list-changes.ts), and a statement per comparison would cost more
 * than the write. It must agree with SQLite exactly, or a shifted position would be off by one:
 * NULL < numbers < text < blobs; numbers by value; text by its UTF-8 bytes (BINARY, that is, by
 * code point) or with ASCII letters folded (NOCASE; SQLite folds nothing beyond ASCII).
 */

/** How one sort key compares its text, or undefined when SQLite's rule for it is not mirrored here. */
type Collation = 'binary' | 'nocase'

/** A list's key comparison: collations of its keys (id last) and their direction. */
export interface KeyComparison {
  collations: readonly Collation[]
  descending: boolean
}

/**
 * The comparison of a sort order, or undefined when one of its keys has a collation other than
 * BINARY and NOCASE (its order is then not mirrored).
 *
 * @example
 * comparisonOf({ expressions: ['name COLLATE NOCASE', 'id'], descending: false })
 * // { collations: ['nocase', 'binary'], descending: false }
 */
export function comparisonOf(order: SortOrder): KeyComparison | undefined {
  const collations: Collation[] = []
  for (const expression of order.expressions) {
    const named = / COLLATE (\w+)$/i.exec(expression)?.[1]?.toLowerCase()
    if (named === undefined || named === 'binary') collations.push('binary')
    else if (named === 'nocase') collations.push('nocase')
    else return undefined
  }
  return { collations, descending: order.descending }
}

/**
 * Negative when the keys `a` come before `b` in the list's order, 0 when equal, positive after.
 *
 * @example
 * compareKeys(comparison, ['Orders', 7], ['orders', 9]) // < 0: the names tie, 7 before 9
 */
export function compareKeys(
  comparison: KeyComparison,
  a: readonly unknown[],
  b: readonly unknown[],
): number {
  const { collations } = comparison
  for (let i = 0; i < collations.length; i++) {
    const order = compareValues(a[i], b[i], collations[i] === 'nocase')
    if (order !== 0) return comparison.descending ? -order : order
  }
  return 0
}

function rankOf(value: unknown): number {
  if (value === null || value === undefined) return 0
  if (typeof value === 'number' || typeof value === 'bigint') return 1
  if (typeof value === 'string') return 2
  return 3
}

function compareValues(a: unknown, b: unknown, nocase: boolean): number {
  const rank = rankOf(a) - rankOf(b)
  if (rank !== 0) return rank
  if (typeof a === 'string' && typeof b === 'string') return compareText(a, b, nocase)
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return Buffer.compare(a, b)
  if (
    (typeof a === 'number' || typeof a === 'bigint') &&
    (typeof b === 'number' || typeof b === 'bigint')
  ) {
    return a < b ? -1 : a > b ? 1 : 0
  }
  return 0
}

/** Code-point order of UTF-16 text (what UTF-8 byte order is), ASCII letters folded when `nocase`. */
function compareText(a: string, b: string, nocase: boolean): number {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i)
    let y = b.charCodeAt(i)
    if (x === y) continue
    if (nocase) {
      if (x >= 65 && x <= 90) x += 32
      if (y >= 65 && y <= 90) y += 32
      if (x === y) continue
    }
    return codePointRank(x) - codePointRank(y)
  }
  return a.length - b.length
}

/**
 * UTF-16 units order text as code points do except that surrogates (U+D800-DFFF, the halves of
 * code points above U+FFFF) sort below U+E000-FFFF: moved above them, the first unit that differs
 * orders two strings as their code points, and so as their UTF-8 bytes.
 */
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit
  return unit < 0xe000 ? unit + 0x2000 : unit - 0x800
}
