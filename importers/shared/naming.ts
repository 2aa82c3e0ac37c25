import { DEFAULT_PRIORITY, type TransactionInput } from '../../src/dsl/index.js'

/**
 * Makes transaction names unique in place: the first keeps its name, later ones with the same
 * name get ` #2`, ` #3`, ... in order of appearance.
 *
 * @example
 * uniqueNames(['GET /a', 'GET /a', 'GET /b']) // ['GET /a', 'GET /a #2', 'GET /b']
 */
export function uniqueNames (names: readonly string[]): string[] {
  const seen = new Map<string, number>()
  return names.map((name) => {
    const count = (seen.get(name) ?? 0) + 1
    seen.set(name, count)
    return count === 1 ? name : `${name} #${count}`
  })
}

/** How many matchers narrow a transaction beyond its method and URL. */
function specificity (txn: TransactionInput): number {
  const r = txn.dsl.requestDsl
  return (r.queryParams?.length ?? 0) + (r.headers?.length ?? 0) + (r.cookies?.length ?? 0) + (r.body?.length ?? 0)
}

/** Transactions that can answer the same request: same priority, method and URL matcher. */
function overlapKey (txn: TransactionInput): string {
  const r = txn.dsl.requestDsl
  return JSON.stringify([txn.dsl.priority ?? DEFAULT_PRIORITY, r.method?.toUpperCase() ?? 'ANY', r.url?.matcherName ?? 'equals_url', r.url?.matchingValue ?? r.path ?? ''])
}

/**
 * Among transactions with the same priority, method and URL matcher, puts those with fewer
 * query, header, cookie and body matchers first, each group keeping the places it held, so the
 * list otherwise stays in source order. Among transactions of equal priority the runtime lets
 * the later one win (DESIGN.md section 3), so a request that satisfies both `GET /a` and
 * `GET /a?x=1` gets the answer recorded for the more specific one, whatever order the source
 * listed them in.
 *
 * @example
 * orderBySpecificity([withQuery, other, plain]) // [plain, other, withQuery] when withQuery and plain share method and path
 */
export function orderBySpecificity<T extends TransactionInput> (transactions: readonly T[]): T[] {
  const groups = new Map<string, number[]>()
  transactions.forEach((txn, index) => {
    const key = overlapKey(txn)
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [index])
    else group.push(index)
  })
  const out = [...transactions]
  for (const positions of groups.values()) {
    if (positions.length < 2) continue
    const sorted = positions
      .map((index) => ({ txn: transactions[index] as T, index, weight: specificity(transactions[index] as T) }))
      .sort((a, b) => a.weight - b.weight || a.index - b.index)
    positions.forEach((position, i) => {
      out[position] = (sorted[i] as { txn: T }).txn
    })
  }
  return out
}
