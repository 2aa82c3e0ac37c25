import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * Documents from this many transactions leave enough garbage at start-up for a collection to pay
 * for itself; below, it would only cost time.
 */
export const LARGE_DOCUMENT = 5_000

/** V8's `gc` function (`gc()` a full collection, `gc({ type: 'minor' })` a young-generation one). */
type GcFunction = (options?: { type: 'major' | 'minor' }) => void

let gcFunction: GcFunction | null | undefined

/**
 * V8's `gc` function. Node offers no call for a collection, so it is taken from a fresh context
 * with the flag that exposes it, the flag turned off again for any later context. Taken once.
 */
export function exposedGc(): GcFunction | null {
  if (gcFunction === undefined) {
    setFlagsFromString('--expose-gc')
    gcFunction = (runInNewContext('gc') as GcFunction | undefined) ?? null
    setFlagsFromString('--no-expose-gc')
  }
  return gcFunction
}

/**
 * One full garbage collection, for a document of `transactions` transactions that is large. Start-up
 * leaves garbage in the old generation twice: what reading left (the parsed JSON and the file's text,
 * 100 MiB and more at 100,000 transactions) once the document is read, and the normalized document
 * once it is compiled. The collector would take both only at its next major collection, after the
 * runtime listens, when the first requests pay for it; `serve` and `run` collect at those two points
 * instead (bench/README.md, "Start-up and memory at listening").
 */
export function collectStartupGarbage(transactions: number): void {
  if (transactions < LARGE_DOCUMENT) return
  exposedGc()?.()
}
