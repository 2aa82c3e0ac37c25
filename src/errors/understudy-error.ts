import { format } from 'node:util'
import { codes, type ErrorCode } from './codes.js'

/**
 * One problem inside an error: where (a JSON pointer into the input, and the file position when
 * the input came from a file) and what.
 */
export interface ErrorDetail {
  /** JSON pointer into the offending input, such as `/transactions/0/dsl/requestDsl/url`. */
  path: string
  message: string
  file?: string
  line?: number
  column?: number
}

/** The only error class Understudy throws on purpose; callers branch on `code`, never on `message`. */
export class UnderstudyError extends Error {
  readonly code: ErrorCode
  readonly statusCode: number
  readonly details: readonly ErrorDetail[] | undefined

  constructor(code: ErrorCode, message: string, details?: readonly ErrorDetail[], cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause })
    this.name = 'UnderstudyError'
    this.code = code
    this.statusCode = codes[code].status
    this.details = details
  }
}

/**
 * Creates an error from the catalogue, filling its `%s` placeholders with `args`.
 *
 * @example
 * throw createError('ERR_DSL_INVALID', ['2 errors'], { details: [{ path: '/dsl', message: 'required' }] })
 */
export function createError(
  code: ErrorCode,
  args: readonly unknown[] = [],
  options: { cause?: unknown; details?: readonly ErrorDetail[] } = {},
): UnderstudyError {
  const template: string = codes[code].message
  // Only as many arguments as placeholders: util.format would append the rest to the message,
  // which could leak details into codes (ERR_INTERNAL) that promise a fixed text.
  const placeholders = template.split('%s').length - 1
  const message = placeholders > 0 ? format(template, ...args.slice(0, placeholders)) : template
  return new UnderstudyError(code, message, options.details, options.cause)
}

/** True when `value` is an UnderstudyError, optionally with the given code. */
export function isUnderstudyError(value: unknown, code?: ErrorCode): value is UnderstudyError {
  return value instanceof UnderstudyError && (code === undefined || value.code === code)
}

/** Turns anything thrown into an UnderstudyError; unknown throws become ERR_INTERNAL. */
export function toUnderstudyError(value: unknown): UnderstudyError {
  if (value instanceof UnderstudyError) return value
  return createError('ERR_INTERNAL', [], { cause: value })
}

/**
 * One line naming the error and, when present, its first details: the one describer of every CLI
 * message. Details whose text the message already says are left out; when that leaves none, the
 * first detail is still shown if it knows a line the message does not name (file:line is what a
 * user opens).
 *
 * @example
 * describeError(createError('ERR_DSL_INVALID', ['2 errors'], { details })) // 'Invalid mock definition: 2 errors: m.yaml:3:5 /a: is bad; /b: is bad'
 */
export function describeError(err: UnderstudyError, maxDetails = 3): string {
  const details = err.details ?? []
  const extra = details.filter((d) => !err.message.includes(d.message))
  const parts = extra.slice(0, maxDetails).map(formatDetail)
  const first = details[0]
  if (
    extra.length === 0 &&
    first?.line !== undefined &&
    !err.message.includes(`line ${first.line}`) &&
    !err.message.includes(formatDetail(first))
  ) {
    parts.push(formatDetail(first))
  }
  const more = extra.length > maxDetails ? `; and ${extra.length - maxDetails} more` : ''
  // A message that names the file its details name too (`m.yaml: 1 error`, kept for the APIs,
  // whose clients may read only the message) would say it twice: the details say where.
  const file = parts.length > 0 ? soleFile(details) : undefined
  const message = file === undefined ? err.message : err.message.replace(`: ${file}: `, ': ')
  const text = parts.length > 0 ? `${message}: ${parts.join('; ')}${more}` : message
  return text.replace(/\s*\n\s*/g, ' ').trim()
}

/** The file every detail names, when they all name the same one. */
function soleFile(details: readonly ErrorDetail[]): string | undefined {
  const file = details[0]?.file
  return file !== undefined && details.every((d) => d.file === file) ? file : undefined
}

/** `file:line:column path: message`, leaving out what is unknown. */
export function formatDetail(detail: ErrorDetail): string {
  let where = ''
  if (detail.file !== undefined) {
    where = detail.file
    if (detail.line !== undefined) where += `:${detail.line}`
    if (detail.column !== undefined) where += `:${detail.column}`
    where += ' '
  }
  return `${where}${detail.path === '' ? '/' : detail.path}: ${detail.message}`
}
