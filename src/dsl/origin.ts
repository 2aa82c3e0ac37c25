import type { ErrorDetail } from '../errors/index.js'
import type { SourcePosition } from './parse.js'

/** Where a normalized transaction or document was written: for error messages with file:line. */
export interface Origin {
  file?: string
  /** JSON pointer of the object inside its file. */
  pointer: string
  /** Where its `dsl` is: `<pointer>/dsl`, or the pointer itself for a bare dsl. */
  dslPointer?: string
  locate?: (pointer: string) => SourcePosition | undefined
}

/** What the transactions of one document read from a text share: its file, its locator, its list. */
export interface ItemsOrigin {
  file?: string
  locate?: (pointer: string) => SourcePosition | undefined
  /** JSON pointer of the list the transactions are in (`/transactions`, `` for a bare array). */
  list: string
}

/**
 * A transaction's place in its document, kept instead of its Origin: a document's transactions
 * share one ItemsOrigin, and the pointers are written only when an error asks for them (100,000
 * Origins with their two pointer strings each were about 10 MiB held through start-up).
 */
class ItemPlace {
  constructor(
    readonly items: ItemsOrigin,
    /** Its index in the list; -1 for the one transaction of a document that is one. */
    readonly index: number,
    /** A bare dsl (its `dsl` is itself). */
    readonly bare: boolean,
  ) {}

  origin(): Origin {
    const pointer = this.index < 0 ? '' : `${this.items.list}/${this.index}`
    const origin: Origin = { pointer, dslPointer: this.bare ? pointer : `${pointer}/dsl` }
    if (this.items.file !== undefined) origin.file = this.items.file
    if (this.items.locate !== undefined) origin.locate = this.items.locate
    return origin
  }
}

// A WeakMap keeps origins off the DSL objects themselves, so that they never leak into output.
const origins = new WeakMap<object, Origin | ItemPlace>()

/** Remembers where `target` came from. */
export function recordOrigin(target: object, origin: Origin): void {
  origins.set(target, origin)
}

/**
 * Remembers that `target` is the transaction at `index` of `items` (-1: the document's only one),
 * a bare dsl when `bare`.
 */
export function recordItemOrigin(
  target: object,
  items: ItemsOrigin,
  index: number,
  bare: boolean,
): void {
  origins.set(target, new ItemPlace(items, index, bare))
}

/** Where `target` came from, if recorded. */
export function originOf(target: object): Origin | undefined {
  const recorded = origins.get(target)
  return recorded instanceof ItemPlace ? recorded.origin() : recorded
}

/**
 * An error detail about `path`, with the file and, when `locate` finds it, the line and column.
 * The one place that turns a JSON pointer into a positioned detail: the DSL's own errors
 * (`detailAt`) and every importer's use it, so positions read the same everywhere.
 *
 * @example
 * locatedDetail('/paths', 'must be an object', 'api.yaml', locate) // { path: '/paths', message: 'must be an object', file: 'api.yaml', line: 12, column: 1 }
 */
export function locatedDetail(
  path: string,
  message: string,
  file?: string,
  locate?: (pointer: string) => SourcePosition | undefined,
): ErrorDetail {
  const detail: ErrorDetail = { path, message }
  if (file !== undefined) detail.file = file
  const pos = locate?.(path)
  if (pos !== undefined) {
    detail.line = pos.line
    detail.column = pos.column
  }
  return detail
}

/**
 * An error detail about `subPointer` inside `target`, located in its file when known, else at
 * `fallbackPointer` (its place in the document being compiled).
 *
 * @example
 * detailAt(txn, '/dsl/requestDsl/url/matchingValue', '/transactions/3', 'invalid regex')
 */
export function detailAt(
  target: object,
  subPointer: string,
  fallbackPointer: string,
  message: string,
): ErrorDetail {
  const origin = originOf(target)
  if (origin === undefined) return { path: fallbackPointer + subPointer, message }
  const path =
    origin.dslPointer !== undefined && (subPointer === '/dsl' || subPointer.startsWith('/dsl/'))
      ? origin.dslPointer + subPointer.slice(4)
      : origin.pointer + subPointer
  return locatedDetail(path, message, origin.file, origin.locate)
}
