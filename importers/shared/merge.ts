import { documentOf, type MockServiceDocument } from '../../src/dsl/index.js'
import type { DslTypeKey, ImportFormat, ImportResult, ImportWarning } from '../types.js'

/** One file's contribution to a merged import. */
export interface ImportPart {
  /** Entry or file path (for RR pairs, the first file of the group). */
  file: string
  format: ImportFormat
  dslType: DslTypeKey
  transactions: number
}

/** The result of importing several files (an archive, a directory) as one document. */
export interface MergedImportResult extends ImportResult {
  /** What each file contributed, in merge order. */
  parts: ImportPart[]
}

type Settings = Omit<MockServiceDocument, 'transactions' | 'mockServiceTransactions'>
const settingKeys = Object.keys(documentOf([])).filter(
  (k) => k !== 'transactions' && k !== 'mockServiceTransactions',
) as Array<keyof Settings>
const optionalKeys: Array<keyof Settings> = [
  'id',
  'name',
  'description',
  'serviceId',
  'serviceName',
]

/**
 * Merges import results in the given order: transactions are concatenated (so among equal
 * priorities a later file wins, as in one file), warnings kept, and mock-service settings (think
 * time, capacity, ...) taken from the first file that sets each; a later file that sets one
 * differently gets a warning. `format` and `dslType` are those of the part contributing the most
 * transactions (the first on a tie); `parts` lists every contribution.
 *
 * @example
 * mergeResults([{ file: 'a.json', result: a }, { file: 'b.json', result: b }]).document.transactions.length
 */
export function mergeResults(
  parts: ReadonlyArray<{ file: string; result: ImportResult }>,
  extraWarnings: ImportWarning[] = [],
): MergedImportResult {
  const defaults = documentOf([]) as unknown as Record<string, unknown>
  const merged = documentOf([])
  const target = merged as unknown as Record<string, unknown>
  const setBy = new Map<string, string>()
  const warnings: ImportWarning[] = [...extraWarnings]
  const ids = new Map<number, string>()
  for (const { file, result } of parts) {
    const doc = result.document
    const source = doc as unknown as Record<string, unknown>
    for (const key of [...settingKeys, ...optionalKeys]) {
      const value = source[key]
      if (value === undefined || JSON.stringify(value) === JSON.stringify(defaults[key])) continue
      const earlier = setBy.get(key)
      if (earlier === undefined) {
        target[key] = value
        setBy.set(key, file)
      } else if (JSON.stringify(target[key]) !== JSON.stringify(value)) {
        warnings.push({
          message: `sets ${key} differently from ${earlier}; the value of ${earlier} is kept`,
          file,
        })
      }
    }
    for (const entry of doc.mockServiceTransactions) {
      if (!merged.mockServiceTransactions.some((e) => e.txnId === entry.txnId)) {
        merged.mockServiceTransactions.push(entry)
      }
    }
    for (const txn of doc.transactions) {
      if (txn.id !== undefined) {
        const first = ids.get(txn.id)
        if (first !== undefined) {
          warnings.push({
            message: `transaction "${txn.name}" has id ${txn.id}, already used in ${first}`,
            file,
          })
        } else ids.set(txn.id, file)
      }
      merged.transactions.push(txn)
    }
    // One by one: spreading 100,000s of warnings as arguments overflows the stack.
    for (const w of result.warnings) warnings.push(w.file === undefined ? { ...w, file } : w)
  }
  const summary = parts.map(({ file, result }) => ({
    file,
    format: result.format,
    dslType: result.dslType,
    transactions: result.document.transactions.length,
  }))
  const main = summary.reduce<ImportPart | undefined>(
    (best, p) => (best === undefined || p.transactions > best.transactions ? p : best),
    undefined,
  )
  return {
    format: main?.format ?? 'dsl',
    dslType: main?.dslType ?? 'GENERIC_DSL',
    document: merged,
    warnings,
    parts: summary,
  }
}
