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
} from '../shared/index.js'
import type { ImportContext, ImportInput, ImportResult } from '../types.js'
import type { TransactionInput } from '../../src/dsl/index.js'
import type { ErrorDetail } from '../../src/errors/index.js'
import { convertEntry, HarAssembly, type StreamedImport } from './entries.js'
import type { HarEntry } from './har-types.js'
import { checkHar, checkHarEntry, type HarCheck } from './validate-har.js'

/**
 * The entries of a HAR file and the verdict of the schema check; throws ERR_IMPORT_INVALID for a
 * file that is not JSON or breaks the schema where the importer reads. The parsed document is
 * forgotten by the parse cache: the caller holds its entries array alone and may empty it.
 */
function readEntries(input: ImportInput): { entries: HarEntry[]; check: HarCheck } {
  const fileName = input.fileName
  // the first non-blank character, without decoding the whole file for it (parsing decodes it)
  const head = decodeText(input.bytes.subarray(0, 4096)).trimStart()
  const opening =
    head === '' && input.bytes.byteLength > 4096 ? decodeText(input.bytes).trimStart() : head
  if (!opening.startsWith('{')) {
    throw importInvalid(fileName, 'not a HAR file: expected a JSON object with a "log" member', [
      { path: '', message: 'must be a JSON object', file: fileName },
    ])
  }
  const parsed = parseStructured(input, { what: 'JSON' })
  const check = checkHar(parsed.value, fileName, parsed.locate)
  const first = check.fatal[0]
  if (first !== undefined) {
    throw importInvalid(
      fileName,
      `not a valid HAR 1.2 file: ${first.path === '' ? '/' : first.path} ${first.message}`,
      check.fatal,
    )
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
export function importHar(input: ImportInput, ctx: ImportContext = {}): ImportResult {
  return guardImport(input.fileName, () => {
    checkSize(input, ctx)
    return finishImport(readHarPending(input) ?? readWhole(input))
  })
}

/**
 * A large HAR read an entry at a time (see har-layout.ts), up to the DSL's validation: what
 * finishImport validates. Each entry is parsed, checked against the schema and converted alone,
 * so its objects die with it. Null for a small file, one shaped otherwise, not JSON, or one that
 * breaks the schema where the importer reads: read it whole then (`importHar`), for the usual
 * message with its line.
 *
 * @example
 * const pending = readHarPending(input) // null, or { transactions, warnings, ... }
 */
export function readHarPending(input: ImportInput): FinishInput | null {
  const assembly = new HarAssembly(input.fileName)
  const deviations = readEntrywise(input, assembly)
  return deviations === null ? null : assembly.finish(deviations)
}

/**
 * `readHarPending` handing each transaction to `sink` as soon as it is made (named, in recording
 * order, not validated), for a caller that stores them while the rest is read (a large upload:
 * src/api/import-worker.ts). Gives the warnings and the order the transactions take
 * (StreamedImport). Null as readHarPending, possibly after some transactions were handed on:
 * the caller then drops them and imports the file whole (`importHar`).
 *
 * @example
 * const streamed = readHarStreamed(input, (txn) => run.push(txn)) // null, or { count, warnings, order }
 */
export function readHarStreamed(
  input: ImportInput,
  sink: (txn: TransactionInput) => void,
): StreamedImport | null {
  const assembly = new HarAssembly(input.fileName, sink)
  const deviations = readEntrywise(input, assembly)
  return deviations === null ? null : assembly.finishStreamed(deviations)
}

/**
 * Reads a large HAR an entry at a time into `assembly`; gives the schema deviations, or null
 * (see readHarPending) when the file must be read whole.
 */
function readEntrywise(input: ImportInput, assembly: HarAssembly): ErrorDetail[] | null {
  const { fileName, bytes } = input
  const layout = harLayoutOf(input)
  if (layout === null) return null
  const outside = checkHar(layout.skeleton, fileName)
  if (outside.fatal.length > 0) return null
  const deviations = [...outside.deviations]
  const known = (key: string): boolean => assembly.knows(key)
  for (let index = 0; index < layout.bounds.length / 2; index++) {
    let entry: unknown
    try {
      entry = JSON.parse(elementText(bytes, layout.bounds, index))
    } catch {
      return null
    }
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return null
    const check = checkHarEntry(entry as Record<string, unknown>, index, fileName)
    if (check.fatal.length > 0) return null
    for (const d of check.deviations) deviations.push(d)
    assembly.add(convertEntry(entry as HarEntry, index, check.withoutResponse.has(index), known))
  }
  return deviations
}

/** A HAR parsed whole, up to the DSL's validation: small files, and any file the entry-at-a-time reading declined. */
function readWhole(input: ImportInput): FinishInput {
  const { entries, check } = readEntries(input)
  const assembly = new HarAssembly(input.fileName)
  const known = (key: string): boolean => assembly.knows(key)
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index] as HarEntry
    // each entry is read once: dropped from the parsed document before it is converted, so that
    // a capture is freed as it goes rather than held whole until the end
    ;(entries as Array<HarEntry | undefined>)[index] = undefined
    assembly.add(convertEntry(entry, index, check.withoutResponse.has(index), known))
  }
  return assembly.finish(check.deviations)
}
