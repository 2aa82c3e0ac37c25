import type { ErrorDetail } from '../../src/errors/index.js'
import {
  checkSize,
  decodeText,
  elementText,
  finishImport,
  forgetStructured,
  guardImport,
  harLayoutOf,
  importInvalid,
  parseStructured,
  type FinishInput,
  type HarLayout,
} from '../shared/index.js'
import type { ImportContext, ImportInput, ImportResult } from '../types.js'
import { convertEntry, HarAssembly, type EntryOutcome } from './entries.js'
import type { HarEntry } from './har-types.js'
import { checkHar, checkHarEntry, type HarCheck } from './validate-har.js'

/**
 * The entries of a HAR file and the verdict of the schema check; throws ERR_IMPORT_INVALID for a
 * file that is not JSON or breaks the schema where the importer reads. The parsed document is
 * forgotten by the parse cache: the caller holds its entries array alone and may empty it.
 */
function readEntries (input: ImportInput): { entries: HarEntry[]; check: HarCheck } {
  const fileName = input.fileName
  // the first non-blank character, without decoding the whole file for it (parsing decodes it)
  const head = decodeText(input.bytes.subarray(0, 4096)).trimStart()
  const opening = head === '' && input.bytes.byteLength > 4096 ? decodeText(input.bytes).trimStart() : head
  if (!opening.startsWith('{')) {
    throw importInvalid(fileName, 'not a HAR file: expected a JSON object with a "log" member', [{ path: '', message: 'must be a JSON object', file: fileName }])
  }
  const parsed = parseStructured(input, { what: 'JSON' })
  const check = checkHar(parsed.value, fileName, parsed.locate)
  const first = check.fatal[0]
  if (first !== undefined) {
    throw importInvalid(fileName, `not a valid HAR 1.2 file: ${first.path === '' ? '/' : first.path} ${first.message}`, check.fatal)
  }
  forgetStructured(input.bytes)
  return { entries: (parsed.value as { log: { entries: HarEntry[] } }).log.entries, check }
}

/**
 * Imports a HAR 1.2 capture (browser DevTools, Charles, Fiddler, mitmproxy, Polly.JS): one
 * transaction per distinct request, answering with the response recorded for it. See
 * docs/importers/har.md for what is matched and why.
 *
 * - Requests are matched on method, URL path, query parameters and body; never on headers,
 *   cookies or host.
 * - Entries that cannot be replayed (status 0, WebSocket upgrades, no response, non-HTTP URLs)
 *   are skipped with a warning naming the entry.
 * - Repeats of a request that the matchers cannot tell apart keep the first recorded response;
 *   a warning lists the dropped repeats.
 * - A file that is not JSON, or breaks the HAR 1.2 schema in a field the importer needs, is
 *   rejected with ERR_IMPORT_INVALID naming the file, the JSON pointer and the line.
 *
 * @example
 * const result = importHar({ bytes: readFileSync('capture.har'), fileName: 'capture.har' })
 * result.document.transactions[0].name // 'GET /api/pets'
 * result.warnings // [{ message: 'entries[4] (GET https://x/ws): skipped: it is a WebSocket connection, ...', at: '/log/entries/4' }]
 */
export function importHar (input: ImportInput, ctx: ImportContext = {}): ImportResult {
  const fileName = input.fileName
  return guardImport(fileName, () => {
    checkSize(input, ctx)
    const plan = harPlan(input)
    const part = plan === null ? null : convertHarEntries(input.bytes, plan.bounds, 0, fileName)
    if (plan !== null && part !== null) return assembleHar(plan, [part])
    return importWhole(input)
  })
}

/** A large HAR read an entry at a time: its entries' byte offsets, and the verdict on the rest. */
export interface HarPlan {
  fileName: string
  bounds: number[]
  /** Entries in the file. */
  count: number
  /** Schema deviations outside the entries (`checkHar` of the document with its entries emptied). */
  deviations: ErrorDetail[]
}

/**
 * What a range of entries gave (`convertHarEntries`): plain data, so that ranges converted apart
 * assemble in order (`assembleHar`) into what one pass gives. Converting the two halves of a
 * 100,000-entry capture in two threads was tried (issue 8, session 10): on the 2-core machine
 * each half took 1.6 times as long as alone and moving one half's transactions between threads
 * cost about a second, so uploads convert in one thread; see bench/README.md.
 */
export interface HarPart {
  outcomes: EntryOutcome[]
  deviations: ErrorDetail[]
}

/**
 * The plan of a large HAR (see har-layout.ts), or null when it is read whole: small, shaped
 * otherwise, not JSON around its entries, or with a fatal schema violation there.
 *
 * @example
 * const plan = harPlan(input) // null, or { count: 100000, bounds: [...], ... }
 */
export function harPlan (input: ImportInput): HarPlan | null {
  const layout: HarLayout | null = harLayoutOf(input)
  if (layout === null) return null
  const check = checkHar(layout.skeleton, input.fileName)
  if (check.fatal.length > 0) return null
  return { fileName: input.fileName, bounds: layout.bounds, count: layout.bounds.length / 2, deviations: check.deviations }
}

/**
 * Parses, checks and converts the entries whose byte offsets `bounds` gives in `bytes` (a range
 * of a plan's, relative to `bytes`), numbered from `firstIndex`. Each entry's objects die with
 * it. Null when an entry is not JSON, not an object, or breaks the schema where the importer reads:
 * the file is then read whole, for the usual message with its line.
 *
 * @example
 * const part = convertHarEntries(input.bytes, plan.bounds, 0, 'a.har')
 */
export function convertHarEntries (bytes: Uint8Array, bounds: readonly number[], firstIndex: number, fileName: string): HarPart | null {
  const outcomes: EntryOutcome[] = []
  const deviations: ErrorDetail[] = []
  const kept = new Set<string>()
  const known = (key: string): boolean => kept.has(key)
  for (let i = 0; i < bounds.length / 2; i++) {
    let entry: unknown
    try {
      entry = JSON.parse(elementText(bytes, bounds, i))
    } catch {
      return null
    }
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return null
    const index = firstIndex + i
    const check = checkHarEntry(entry as Record<string, unknown>, index, fileName)
    if (check.fatal.length > 0) return null
    for (const d of check.deviations) deviations.push(d)
    const outcome = convertEntry(entry as HarEntry, index, check.withoutResponse.has(index), known)
    if ('kept' in outcome && outcome.kept !== undefined) kept.add(outcome.key)
    outcomes.push(outcome)
  }
  return { outcomes, deviations }
}

/**
 * The import of a planned HAR from the parts of its entries, in entry order (together, every
 * entry once): the same result as `importHar` of the file.
 *
 * @example
 * assembleHar(plan, [convertHarEntries(...first half), convertHarEntries(...second half)])
 */
export function assembleHar (plan: HarPlan, parts: readonly HarPart[]): ImportResult {
  return guardImport(plan.fileName, () => finishImport(assembleHarParts(plan, parts)))
}

/**
 * `assembleHar` without the DSL's validation: what finishImport validates, for a caller that
 * validates the transactions a run at a time (a large upload, src/api/v1/import-drafts.ts).
 *
 * @example
 * const pending = assembleHarParts(plan, [part]); finishImport(pending)
 */
export function assembleHarParts (plan: HarPlan, parts: readonly HarPart[]): FinishInput {
  const assembly = new HarAssembly(plan.fileName)
  const deviations = [...plan.deviations]
  for (const part of parts) {
    for (const outcome of part.outcomes) assembly.add(outcome)
    for (const d of part.deviations) deviations.push(d)
  }
  return assembly.finish(deviations)
}

/** The import of a HAR parsed whole: small files, and any file the plan could not read. */
function importWhole (input: ImportInput): ImportResult {
  const { entries, check } = readEntries(input)
  const assembly = new HarAssembly(input.fileName)
  const known = (key: string): boolean => assembly.knows(key)
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index] as HarEntry
    // each entry is read once: dropped from the parsed document before it is converted, so that
    // a capture is freed as it goes rather than held whole until the end (issue 8)
    ;(entries as Array<HarEntry | undefined>)[index] = undefined
    assembly.add(convertEntry(entry, index, check.withoutResponse.has(index), known))
  }
  return finishImport(assembly.finish(check.deviations))
}
