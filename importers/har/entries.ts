import type { TransactionInput } from '../../src/dsl/index.js'
import type { ErrorDetail } from '../../src/errors/index.js'
import { SpecificityOrder, UniqueNamer, type FinishInput } from '../shared/index.js'
import type { ImportWarning } from '../types.js'
import type { HarEntry } from './har-types.js'
import { readRequest } from './request.js'
import { readResponse } from './response.js'

/*
 * Entry by entry: what each HAR entry gives (an EntryOutcome), and the import assembled from the
 * outcomes in entry order. A large capture is parsed an entry at a time, so the
 * outcomes are all that is kept of an entry; they are plain data, and the outcomes of ranges of
 * entries assembled in order give exactly what one pass over all entries gives.
 */

/** What one entry gives: a warning (it is skipped), a transaction, or a repeat of a kept request. */
type EntryOutcome =
  | { index: number; skipped: string }
  | {
      index: number
      key: string
      status: number
      host: string
      kept: { method: string; path: string; txn: TransactionInput; notes: string[] }
    }
  | { index: number; key: string; status: number; host: string; kept?: undefined }

const at = (index: number): string => `/log/entries/${index}`

/**
 * Converts one entry. `known(key)` says whether a request with that key was kept already: then
 * the outcome is a repeat, without a transaction (its own notes would only be noise; the
 * duplicate warning names it).
 *
 * @example
 * convertEntry(entry, 4, false, (key) => kept.has(key)) // { index: 4, key: '["GET","/a","",""]', status: 200, host: 'x', kept: { ... } }
 */
export function convertEntry(
  entry: HarEntry,
  index: number,
  withoutResponse: boolean,
  known: (key: string) => boolean,
): EntryOutcome {
  const label = `entries[${index}] (${String(entry.request.method)} ${String(entry.request.url)})`
  const request = readRequest(entry)
  if (request.kind === 'skip') return { index, skipped: `${label}: skipped: ${request.reason}` }
  if (withoutResponse || entry.response === undefined || entry.response === null) {
    return { index, skipped: `${label}: skipped: it has no response` }
  }
  const host = request.requestDsl.host ?? ''
  const status = entry.response.status
  const response = readResponse(entry.response)
  if (response.kind === 'skip') return { index, skipped: `${label}: skipped: ${response.reason}` }
  if (known(request.key)) return { index, key: request.key, status, host }
  const txn: TransactionInput = {
    name: `${request.method} ${request.path}`,
    description: `Recorded ${request.method} ${entry.request.url} (log.entries[${index}])`,
    dsl: { requestDsl: request.requestDsl, responseDsl: response.responseDsl },
  }
  const notes = [...request.notes, ...response.notes].map((note) => `${label}: ${note}`)
  return {
    index,
    key: request.key,
    status,
    host,
    kept: { method: request.method, path: request.path, txn, notes },
  }
}

/** A transaction kept from one entry, with what is needed to report repeats of it. */
interface Kept {
  index: number
  method: string
  path: string
  host: string
  status: number
  /** Null once handed to the assembly's sink. */
  txn: TransactionInput | null
  duplicates: Array<{ index: number; status: number; host: string }>
}

/**
 * What a HAR import handed on transaction by transaction (HarAssembly with a sink) gives at its
 * end: how many were handed on, every warning, and their order (SpecificityOrder `order`: null
 * when it is the order they were handed on in).
 */
export interface StreamedImport {
  format: 'har'
  dslType: 'HAR_DSL'
  fileName: string
  count: number
  warnings: ImportWarning[]
  order: number[] | null
}

/**
 * The import of a HAR file assembled from its entries' outcomes in entry order (`add`): each
 * transaction kept is named as it comes (numbered in recording order) and its place by
 * specificity worked out (`orderBySpecificity`, one at a time); then finished (`finish`): repeats
 * reported, the list ordered. `finish` gives what finishImport validates.
 *
 * With a `sink`, each transaction kept is handed to it at once, in recording order, and not held
 * (a large upload stores them while the rest is read); `finishStreamed` then gives the
 * warnings and the order the transactions take.
 *
 * @example
 * const assembly = new HarAssembly('a.har')
 * entries.forEach((entry, i) => assembly.add(convertEntry(entry, i, false, (key) => assembly.knows(key))))
 * finishImport(assembly.finish(deviations))
 */
export class HarAssembly {
  readonly #fileName: string
  readonly #kept = new Map<string, Kept>()
  readonly #warnings: ImportWarning[] = []
  readonly #sink: ((txn: TransactionInput) => void) | undefined
  readonly #namer = new UniqueNamer()
  readonly #order = new SpecificityOrder()
  #count = 0

  constructor(fileName: string, sink?: (txn: TransactionInput) => void) {
    this.#fileName = fileName
    this.#sink = sink
  }

  knows(key: string): boolean {
    return this.#kept.has(key)
  }

  add(outcome: EntryOutcome): void {
    if ('skipped' in outcome) return this.#warn(outcome.skipped, at(outcome.index))
    const { index, key, status, host, kept } = outcome
    const previous = this.#kept.get(key)
    if (previous !== undefined) {
      previous.duplicates.push({ index, status, host })
      return
    }
    // a repeat always follows the outcome that kept its request, in whichever part that was
    if (kept === undefined) {
      throw new Error(`entries[${index}] repeats a request that no earlier entry kept`)
    }
    for (const note of kept.notes) this.#warn(note, at(index))
    this.#count++
    // named in recording order, and placed by specificity, as it comes: a sink gets it at once
    const txn = kept.txn
    txn.name = this.#namer.name(txn.name ?? '')
    this.#order.add(txn)
    this.#sink?.(txn)
    this.#kept.set(key, {
      index,
      method: kept.method,
      path: kept.path,
      host,
      status,
      txn: this.#sink === undefined ? txn : null,
      duplicates: [],
    })
  }

  /**
   * The transactions, named and ordered, and every warning. `deviations` are the schema
   * violations in fields the importer ignores or reads leniently, in document order: reported
   * first, as one warning.
   */
  finish(deviations: readonly ErrorDetail[]): FinishInput {
    if (this.#sink !== undefined) {
      throw new Error('an assembly with a sink finishes with finishStreamed')
    }
    const warnings = this.#closeWarnings(deviations)
    const recorded = [...this.#kept.values()].map((k) => k.txn as TransactionInput)
    this.#kept.clear()
    const order = this.#order.order()
    const ordered =
      order === null ? recorded : order.map((from) => recorded[from] as TransactionInput)
    if (ordered.length === 0) this.#warn('no entry could be turned into a transaction')
    return {
      format: 'har',
      dslType: 'HAR_DSL',
      fileName: this.#fileName,
      transactions: ordered,
      warnings,
    }
  }

  /** `finish` for an assembly with a sink: what it handed on is not repeated. */
  finishStreamed(deviations: readonly ErrorDetail[]): StreamedImport {
    if (this.#sink === undefined) throw new Error('an assembly without a sink finishes with finish')
    const warnings = this.#closeWarnings(deviations)
    this.#kept.clear()
    if (this.#count === 0) this.#warn('no entry could be turned into a transaction')
    return {
      format: 'har',
      dslType: 'HAR_DSL',
      fileName: this.#fileName,
      count: this.#count,
      warnings,
      order: this.#order.order(),
    }
  }

  /** The warnings, with the schema deviations first and the repeats of each kept request. */
  #closeWarnings(deviations: readonly ErrorDetail[]): ImportWarning[] {
    const warnings = this.#warnings
    const deviation = deviations[0]
    if (deviation !== undefined) {
      warnings.unshift({
        message: `${deviations.length} value(s) do not follow the HAR 1.2 schema in fields the importer ignores or reads leniently; first: ${deviation.path} ${deviation.message}`,
        file: this.#fileName,
        at: deviation.path,
      })
    }
    for (const k of this.#kept.values()) {
      if (k.duplicates.length === 0) continue
      const repeats = k.duplicates.map(
        (d) =>
          `entries[${d.index}] (status ${d.status}${d.host === k.host ? '' : `, host ${d.host}`})`,
      )
      this.#warn(
        `${k.method} ${k.path} was recorded ${k.duplicates.length + 1} times with the same query and body; ` +
          `the first response (entries[${k.index}], status ${k.status}) is kept and the later ones are dropped: ${repeats.join(', ')}`,
        at(k.duplicates[0]?.index ?? k.index),
      )
    }
    return warnings
  }

  #warn(message: string, where?: string): void {
    this.#warnings.push(
      where === undefined
        ? { message, file: this.#fileName }
        : { message, file: this.#fileName, at: where },
    )
  }
}
