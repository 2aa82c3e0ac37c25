import {
  compileUserRegex,
  documentOf,
  readDefinition,
  recordOrigin,
  RegexRejection,
  type DslInput,
  type MatcherInput,
  type SourcePosition,
  type Transaction,
} from '../../src/dsl/index.js'
import { formatDetail, isUnderstudyError, type ErrorDetail } from '../../src/errors/index.js'
import type { DslTypeKey, ImportFormat, ImportResult, ImportWarning } from '../types.js'
import { uniqueNames } from './naming.js'
import { importInvalid } from './errors.js'

/** A transaction an importer built, before validation, with where it came from. */
export interface Draft {
  name: string
  description?: string
  dsl: DslInput
  /** JSON pointer (or locator) of its source inside the file, such as `/mappings/2`. */
  pointer: string
  /** How warnings name it: `stub "get user"`, `pair orders/create`. */
  label: string
}

/** Where the drafts came from, and where their warnings go. */
interface DraftSource {
  file: string
  locate?: (pointer: string) => SourcePosition | undefined
  warnings: ImportWarning[]
}

/**
 * Validates and normalizes drafts one by one (through the DSL's own `readDefinition`, so that an
 * importer can never emit what a hand-written file could not). A draft that fails is skipped with a
 * warning naming it; when every draft fails, the import fails with ERR_IMPORT_INVALID listing them.
 * Each transaction remembers its source position, so later compile errors (an unsafe regex) name
 * the stub's file and line. Names are made unique (` #2`, ` #3` for repeats).
 *
 * @example
 * const txns = finishDrafts([{ name: 'a', dsl: { requestDsl: { path: '/a' } }, pointer: '', label: 'a' }], { file: 'a.json', warnings: [] })
 */
export function finishDrafts(drafts: readonly Draft[], source: DraftSource): Transaction[] {
  const out: Transaction[] = []
  const failures: ErrorDetail[] = []
  for (const draft of drafts) {
    const problem = regexProblem(draft.dsl) ?? validationProblem(draft)
    if (typeof problem === 'string') {
      source.warnings.push({
        message: `${draft.label} skipped: ${problem}`,
        file: source.file,
        at: draft.pointer,
      })
      const detail: ErrorDetail = {
        path: draft.pointer,
        message: `${draft.label}: ${problem}`,
        file: source.file,
      }
      const pos = source.locate?.(draft.pointer)
      if (pos !== undefined) {
        detail.line = pos.line
        detail.column = pos.column
      }
      failures.push(detail)
      continue
    }
    const locate = source.locate
    recordOrigin(problem, {
      file: source.file,
      pointer: draft.pointer,
      ...(locate === undefined ? {} : { locate: () => locate(draft.pointer) }),
    })
    out.push(problem)
  }
  // Names identify transactions in the control plane, where a duplicate conflicts: the first keeps
  // its name, later ones get ` #2`, ` #3` (as the HAR importer does).
  uniqueNames(out.map((t) => t.name)).forEach((name, i) => {
    const txn = out[i]
    if (txn !== undefined) txn.name = name
  })
  if (out.length === 0 && failures.length > 0) {
    throw importInvalid(
      source.file,
      `nothing could be imported: ${failures
        .map((f) => f.message)
        .slice(0, 3)
        .join('; ')}`,
      failures,
    )
  }
  return out
}

/** The normalized transaction, or why the draft is not a valid transaction. */
function validationProblem(draft: Draft): Transaction | string {
  const value: Record<string, unknown> = { name: draft.name, dsl: draft.dsl }
  if (draft.description !== undefined) value['description'] = draft.description
  try {
    const txn = readDefinition(value).transactions[0]
    return txn ?? 'produced no transaction'
  } catch (err) {
    if (!isUnderstudyError(err)) throw err
    const details = err.details ?? []
    return details.length > 0 ? details.map(formatDetail).join('; ') : err.message
  }
}

const regexMatchers = new Set(['matches', 'matches_url', 'not_matches'])

/** Why a regex of the draft would be refused by the runtime, checked now to name the stub. */
function regexProblem(dsl: DslInput): string | undefined {
  const r = dsl.requestDsl
  const all: Array<[string, MatcherInput]> = []
  if (r.url !== undefined) all.push(['url', r.url])
  for (const part of ['headers', 'queryParams', 'cookies', 'body'] as const) {
    for (const m of r[part] ?? []) all.push([part, m])
  }
  for (const [part, m] of all) {
    if (!regexMatchers.has(m.matcherName) || m.matchingValue === undefined) continue
    const compiled = compileUserRegex(m.matchingValue, true)
    if (compiled instanceof RegexRejection) {
      const where =
        m.key === undefined || m.key === '' || part === 'url' ? part : `${part} ${m.key}`
      return `the regular expression ${JSON.stringify(m.matchingValue)} (${where}) is ${compiled.kind === 'invalid' ? 'invalid' : 'unsafe'}: ${compiled.reason}`
    }
  }
  return undefined
}

/**
 * The importer result around a list of transactions.
 *
 * @example
 * resultOf('rr', 'RR_PAIR', txns, warnings).document.transactions.length
 */
export function resultOf(
  format: ImportFormat,
  dslType: DslTypeKey,
  transactions: Transaction[],
  warnings: ImportWarning[],
): ImportResult {
  return { format, dslType, document: documentOf(transactions), warnings }
}
