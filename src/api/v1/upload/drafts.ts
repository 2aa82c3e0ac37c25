import type { DslTypeKey, ImportResult } from '../../../../importers/index.js'
import type { ErrorDetail } from '../../../errors/index.js'
import { collectCompileErrors, throwCompileErrors } from '../../../match/index.js'
import { PackedReader, PackedWriter } from './packed-strings.js'
import { inFile, tagNamesOf } from '../transaction-input.js'

/*
 * What an upload of transaction files needs from an import, made where the import ran (in the
 * import worker thread for large files, off-thread.ts): the transactions compiled (one
 * that could never be served is refused) and encoded as the text the store keeps and the answer
 * shows, or the JSON of a convert answer. The event loop then only copies text.
 */

/** A transaction of an upload, ready to store: its tags and DSL as JSON text (UTF-8 bytes). */
export interface EncodedDraft {
  name: string
  description: string | null
  tags: string[]
  /** `tags` as JSON text. */
  tagsJson: Buffer
  dslType: string
  /** The DSL to keep, as JSON text: a view into the packed bytes, valid while they are. */
  dslJson: Buffer
}

/**
 * The dsl type of each transaction of a result, in order: a zip merges parts of several formats
 * (`parts` says how many transactions each gave), any other file has one.
 */
function dslTypesOf(result: ImportResult): DslTypeKey[] {
  const count = result.document.transactions.length
  if ('parts' in result && Array.isArray(result.parts)) {
    const types = (result.parts as Array<{ dslType: DslTypeKey; transactions: number }>).flatMap(
      (p) => new Array<DslTypeKey>(p.transactions).fill(p.dslType),
    )
    if (types.length === count) return types
  }
  return new Array<DslTypeKey>(count).fill(result.dslType)
}

/** A run of an imported file's transactions, compiled and packed (see `readDrafts`), with every tag they carry. */
export interface PackedDrafts {
  count: number
  packed: Buffer[]
  tags: string[]
}

/**
 * The transactions of one imported file, compiled and packed (see `readDrafts`), and every tag
 * they carry (to create before them). Each transaction is checked (its matchers compiled, as a
 * mock service would), encoded and then dropped from the result, so that the objects and their
 * text are never all held at once: the result is emptied. Throws ERR_DSL_INVALID naming
 * the file, with every problem, when a transaction could never be served.
 *
 * @example
 * const { packed, tags } = packDrafts('a.har', importFile(input)); readDrafts(packed, count)
 */
export function packDrafts(file: string, result: ImportResult): PackedDrafts {
  let whole: PackedDrafts = { count: 0, packed: [], tags: [] }
  packDraftsInRuns(file, result, Infinity, (run) => {
    whole = run
  })
  return whole
}

/**
 * `packDrafts` a run of `runLength` transactions at a time, each run handed to `emit` as soon as
 * it is packed (so that another thread can store it while the next is packed). Once a transaction
 * is found that could never be served, no run is emitted any more, the rest are still checked,
 * and ERR_DSL_INVALID is thrown at the end with every problem: what was emitted must then be
 * discarded.
 *
 * @example
 * packDraftsInRuns('a.har', importFile(input), 2000, (run) => port.postMessage(run))
 */
export function packDraftsInRuns(
  file: string,
  result: ImportResult,
  runLength: number,
  emit: (run: PackedDrafts) => void,
): void {
  const types = dslTypesOf(result)
  const transactions = result.document.transactions
  const errors: ErrorDetail[] = []
  let writer = new PackedWriter()
  let tags = new Set<string>()
  let count = 0
  const flush = (): void => {
    if (errors.length === 0 && count > 0) emit({ count, packed: writer.done(), tags: [...tags] })
    writer = new PackedWriter()
    tags = new Set()
    count = 0
  }
  for (let i = 0; i < transactions.length; i++) {
    const txn = transactions[i]
    if (txn === undefined) continue
    collectCompileErrors(txn, i, errors)
    if (errors.length === 0) {
      // importer tags are never blank in practice; trimmed and de-duplicated like a request's
      const names = tagNamesOf(txn.tags, '/tags', () => {})
      for (const tag of names) tags.add(tag)
      writer.add(txn.name)
      writer.add(txn.description ?? null)
      writer.add(JSON.stringify(names))
      writer.add(types[i] ?? result.dslType)
      writer.add(JSON.stringify(txn.dsl))
      if (++count === runLength) flush()
    }
    // checked and encoded: the transaction object is no longer needed (the array is ours)
    ;(transactions as Array<unknown>)[i] = undefined
  }
  try {
    throwCompileErrors(errors)
  } catch (err) {
    throw inFile(err, file)
  }
  flush()
}

/**
 * Reads `count` drafts packed by `packDrafts`, one at a time (the caller yields between them).
 *
 * @example
 * for (const draft of readDrafts(packed, count)) store(draft)
 */
export function* readDrafts(packed: readonly Uint8Array[], count: number): Generator<EncodedDraft> {
  const reader = new PackedReader(packed)
  for (let i = 0; i < count; i++) {
    const name = reader.text()
    const description = reader.next()
    const tagsJson = reader.bytes() ?? Buffer.from('[]')
    // most imports carry no tags: '[]' is not parsed
    const tags = tagsJson.length === 2 ? [] : (JSON.parse(tagsJson.toString('utf8')) as string[])
    const dslType = reader.text()
    yield {
      name,
      description,
      tags,
      tagsJson,
      dslType,
      dslJson: reader.bytes() ?? Buffer.from('{}'),
    }
  }
}

/**
 * The convert answer's items of one imported file (the product's "Imported transaction", docs/api.md: `nativeId`,
 * `priority`, `requestDsl`, `responseDsl`), as JSON text without the enclosing brackets ('' for
 * none), encoded as UTF-8.
 *
 * @example
 * convertItemsJson(result).toString() // '{"nativeId":"GET /pets","priority":10,...},{...}'
 */
export function convertItemsJson(result: ImportResult): Buffer {
  const items = result.document.transactions.map((txn) => JSON.stringify(convertView(txn)))
  const text = items.join(',')
  const out = Buffer.allocUnsafeSlow(Buffer.byteLength(text))
  out.write(text)
  return out
}

/**
 * A convert result (the product's "Imported transaction", docs/api.md): `nativeId` is the name the importer
 * gave (`GET /pets/{id}`, an operationId, a mapping name), which is also what importing the
 * result back names the transaction.
 *
 * @example
 * convertView(txn) // { nativeId: 'GET /pets', priority: 10, requestDsl: {...}, responseDsl: {...} }
 */
function convertView(txn: ImportResult['document']['transactions'][number]) {
  return {
    nativeId: txn.name,
    priority: txn.dsl.priority,
    requestDsl: txn.dsl.requestDsl,
    responseDsl: txn.dsl.responseDsl,
  }
}
