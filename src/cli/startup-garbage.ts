import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * Documents from this many transactions on leave enough garbage after reading (the parsed JSON,
 * the text as a string) for a collection to pay for itself; below, it would only cost time.
 */
const LARGE_DOCUMENT = 5_000

/**
 * One full garbage collection when a large document has been read and is about to be compiled.
 * What reading left behind (the parsed JSON and the file's text, 100 MiB and more at 100,000
 * transactions) would otherwise stay in the old generation until its next collection, which comes
 * after the runtime starts listening; collected now, compiling reuses the room and the process
 * listens about 30 MiB smaller at 100,000 transactions (bench/README.md, "Start-up and memory at
 * listening"). Node offers no call for it, so the `gc` function is taken once from a fresh context
 * with the flag that exposes it, and the flag is turned off again for any later context.
 */
export function collectReadingGarbage(transactions: number): void {
  if (transactions < LARGE_DOCUMENT) return
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as (() => void) | undefined
  setFlagsFromString('--no-expose-gc')
  gc?.()
}
