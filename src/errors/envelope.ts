import type { ErrorDetail, UnderstudyError } from './understudy-error.js'

/**
 * RFC 7807 problem document for the errors the runtime itself produces (no match, capacity, body
 * too large, upstream down), with our stable `code`.
 */
interface Problem {
  type: string
  title: string
  status: number
  detail: string
  code: string
  requestId: string | null
  errors?: readonly ErrorDetail[]
  [extension: string]: unknown
}

/** The content type of every runtime error body. */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json'

const problemTypeBase = 'https://understudy.dev/errors/'

/**
 * Builds the problem+json body of an error; `extra` adds members such as the near-miss diagnosis.
 *
 * @example
 * toProblem(createError('ERR_SERVE_CAPACITY', [100]), '17')
 */
export function toProblem(
  err: UnderstudyError,
  requestId: string | null,
  extra?: Record<string, unknown>,
): Problem {
  const problem: Problem = {
    type: problemTypeBase + err.code,
    title: titleOf(err.code),
    status: err.statusCode,
    detail: err.message,
    code: err.code,
    requestId,
  }
  if (err.details !== undefined && err.details.length > 0) problem.errors = err.details
  if (extra !== undefined) Object.assign(problem, extra)
  return problem
}

/** `ERR_SERVE_BODY_TOO_LARGE` -> `Body too large`: a short, stable human title (area dropped). */
function titleOf(code: string): string {
  const words = code
    .split('_')
    .slice(2)
    .map((w) => w.toLowerCase())
  if (words.length === 0) return 'Internal error'
  const first = words[0] ?? ''
  return [first.charAt(0).toUpperCase() + first.slice(1), ...words.slice(1)].join(' ')
}

/** `error` member of the control-plane envelopes: `{code, message, details?}` (docs/decisions.md#envelopes). */
interface EnvelopeError {
  code: string
  message: string
  status?: number
  details?: readonly ErrorDetail[]
}

/** The `error` member for an UnderstudyError; internal errors never leak their message or stack. */
export function toEnvelopeError(err: UnderstudyError, withStatus = false): EnvelopeError {
  const out: EnvelopeError = { code: err.code, message: err.message }
  if (withStatus) out.status = err.statusCode
  if (err.details !== undefined && err.details.length > 0) out.details = err.details
  return out
}

/**
 * Envelope of the mock services API (the mock services specification): `{apiVersion, error, result,
 * requestId}`.
 *
 * @example
 * v1Envelope(null, { id: 1 }, 'req-1') // { apiVersion: 1, error: null, result: { id: 1 }, requestId: 'req-1' }
 */
export function v1Envelope(
  error: EnvelopeError | null,
  result: unknown,
  requestId: string | null,
): Record<string, unknown> {
  return { apiVersion: 1, error, result, requestId }
}

/** Envelope of the administration API (the administration specification): `{api_version, error, result, request_id}`. */
export function v4Envelope(
  error: EnvelopeError | null,
  result: unknown,
  requestId: string | null,
): Record<string, unknown> {
  return { api_version: 4, error, result, request_id: requestId }
}

/** Envelope of the monitoring API (the monitoring specification): `{data, meta, error}`. */
export function monitoringEnvelope(
  error: EnvelopeError | null,
  data: unknown,
  meta: Record<string, unknown> = {},
): Record<string, unknown> {
  return { data, meta, error }
}
