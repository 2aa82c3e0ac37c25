import type { MockServiceDocument } from '../dsl/index.js'
import type { Logger } from '../log/index.js'

/** A warning found while loading files, before it is logged. */
export interface StartupWarning {
  message: string
  /** Logged beside the message (`file`, `at`, the transactions involved...). */
  fields?: Record<string, unknown>
}

/** Warnings of one kind: how many, and the first as the example. */
interface WarningGroup {
  example: StartupWarning
  count: number
}

/**
 * The kind of a warning: its message with what names one occurrence blanked (quoted names, paths
 * and URLs, HTTP methods, numbers), so that `request "A" has no saved example response` and
 * `request "B" ...`, or `GET /a was recorded 2 times; ...` and `POST /b was recorded 3 times; ...`,
 * are one kind.
 *
 * @example
 * warningKind('request "A / B" has no saved example response') // 'request "" has no saved example response'
 */
export function warningKind(message: string): string {
  // What follows a `;` details the occurrence (the repeats of a recorded request, for instance).
  const semicolon = message.indexOf('; ')
  return (semicolon === -1 ? message : message.slice(0, semicolon))
    .replace(/"[^"]*"/g, '""')
    .replace(/\S*\/\S*/g, '/')
    .replace(/\b(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|TRACE|CONNECT)\b/g, 'M')
    .replace(/\d+/g, '0')
}

/** Groups warnings by kind, in the order each kind first appears. */
export function groupWarnings(warnings: readonly StartupWarning[]): WarningGroup[] {
  const groups = new Map<string, WarningGroup>()
  for (const warning of warnings) {
    const kind = warningKind(warning.message)
    const group = groups.get(kind)
    if (group === undefined) groups.set(kind, { example: warning, count: 1 })
    else group.count++
  }
  return [...groups.values()]
}

/**
 * Logs the start-up warnings: one line per kind, its first occurrence as the example and how many
 * more there are, so that a real collection's 235 warnings do not bury `listening on`; with
 * `verbose`, every one of them.
 */
export function logStartupWarnings(
  warnings: readonly StartupWarning[],
  log: Logger,
  verbose: boolean,
): void {
  if (verbose) {
    for (const w of warnings) log.warn(w.fields ?? {}, w.message)
    return
  }
  for (const { example, count } of groupWarnings(warnings)) {
    const more = count > 1 ? ` (and ${count - 1} more like it; --verbose lists them)` : ''
    log.warn({ ...example.fields, ...(count > 1 ? { count } : {}) }, `${example.message}${more}`)
  }
}

/** Routes listed at start-up; beyond, one line counts the rest. */
const ROUTES_SHOWN = 20

/**
 * The routes a document serves, as a person reads them at a terminal (method, path, name), in
 * file order: the first `max`, then `and N more`.
 *
 * @example
 * routeLines(doc) // ['GET    /pets        list pets', 'POST   /adoptions   adopt']
 */
export function routeLines(document: MockServiceDocument, max = ROUTES_SHOWN): string[] {
  const rows = document.transactions.slice(0, max).map((t) => {
    const request = t.dsl.requestDsl
    const method =
      request.method === undefined || request.method === '' ? 'ANY' : request.method.toUpperCase()
    const path =
      request.path ??
      (typeof request.url?.matchingValue === 'string' ? request.url.matchingValue : '*')
    return [method, path, t.name ?? ''] as const
  })
  const methodWidth = Math.max(0, ...rows.map((r) => r[0].length))
  const pathWidth = Math.min(60, Math.max(0, ...rows.map((r) => r[1].length)))
  const lines = rows.map(([method, path, name]) =>
    `  ${method.padEnd(methodWidth)}  ${path.padEnd(pathWidth)}  ${name}`.trimEnd(),
  )
  const rest = document.transactions.length - rows.length
  if (rest > 0) lines.push(`  and ${rest} more`)
  return lines
}
