import type { TransactionInput } from '../../src/dsl/index.js'
import {
  checkSize,
  decodeText,
  finishImport,
  forgetStructured,
  guardImport,
  importInvalid,
  orderBySpecificity,
  parseStructured,
  uniqueNames,
} from '../shared/index.js'
import type { ImportContext, ImportInput, ImportResult, ImportWarning } from '../types.js'
import type { HarEntry } from './har-types.js'
import { readRequest } from './request.js'
import { readResponse } from './response.js'
import { checkHar, type HarCheck } from './validate-har.js'

/** A transaction kept from one entry, with what is needed to report duplicates of it. */
interface Kept {
  index: number
  method: string
  path: string
  host: string
  status: number
  txn: TransactionInput
  duplicates: Array<{ index: number; status: number; host: string }>
}

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
    const { entries, check } = readEntries(input)
    const warnings: ImportWarning[] = []
    const warn = (message: string, at?: string): void => {
      warnings.push(at === undefined ? { message, file: fileName } : { message, file: fileName, at })
    }
    const deviation = check.deviations[0]
    if (deviation !== undefined) {
      const count = check.deviations.length
      warn(`${count} value(s) do not follow the HAR 1.2 schema in fields the importer ignores or reads leniently; first: ${deviation.path} ${deviation.message}`, deviation.path)
    }

    const kept = new Map<string, Kept>()
    const convert = (entry: HarEntry, index: number): void => {
      const at = `/log/entries/${index}`
      const label = `entries[${index}] (${String(entry.request.method)} ${String(entry.request.url)})`
      const request = readRequest(entry)
      if (request.kind === 'skip') return warn(`${label}: skipped: ${request.reason}`, at)
      if (check.withoutResponse.has(index) || entry.response === undefined || entry.response === null) {
        return warn(`${label}: skipped: it has no response`, at)
      }
      const response = readResponse(entry.response)
      if (response.kind === 'skip') return warn(`${label}: skipped: ${response.reason}`, at)

      const host = request.requestDsl.host ?? ''
      const previous = kept.get(request.key)
      if (previous !== undefined) {
        // Dropped: its own notes would only be noise; the duplicate warning names it.
        previous.duplicates.push({ index, status: entry.response.status, host })
        return
      }
      for (const note of [...request.notes, ...response.notes]) warn(`${label}: ${note}`, at)
      const txn: TransactionInput = {
        name: `${request.method} ${request.path}`,
        description: `Recorded ${request.method} ${entry.request.url} (log.entries[${index}])`,
        dsl: { requestDsl: request.requestDsl, responseDsl: response.responseDsl },
      }
      kept.set(request.key, { index, method: request.method, path: request.path, host, status: entry.response.status, txn, duplicates: [] })
    }
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index] as HarEntry
      // each entry is read once: dropped from the parsed document before it is converted, so
      // that a large capture is freed as it goes rather than held whole until the end (issue 8)
      ;(entries as Array<HarEntry | undefined>)[index] = undefined
      convert(entry, index)
    }

    for (const k of kept.values()) {
      if (k.duplicates.length === 0) continue
      const repeats = k.duplicates.map((d) => `entries[${d.index}] (status ${d.status}${d.host === k.host ? '' : `, host ${d.host}`})`)
      warn(
        `${k.method} ${k.path} was recorded ${k.duplicates.length + 1} times with the same query and body; ` +
          `the first response (entries[${k.index}], status ${k.status}) is kept and the later ones are dropped: ${repeats.join(', ')}`,
        `/log/entries/${k.duplicates[0]?.index ?? k.index}`,
      )
    }

    // Names are numbered in recording order; the order of the list is then by specificity.
    const recorded = [...kept.values()].map((k) => k.txn)
    const names = uniqueNames(recorded.map((t) => t.name ?? ''))
    recorded.forEach((t, i) => {
      t.name = names[i] ?? t.name ?? null
    })
    const ordered = orderBySpecificity(recorded)
    if (ordered.length === 0) warn('no entry could be turned into a transaction')
    return finishImport({ format: 'har', dslType: 'HAR_DSL', fileName, transactions: ordered, warnings })
  })
}
