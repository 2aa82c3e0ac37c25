import { formatCount } from '../errors/index.js'
import type { CompiledTransaction } from './compiled.js'
import type { MatchRequest } from './request.js'
import { shorten, type RequestPart } from './predicates/predicate.js'
import { normalizeTemplate } from './path.js'
import { regexInputStats } from './predicates/value-check.js'
import { MAX_REGEX_INPUT } from '../dsl/index.js'
import { characterDistance, pathDistance, segmentsOf } from './path-distance.js'

/** One condition a near-miss transaction failed: what it expected and what the request had. */
export interface FailedCondition {
  part: RequestPart
  key?: string
  matcherName: string
  expected: string
  actual: string | null
  /** Why it failed when the values alone do not say: a bound was hit (docs/limits.md). */
  reason?: string
}

/** A transaction that almost matched an unmatched request. */
export interface NearMiss {
  transactionId: number | null
  name: string
  priority: number
  /** Conditions that held, of `total` (method and url included). */
  matched: number
  total: number
  failed: FailedCondition[]
}

/** What a near miss says about a regex matcher that refused a value past the input bound. */
const OVERSIZE_REASON = `the value is longer than the ${formatCount(MAX_REGEX_INPUT)} characters a regex is run on, so the matcher fails (docs/regex.md); counted as oversizeRegexInputs in /health`

/** How many transactions get a full evaluation after the cheap method+url pre-score. */
const SHORTLIST = 50

/** What a different method adds to the path distance: a same-path operation of another method ranks after a one-letter typo of the right one. */
const METHOD_PENALTY = 0.75

/**
 * The transactions closest to matching an unmatched request, best first, each with the matchers
 * that failed (undici's MockNotMatchedError names the reason too). Ranked by how close the request
 * came: transactions whose method and path both match first (only other matchers failed), then
 * by the edit distance between the request path and the transaction's path (segments, `{name}`
 * matching any), a different method counting as a further distance, then by the number of
 * matchers that failed, then priority. Cost stays bounded with many transactions: method and
 * path are scored for all, the rest only for a shortlist.
 *
 * @example
 * diagnose(matcher.active, new MatchRequest('GET', '/petz', {}, null), 3)[0].failed[0].part // 'url'
 */
export function diagnose<P>(
  transactions: ReadonlyArray<CompiledTransaction<P>>,
  req: MatchRequest,
  limit = 3,
): NearMiss[] {
  if (limit <= 0 || transactions.length === 0) return []
  const requestSegments = segmentsOf(req.path)
  // The SHORTLIST best by (tier, score), kept sorted as they come, an earlier transaction first
  // among equals (they arrive in priority order): the same as a stable sort of all of them, without
  // allocating and sorting 100,000s of entries for each unmatched request of a large mock service.
  const shortlist: Array<{
    txn: CompiledTransaction<P>
    tier: number
    score: number
    otherMethod: boolean
  }> = []
  const otherMethods: typeof shortlist = []
  let segmentsByPosition = templateSegments.get(transactions)
  if (segmentsByPosition === undefined) {
    segmentsByPosition = []
    templateSegments.set(transactions, segmentsByPosition)
  }
  for (let i = 0; i < transactions.length; i++) {
    const txn = transactions[i] as CompiledTransaction<P>
    const methodOk = txn.method === null || txn.method === req.method
    const urlOk = txn.url === null || txn.url.test(req)
    // computed for matching paths too: among them, literal segments beat placeholders
    const distance = distanceTo(txn, req.path, requestSegments, urlOk, segmentsByPosition, i)
    const tier = methodOk && urlOk ? 0 : 1
    const score = distance + (methodOk ? 0 : METHOD_PENALTY)
    const otherMethod = urlOk && !methodOk
    // The same path with another method is what a user most often meant: it is always a candidate,
    // even when many paths one character away rank before it (`/orders/810` for `/orders/10`).
    if (otherMethod && otherMethods.length < limit) {
      otherMethods.push({ txn, tier, score, otherMethod })
    }
    const worst = shortlist[shortlist.length - 1]
    if (
      shortlist.length === SHORTLIST &&
      worst !== undefined &&
      (tier > worst.tier || (tier === worst.tier && score >= worst.score))
    ) {
      continue
    }
    let at = shortlist.length
    while (at > 0) {
      const before = shortlist[at - 1] as (typeof shortlist)[number]
      if (before.tier < tier || (before.tier === tier && before.score <= score)) break
      at--
    }
    shortlist.splice(at, 0, { txn, tier, score, otherMethod })
    if (shortlist.length > SHORTLIST) shortlist.pop()
  }
  const candidates = [
    ...shortlist,
    ...otherMethods.filter((o) => !shortlist.some((s) => s.txn === o.txn)),
  ]
  const misses = candidates.map(({ txn, tier, score, otherMethod }) => ({
    tier,
    score,
    otherMethod,
    miss: evaluate(txn, req),
  }))
  misses.sort(
    (a, b) =>
      a.tier - b.tier ||
      a.score - b.score ||
      a.miss.failed.length - b.miss.failed.length ||
      b.miss.matched - a.miss.matched ||
      a.miss.priority - b.miss.priority,
  )
  const chosen = misses.slice(0, limit)
  const missing = misses.slice(limit).filter((m) => m.otherMethod)
  // each one left out takes the place of the weakest candidate that is neither on the right path
  // nor the same path with another method
  for (const candidate of missing) {
    let weakest = -1
    for (let i = chosen.length - 1; i >= 0; i--) {
      const c = chosen[i]
      if (c !== undefined && c.tier !== 0 && !c.otherMethod) {
        weakest = i
        break
      }
    }
    if (weakest < 0) break
    chosen.splice(weakest, 1)
    chosen.push(candidate)
  }
  return chosen.map((m) => m.miss)
}

/**
 * Segments of each transaction's `equals_url` template, by position in the list diagnosed,
 * computed at the first diagnosis. One entry per compiled list (dropped with it): a weak entry per
 * transaction made every garbage collection of a 250,000-transaction runtime slower.
 */
const templateSegments = new WeakMap<object, Array<string[] | undefined>>()

/** Path distance to a transaction whose url matcher failed. */
function distanceTo<P>(
  txn: CompiledTransaction<P>,
  path: string,
  requestSegments: readonly string[],
  urlOk: boolean,
  cache: Array<string[] | undefined>,
  position: number,
): number {
  const url = txn.url
  if (url === null) return 0
  if (url.matcherName === 'equals_url') {
    let segments = cache[position]
    if (segments === undefined) {
      segments = segmentsOf(normalizeTemplate(url.expected))
      cache[position] = segments
    }
    return pathDistance(requestSegments, segments)
  }
  if (urlOk) return 0
  // A regex or another matcher: the character distance to what it is written as, scaled to segments.
  const longest = Math.max(path.length, url.expected.length, 1)
  return (characterDistance(path, url.expected) / longest) * Math.max(requestSegments.length, 1)
}

function evaluate<P>(txn: CompiledTransaction<P>, req: MatchRequest): NearMiss {
  const failed: FailedCondition[] = []
  let matched = 0
  let total = 0
  if (txn.method !== null) {
    total++
    if (txn.method === req.method) matched++
    else {
      failed.push({
        part: 'method',
        matcherName: 'equals',
        expected: txn.method,
        actual: req.method,
      })
    }
  }
  const conditions = txn.url === null ? txn.predicates : [txn.url, ...txn.predicates]
  for (const p of conditions) {
    total++
    const oversizeBefore = regexInputStats.oversize
    const holds = p.test(req)
    const oversize = regexInputStats.oversize !== oversizeBefore
    // A diagnosis runs the matchers again: what they refused was counted when the request was matched.
    regexInputStats.oversize = oversizeBefore
    if (holds) {
      matched++
      continue
    }
    const condition: FailedCondition = {
      part: p.part,
      matcherName: p.matcherName,
      expected: shorten(p.expected),
      actual: p.actual(req),
    }
    if (p.key !== '' && p.part !== 'url') condition.key = p.key
    if (oversize) condition.reason = OVERSIZE_REASON
    failed.push(condition)
  }
  return { transactionId: txn.id, name: txn.name, priority: txn.priority, matched, total, failed }
}
