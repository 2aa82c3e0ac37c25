import { codes, type ErrorCode } from './codes.js'
import { createError, UnderstudyError, type ErrorDetail } from './understudy-error.js'

/*
 * The one encoder and decoder for errors that cross a process or thread boundary: a cluster
 * replica's IPC reply, the runtime admin API's envelope as the deployer and the control plane read
 * it, an import worker thread's answer, and anything else another Understudy process sends. Only codes of the catalogue pass; anything else (a Node.js `ERR_SOCKET_...`, a
 * code of a newer or older version, garbage) becomes the caller's fallback, so users only ever
 * see codes that docs/errors.md explains.
 */

/** An error as it crosses a process boundary (IPC message or HTTP envelope). */
export interface WireError {
  code: string
  message: string
  details?: readonly ErrorDetail[]
}

/**
 * An error ready to cross a process boundary; anything but an UnderstudyError becomes ERR_INTERNAL
 * (its message stays in this process's log, never on the wire). `sameProcess`: the receiver is a
 * thread of this process, which logs what it receives: an unexpected error's own message goes
 * along, and `fromWireError` keeps it as the cause of the ERR_INTERNAL, never as its message.
 *
 * @example
 * toWireError(createError('ERR_DSL_INVALID', ['1 error'])).code // 'ERR_DSL_INVALID'
 * toWireError(new TypeError('x is undefined'), { sameProcess: true }) // { code: 'ERR_INTERNAL', message: 'x is undefined' }
 */
export function toWireError(err: unknown, { sameProcess = false } = {}): WireError {
  if (err instanceof UnderstudyError) {
    return err.details === undefined
      ? { code: err.code, message: err.message }
      : { code: err.code, message: err.message, details: err.details }
  }
  const own = err instanceof Error ? err.message : String(err)
  return { code: 'ERR_INTERNAL', message: sameProcess ? own : codes.ERR_INTERNAL.message }
}

/**
 * The UnderstudyError that an error received from another process stands for. A code of the
 * catalogue keeps its message and its well-formed details; any other code, or a value that is not
 * an error object at all, becomes `fallback` (its message filled with the received message, if
 * any). ERR_INTERNAL always carries the catalogue's fixed message, the received one as its cause.
 *
 * @example
 * fromWireError({ code: 'ERR_DSL_INVALID', message: 'Invalid mock definition: 1 error', details }).code // 'ERR_DSL_INVALID'
 * fromWireError({ code: 'ERR_SOCKET_CLOSED', message: 'x' }, 'ERR_DEPLOY_FAILED').code // 'ERR_DEPLOY_FAILED'
 */
export function fromWireError(
  wire: unknown,
  fallback: ErrorCode = 'ERR_INTERNAL',
): UnderstudyError {
  const record = typeof wire === 'object' && wire !== null ? (wire as Record<string, unknown>) : {}
  const code = record['code']
  const message = typeof record['message'] === 'string' ? record['message'] : undefined
  if (code === 'ERR_INTERNAL') {
    return createError('ERR_INTERNAL', [], { cause: new Error(message ?? 'no reason given') })
  }
  if (typeof code === 'string' && Object.hasOwn(codes, code) && message !== undefined) {
    return new UnderstudyError(code as ErrorCode, message, detailsOf(record['details']))
  }
  return createError(fallback, [message ?? 'no reason given'])
}

function detailsOf(value: unknown): ErrorDetail[] | undefined {
  if (!Array.isArray(value)) return undefined
  const out: ErrorDetail[] = []
  for (const item of value) {
    if (typeof item !== 'object' || item === null) continue
    const d = item as Record<string, unknown>
    if (typeof d['path'] !== 'string' || typeof d['message'] !== 'string') continue
    const detail: ErrorDetail = { path: d['path'], message: d['message'] }
    if (typeof d['file'] === 'string') detail.file = d['file']
    if (typeof d['line'] === 'number') detail.line = d['line']
    if (typeof d['column'] === 'number') detail.column = d['column']
    out.push(detail)
  }
  return out
}
