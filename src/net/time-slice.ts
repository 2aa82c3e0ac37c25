import { setImmediate as nextTurn } from 'node:timers/promises'

/**
 * A checkpoint for long loops on the event loop: `await slice()` returns at once until `budgetMs`
 * have passed since the last turn given up, then lets the event loop answer what waits (timers,
 * other requests) before going on. Storing and answering thousands of imported transactions,
 * and compiling a large configuration swap, run this way, so that no other request waits more
 * than a slice for them.
 *
 * @example
 * const slice = timeSlicer()
 * for (const draft of drafts) { insert(draft); await slice() }
 */
export function timeSlicer(budgetMs = 10): () => Promise<void> {
  let since = performance.now()
  return async () => {
    if (performance.now() - since < budgetMs) return
    await nextTurn()
    since = performance.now()
  }
}
