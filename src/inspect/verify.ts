import { createError } from '../errors/index.js'
import { compileFilter, failedFields, filterParams, type InspectionFilter } from './filter.js'
import { toListEntry, type InspectionListEntry } from './query.js'
import type { InspectionRecord } from './record.js'

/**
 * A verification: "this request pattern was received exactly `count` times" (or at least /
 * at most), as WireMock's `verify` and msw's request assertions. Without any bound it means
 * "at least once".
 */
export interface Verification {
  request: InspectionFilter
  count?: number
  atLeast?: number
  atMost?: number
}

/** A record that did not fit the pattern, with the fields it failed. */
export interface VerificationMiss {
  id: number
  method: string
  url: string
  statusCode: number
  failed: string[]
}

/** The answer of a verification: whether it held, and what matched and what did not. */
export interface VerificationResult {
  verified: boolean
  /** The expectation in words: `exactly 2`, `at least 1`, `between 1 and 3`. */
  expected: string
  /** How many records fit the pattern. */
  actual: number
  /** The records that fit, newest first (at most 50). */
  matching: InspectionListEntry[]
  /** Records that did not fit, those failing fewest fields first (at most 10). */
  nearest: VerificationMiss[]
}

const MAX_MATCHING = 50
const MAX_NEAREST = 10

/**
 * Validates a verification body, naming the failing field (ERR_API_VALIDATION).
 *
 * @example
 * readVerification({ request: { method: 'POST', path: '/orders' }, count: 1 })
 */
export function readVerification(body: unknown): Verification {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('', 'the body must be an object {request, count | atLeast | atMost}')
  }
  const input = body as Record<string, unknown>
  for (const key of Object.keys(input)) {
    if (!['request', 'count', 'atLeast', 'atMost'].includes(key)) {
      throw invalid(key, 'is not a verification field (request, count, atLeast, atMost)')
    }
  }
  const request = input['request'] ?? {}
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw invalid('request', 'must be an object of filters')
  }
  for (const key of Object.keys(request)) {
    if (!(filterParams as readonly string[]).includes(key)) {
      throw invalid(`request/${key}`, `is not a filter (${filterParams.join(', ')})`)
    }
  }
  const verification: Verification = { request: request as InspectionFilter }
  for (const bound of ['count', 'atLeast', 'atMost'] as const) {
    const value = input[bound]
    if (value === undefined) continue
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      throw invalid(bound, 'must be an integer >= 0')
    }
    verification[bound] = value
  }
  if (
    verification.count !== undefined &&
    (verification.atLeast !== undefined || verification.atMost !== undefined)
  ) {
    throw invalid('count', 'cannot be combined with atLeast or atMost')
  }
  compileFilter(verification.request)
  return verification
}

/**
 * Checks a verification against records (newest first).
 *
 * @example
 * verify(ring.newest(0, ring.length), { request: { method: 'POST', path: '/orders' }, count: 1 }, 0).verified
 */
export function verify(
  records: readonly InspectionRecord[],
  verification: Verification,
  serviceMockId: number,
): VerificationResult {
  const test = compileFilter(verification.request)
  const matching: InspectionRecord[] = []
  const others: InspectionRecord[] = []
  for (const record of records) (test(record) ? matching : others).push(record)
  const actual = matching.length
  const { verified, expected } = judge(verification, actual)
  const nearest = others
    .map((r) => ({
      id: r.id,
      method: r.method,
      url: r.url,
      statusCode: r.statusCode,
      failed: failedFields(verification.request, r),
    }))
    .sort((a, b) => a.failed.length - b.failed.length)
    .slice(0, MAX_NEAREST)
  return {
    verified,
    expected,
    actual,
    matching: matching.slice(0, MAX_MATCHING).map((r) => toListEntry(r, serviceMockId)),
    nearest,
  }
}

/** Whether `actual` records satisfy the verification's bound, and the bound in words. */
function judge(
  verification: Verification,
  actual: number,
): { verified: boolean; expected: string } {
  const { count, atLeast, atMost } = verification
  if (count !== undefined) return { verified: actual === count, expected: `exactly ${count}` }
  if (atLeast !== undefined && atMost !== undefined) {
    return {
      verified: actual >= atLeast && actual <= atMost,
      expected: `between ${atLeast} and ${atMost}`,
    }
  }
  if (atMost !== undefined) return { verified: actual <= atMost, expected: `at most ${atMost}` }
  const least = atLeast ?? 1
  return { verified: actual >= least, expected: `at least ${least}` }
}

/**
 * One verification's answer from the answers of several journals (the replicas of a cluster,
 * each verified on its own records): counts add up, the matching records are merged newest
 * first and the nearest misses fewest failed fields first, each within the usual bounds.
 *
 * @example
 * mergeVerifications(verification, await Promise.all(replicas.map((r) => r.verify(verification))))
 */
export function mergeVerifications(
  verification: Verification,
  results: readonly VerificationResult[],
): VerificationResult {
  let actual = 0
  for (const r of results) actual += r.actual
  const matching = newestFirst(results.flatMap((r) => r.matching)).slice(0, MAX_MATCHING)
  const nearest = results
    .flatMap((r) => r.nearest)
    .sort((a, b) => a.failed.length - b.failed.length || b.id - a.id)
    .slice(0, MAX_NEAREST)
  return { ...judge(verification, actual), actual, matching, nearest }
}

/** List entries of several journals, newest first (by time, then id), sorted in place. */
export function newestFirst<T extends { timestamp: number; id: number }>(entries: T[]): T[] {
  return entries.sort((a, b) => b.timestamp - a.timestamp || b.id - a.id)
}

function invalid(field: string, message: string) {
  return createError('ERR_API_VALIDATION', [field === '' ? message : `${field} ${message}`], {
    details: [{ path: `/${field}`, message }],
  })
}
