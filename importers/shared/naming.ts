import { DEFAULT_PRIORITY, type TransactionInput } from '../../src/dsl/index.js'

/**
 * Unique names given one at a time, in order of appearance: the first keeps its name, later ones
 * with the same name get ` #2`, ` #3`, ... (what `uniqueNames` gives for the whole list).
 *
 * @example
 * const namer = new UniqueNamer(); namer.name('GET /a'); namer.name('GET /a') // 'GET /a #2'
 */
export class UniqueNamer {
  readonly #seen = new Map<string, number>()

  name(name: string): string {
    const count = (this.#seen.get(name) ?? 0) + 1
    this.#seen.set(name, count)
    return count === 1 ? name : `${name} #${count}`
  }
}

/**
 * Makes transaction names unique: the first keeps its name, later ones with the same name get
 * ` #2`, ` #3`, ... in order of appearance.
 *
 * @example
 * uniqueNames(['GET /a', 'GET /a', 'GET /b']) // ['GET /a', 'GET /a #2', 'GET /b']
 */
export function uniqueNames(names: readonly string[]): string[] {
  const namer = new UniqueNamer()
  return names.map((name) => namer.name(name))
}

/** How many matchers narrow a transaction beyond its method and URL. */
function specificity(txn: TransactionInput): number {
  const r = txn.dsl.requestDsl
  return (
    (r.queryParams?.length ?? 0) +
    (r.headers?.length ?? 0) +
    (r.cookies?.length ?? 0) +
    (r.body?.length ?? 0)
  )
}

/** Transactions that can answer the same request: same priority, method and URL matcher. */
function overlapKey(txn: TransactionInput): string {
  const r = txn.dsl.requestDsl
  return JSON.stringify([
    txn.dsl.priority ?? DEFAULT_PRIORITY,
    r.method?.toUpperCase() ?? 'ANY',
    r.url?.matcherName ?? 'equals_url',
    r.url?.matchingValue ?? r.path ?? '',
  ])
}

/**
 * `orderBySpecificity` worked out from transactions given one at a time, keeping of each only
 * what ordering needs, so that a large import can hand its transactions on as it makes them.
 * `order()` says which transaction goes where.
 *
 * @example
 * const order = new SpecificityOrder(); list.forEach((t) => order.add(t)); order.order() // null: the list is in order
 */
export class SpecificityOrder {
  readonly #groups = new Map<string, number[]>()
  readonly #weights: number[] = []

  add(txn: TransactionInput): void {
    const index = this.#weights.length
    this.#weights.push(specificity(txn))
    const key = overlapKey(txn)
    const group = this.#groups.get(key)
    if (group === undefined) this.#groups.set(key, [index])
    else group.push(index)
  }

  /**
   * For each place of the ordered list, the index (in order of `add`) of the transaction it
   * holds; null when that is the order they were added in.
   */
  order(): number[] | null {
    let order: number[] | null = null
    const weights = this.#weights
    for (const positions of this.#groups.values()) {
      if (positions.length < 2) continue
      const sorted = [...positions].sort(
        (a, b) => (weights[a] as number) - (weights[b] as number) || a - b,
      )
      positions.forEach((position, i) => {
        const from = sorted[i] as number
        if (from === position) return
        order ??= weights.map((_, index) => index)
        order[position] = from
      })
    }
    return order
  }
}

/**
 * Among transactions with the same priority, method and URL matcher, puts those with fewer
 * query, header, cookie and body matchers first, each group keeping the places it held, so the
 * list otherwise stays in source order. Among transactions of equal priority the runtime lets
 * the later one win (docs/dsl.md#order), so a request that satisfies both `GET /a` and
 * `GET /a?x=1` gets the answer recorded for the more specific one, whatever order the source
 * listed them in.
 *
 * @example
 * orderBySpecificity([withQuery, other, plain]) // [plain, other, withQuery] when withQuery and plain share method and path
 */
export function orderBySpecificity<T extends TransactionInput>(transactions: readonly T[]): T[] {
  const ordering = new SpecificityOrder()
  for (const txn of transactions) ordering.add(txn)
  const order = ordering.order()
  return order === null ? [...transactions] : order.map((from) => transactions[from] as T)
}
