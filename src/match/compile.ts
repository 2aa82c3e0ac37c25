import { createError, type ErrorDetail } from '../errors/index.js'
import {
  detailAt,
  transactionCountError,
  type MockServiceDocument,
  type Transaction,
} from '../dsl/index.js'
import { byPriorityThenNewest, type CompiledTransaction } from './compiled.js'
import { diagnose, type NearMiss } from './diagnose.js'
import {
  compileRequest,
  type PreparedPredicate,
  type Predicate,
  type ReportProblem,
} from './predicates/index.js'
import { JsonScanners } from './json-scanners.js'
import type { MatchRequest } from './request.js'
import { methodRoutesSteps, type Candidate, type MethodRoutes } from './router.js'

/** The predicates of every transaction matched on method and url alone: one shared empty list. */
const NO_PREDICATES: readonly Predicate[] = Object.freeze([])

/** Builds the caller's per-transaction payload, reporting problems at pointers inside it. */
export type PayloadFactory<P> = (txn: Transaction, index: number, report: ReportProblem) => P

/** Conditions beyond the request (a scenario's state) that the caller adds to a transaction. */
export type ExtraPredicates = (txn: Transaction, report: ReportProblem) => Predicate | null

/**
 * A mock service's transactions compiled for matching. Immutable: a reload compiles a new one and
 * swaps the reference (docs/architecture.md#hot-path, "Swap, do not mutate").
 */
export interface CompiledMatcher<P> {
  /** Every transaction of the document, in document order (active or not). */
  readonly transactions: ReadonlyArray<CompiledTransaction<P>>
  /** The transactions that serve requests, in the order they are tried. */
  readonly active: ReadonlyArray<CompiledTransaction<P>>
  /** True when some active transaction matches on the body. */
  readonly needsBody: boolean
  /** True when some active transaction matches on form fields. */
  readonly needsForm: boolean
  /**
   * The predicates of active transactions that must be prepared (asynchronously) before `match`
   * (matches_xml_schema, see prepare.ts); null when there are none, the common case.
   */
  readonly prepared: readonly PreparedPredicate[] | null
  /** The first transaction, in priority order, whose every matcher holds; null when none does. */
  match: (req: MatchRequest) => CompiledTransaction<P> | null
  /** Why nothing matched: the closest transactions and their failed matchers. */
  diagnose: (req: MatchRequest, limit?: number) => NearMiss[]
  /** A transaction by its id (any, active or not). */
  byId: (id: number) => CompiledTransaction<P> | undefined
}

/**
 * What compiling the matchers of one transaction (the `index`th of its document) reports, added
 * to `errors` exactly as `compileMatcher` would collect them. With `throwCompileErrors`, this
 * checks a document's matchers one transaction at a time, without building the matching index:
 * an upload of 90,000 transactions is checked, encoded and dropped one by one.
 *
 * @example
 * const errors: ErrorDetail[] = []
 * doc.transactions.forEach((txn, i) => collectCompileErrors(txn, i, errors)); throwCompileErrors(errors)
 */
export function collectCompileErrors(txn: Transaction, index: number, errors: ErrorDetail[]): void {
  compileRequest(txn.dsl.requestDsl, (subPointer, message) => {
    errors.push(detailAt(txn, subPointer, `/transactions/${index}`, message))
  })
}

/** Throws ERR_DSL_INVALID with every collected compile error, when there is one. */
export function throwCompileErrors(errors: ErrorDetail[]): void {
  if (errors.length === 0) return
  const files = new Set(errors.map((e) => e.file))
  const where = files.size === 1 && errors[0]?.file !== undefined ? `${errors[0].file}: ` : ''
  throw createError(
    'ERR_DSL_INVALID',
    [`${where}${errors.length === 1 ? '1 error' : `${errors.length} errors`}`],
    { details: errors },
  )
}

/**
 * Compiles a mock-service document: every matcher once (regexes, JSONPath, XPath, templates), the
 * payloads, and the index. Reports every problem at once as ERR_DSL_INVALID, with file:line when
 * the transactions came from files.
 *
 * @example
 * const matcher = compileMatcher(doc, (txn) => txn.dsl.responseDsl.status)
 * matcher.match(new MatchRequest('GET', '/pets/1', {}, null))?.payload // 200
 */
export function compileMatcher<P>(
  doc: MockServiceDocument,
  payloadOf: PayloadFactory<P>,
  extraOf?: ExtraPredicates,
): CompiledMatcher<P> {
  const builder = new MatcherBuilder(doc, payloadOf, extraOf)
  for (let index = 0; index < doc.transactions.length; index++) builder.add(index)
  const steps = builder.finish()
  for (;;) {
    const step = steps.next()
    if (step.done === true) return step.value
  }
}

/**
 * compileMatcher for a configuration swap on a serving runtime: the same result, but `pause` is
 * awaited after each transaction and each route of the index (a time slicer), so that requests
 * keep being answered while 100,000s of transactions compile.
 *
 * @example
 * const matcher = await compileMatcherSliced(doc, payloadOf, undefined, timeSlicer())
 */
export async function compileMatcherSliced<P>(
  doc: MockServiceDocument,
  payloadOf: PayloadFactory<P>,
  extraOf: ExtraPredicates | undefined,
  pause: () => Promise<void>,
): Promise<CompiledMatcher<P>> {
  const builder = new MatcherBuilder(doc, payloadOf, extraOf)
  for (let index = 0; index < doc.transactions.length; index++) {
    builder.add(index)
    await pause()
  }
  const steps = builder.finish()
  for (;;) {
    const step = steps.next()
    if (step.done === true) return step.value
    await pause()
  }
}

/**
 * Compiles a document's transactions one at a time (`add`), then builds the index (`finish`,
 * whose steps the caller runs at once or in time slices).
 */
class MatcherBuilder<P> {
  readonly #errors: ErrorDetail[] = []
  readonly #overrides = new Map<number, number | undefined>()
  readonly #selective: boolean
  readonly #transactions: Array<CompiledTransaction<P>> = []
  readonly #active: Array<CompiledTransaction<P>> = []
  readonly #prepared: PreparedPredicate[] = []
  /** Shared by every transaction: one scan of a body per JSONPath expression per request. */
  readonly #scanners = new JsonScanners()
  #needsBody = false
  #needsForm = false

  constructor(
    private readonly doc: MockServiceDocument,
    private readonly payloadOf: PayloadFactory<P>,
    private readonly extraOf: ExtraPredicates | undefined,
  ) {
    // readDefinition refuses such documents already; this covers those assembled in code (several
    // files merged by `serve`, a platform's deploy) before any transaction is compiled.
    const tooMany = transactionCountError(doc.transactions.length)
    if (tooMany !== null) throw tooMany
    for (const entry of doc.mockServiceTransactions) {
      this.#overrides.set(entry.txnId, entry.priority)
    }
    this.#selective = this.#overrides.size > 0
  }

  add(index: number): void {
    const txn = this.doc.transactions[index] as Transaction
    const report: ReportProblem = (subPointer, message) => {
      this.#errors.push(detailAt(txn, subPointer, `/transactions/${index}`, message))
    }
    const request = compileRequest(txn.dsl.requestDsl, report, this.#scanners)
    const payload = this.payloadOf(txn, index, report)
    // Checked last: a scenario's state is read only when the request itself matches.
    const extra = this.extraOf?.(txn, report) ?? null
    const id = txn.id ?? null
    const override = id === null ? undefined : this.#overrides.get(id)
    const compiled: CompiledTransaction<P> = {
      index,
      id,
      name: txn.name,
      priority: override ?? txn.dsl.priority,
      method: txn.dsl.requestDsl.method ?? null,
      url: request.url,
      predicates:
        extra !== null
          ? [...request.predicates, extra]
          : request.predicates.length === 0
            ? NO_PREDICATES
            : request.predicates,
      needsBody: request.needsBody,
      payload,
    }
    this.#transactions.push(compiled)
    if (!this.#selective || (id !== null && this.#overrides.has(id))) {
      this.#active.push(compiled)
      this.#needsBody ||= request.needsBody
      this.#needsForm ||= request.needsForm
      for (const p of request.prepared) this.#prepared.push(p)
    }
  }

  *finish(): Generator<void, CompiledMatcher<P>, void> {
    throwCompileErrors(this.#errors)
    const active = inMatchingOrder(this.#active)
    yield
    return yield* indexSteps(
      this.#transactions,
      active,
      this.#needsBody,
      this.#needsForm,
      this.#prepared,
    )
  }
}

/**
 * `active` (in document order) sorted byPriorityThenNewest in linear time, a bucket per priority
 * (documents use a handful), each newest first: no long comparison sort in one step.
 */
function inMatchingOrder<P>(
  active: ReadonlyArray<CompiledTransaction<P>>,
): Array<CompiledTransaction<P>> {
  const buckets = new Map<number, Array<CompiledTransaction<P>>>()
  for (let i = active.length - 1; i >= 0; i--) {
    const t = active[i] as CompiledTransaction<P>
    const bucket = buckets.get(t.priority)
    if (bucket === undefined) buckets.set(t.priority, [t])
    else bucket.push(t)
  }
  const ordered: Array<CompiledTransaction<P>> = []
  for (const priority of [...buckets.keys()].sort((a, b) => a - b)) {
    for (const t of buckets.get(priority) as Array<CompiledTransaction<P>>) ordered.push(t)
  }
  // Document order is index order, so each bucket is newest first already; the sort confirms it
  // cheaply for a document assembled in another order.
  return isOrdered(ordered) ? ordered : ordered.sort(byPriorityThenNewest)
}

function isOrdered<P>(list: ReadonlyArray<CompiledTransaction<P>>): boolean {
  for (let i = 1; i < list.length; i++) {
    if (
      byPriorityThenNewest(
        list[i - 1] as CompiledTransaction<P>,
        list[i] as CompiledTransaction<P>,
      ) > 0
    ) {
      return false
    }
  }
  return true
}

function* indexSteps<P>(
  transactions: ReadonlyArray<CompiledTransaction<P>>,
  active: ReadonlyArray<CompiledTransaction<P>>,
  needsBody: boolean,
  needsForm: boolean,
  prepared: readonly PreparedPredicate[],
): Generator<void, CompiledMatcher<P>, void> {
  // One index per method that appears, each also holding the method-less transactions; `ANY`
  // serves methods that no transaction names.
  const methods = new Set<string>()
  for (const t of active) if (t.method !== null) methods.add(t.method)
  const anyMethod = active.filter((t) => t.method === null)
  const byMethod = new Map<string, MethodRoutes<P>>()
  for (const method of methods) {
    byMethod.set(
      method,
      yield* methodRoutesSteps(active.filter((t) => t.method === method || t.method === null)),
    )
  }
  const fallbackRoutes = yield* methodRoutesSteps(anyMethod)
  const byIdMap = new Map<number, CompiledTransaction<P>>()
  for (const t of transactions) if (t.id !== null) byIdMap.set(t.id, t)
  yield

  return {
    transactions,
    active,
    needsBody,
    needsForm,
    prepared: prepared.length === 0 ? null : prepared,
    // HOT PATH: one lookup, then the candidates' predicates in order; first full match wins. With
    // a discriminator, only the candidates its index allows, merged with the others in order.
    match(req) {
      const list = (byMethod.get(req.method) ?? fallbackRoutes).candidatesFor(req.path)
      const candidates = list.candidates
      const discriminator = list.discriminator
      if (discriminator === null) {
        for (let i = 0; i < candidates.length; i++) {
          const candidate = candidates[i] as Candidate<P>
          if (holds(candidate, req)) return candidate.txn
        }
        return null
      }
      const indexed = discriminator.positionsFor(req)
      const rest = discriminator.rest
      let i = 0
      let j = 0
      while (i < indexed.length || j < rest.length) {
        const position =
          j >= rest.length || (i < indexed.length && (indexed[i] as number) < (rest[j] as number))
            ? (indexed[i++] as number)
            : (rest[j++] as number)
        const candidate = candidates[position] as Candidate<P>
        if (holds(candidate, req)) return candidate.txn
      }
      return null
    },
    diagnose: (req, limit) => diagnose(active, req, limit),
    byId: (id) => byIdMap.get(id),
  }
}

/** Whether every condition of a candidate holds (its url only when the route does not imply it). */
// HOT PATH
function holds<P>(candidate: Candidate<P>, req: MatchRequest): boolean {
  if (candidate.url !== null && !candidate.url.test(req)) return false
  const predicates = candidate.txn.predicates
  for (let j = 0; j < predicates.length; j++) {
    if (!(predicates[j] as (typeof predicates)[number]).test(req)) return false
  }
  return true
}
