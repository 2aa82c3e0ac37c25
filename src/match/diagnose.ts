import type { CompiledTransaction } from './compiled.js'
import type { MatchRequest } from './request.js'
import { shorten, type RequestPart } from './predicates/predicate.js'

/** One condition a near-miss transaction failed: what it expected and what the request had. */
export interface FailedCondition {
  part: RequestPart
  key?: string
  matcherName: string
  expected: string
  actual: string | null
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

/** How many transactions get a full evaluation after the cheap method+url pre-score. */
const SHORTLIST = 50

/**
 * The transactions closest to matching an unmatched request, best first, each with the matchers
 * that failed (undici's MockNotMatchedError names the reason too). Cost stays bounded with many
 * transactions: method and url are scored for all, the rest only for a shortlist.
 *
 * @example
 * diagnose(matcher.active, new MatchRequest('GET', '/petz', {}, null), 3)[0].failed[0].part // 'url'
 */
export function diagnose<P> (transactions: ReadonlyArray<CompiledTransaction<P>>, req: MatchRequest, limit = 3): NearMiss[] {
  if (limit <= 0 || transactions.length === 0) return []
  const prescored = transactions.map((txn) => ({
    txn,
    score: (txn.method === null || txn.method === req.method ? 2 : 0) + (txn.url === null || txn.url.test(req) ? 3 : 0),
  }))
  // Stable sort keeps priority order (transactions arrive sorted) among equal scores.
  prescored.sort((a, b) => b.score - a.score)
  const misses = prescored.slice(0, SHORTLIST).map(({ txn }) => evaluate(txn, req))
  misses.sort((a, b) => a.failed.length - b.failed.length || b.matched - a.matched || a.priority - b.priority)
  return misses.slice(0, limit)
}

function evaluate<P> (txn: CompiledTransaction<P>, req: MatchRequest): NearMiss {
  const failed: FailedCondition[] = []
  let matched = 0
  let total = 0
  if (txn.method !== null) {
    total++
    if (txn.method === req.method) matched++
    else failed.push({ part: 'method', matcherName: 'equals', expected: txn.method, actual: req.method })
  }
  const conditions = txn.url === null ? txn.predicates : [txn.url, ...txn.predicates]
  for (const p of conditions) {
    total++
    if (p.test(req)) {
      matched++
      continue
    }
    const condition: FailedCondition = { part: p.part, matcherName: p.matcherName, expected: shorten(p.expected), actual: p.actual(req) }
    if (p.key !== '' && p.part !== 'url') condition.key = p.key
    failed.push(condition)
  }
  return { transactionId: txn.id, name: txn.name, priority: txn.priority, matched, total, failed }
}
