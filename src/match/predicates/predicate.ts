import type { MatchRequest } from '../request.js'

/** The request parts a transaction can constrain, in the order they are checked (cheapest first). */
export const requestParts = [
  'method',
  'url',
  'queryParams',
  'headers',
  'cookies',
  'credentials',
  'body',
  'scenario',
] as const
export type RequestPart = (typeof requestParts)[number]

/**
 * One compiled condition of a transaction. `test` runs on the hot path; `actual` only when a
 * request did not match, to explain why (near-miss diagnosis).
 */
export interface Predicate {
  readonly part: RequestPart
  /** Header, parameter, cookie or form-field name; JSONPath or XPath for bodies; '' otherwise. */
  readonly key: string
  readonly matcherName: string
  /** What the transaction expects, as written. */
  readonly expected: string
  /** Where it is written, relative to the transaction: `/dsl/requestDsl/headers/0`. */
  readonly pointer: string
  test: (req: MatchRequest) => boolean
  /** What the request had for this predicate, shortened; null when it had nothing. */
  actual: (req: MatchRequest) => string | null
}

/** A url predicate can also be asked about a bare path, at compile time (see router.ts). */
export interface UrlPredicate extends Predicate {
  readonly part: 'url'
  testPath: (path: string) => boolean
}

/** Longest actual value shown in a diagnosis. */
const MAX_ACTUAL = 200

/** Shortens a value for a diagnosis. */
export function shorten(value: string): string {
  return value.length > MAX_ACTUAL ? `${value.slice(0, MAX_ACTUAL)}…` : value
}
