import { createError, formatCount, type UnderstudyError } from '../errors/index.js'

/**
 * The most transactions one mock service may have: 250,000, two and a half times what a 64 MiB
 * upload holds (about 100,000). A runtime holds each compiled transaction in about 4 KiB, so the
 * bound keeps one mock service near 1 GiB; past it a document is refused before anything is
 * compiled, instead of growing the process until it dies. See docs/limits.md.
 */
export const MAX_TRANSACTIONS = 250_000

/** `250,000`: numbers in limit messages, as docs/limits.md writes them. */

/** Why `count` transactions are too many, or null when they fit. */
export function transactionCountProblem(count: number): string | null {
  return count > MAX_TRANSACTIONS
    ? `has ${formatCount(count)} transactions: a mock service may have at most ${formatCount(MAX_TRANSACTIONS)}`
    : null
}

/**
 * ERR_DSL_INVALID for a document with more than MAX_TRANSACTIONS transactions (the detail at
 * `pointer`, `/transactions` by default), or null when they fit.
 *
 * @example
 * const tooMany = transactionCountError(doc.transactions.length); if (tooMany !== null) throw tooMany
 */
export function transactionCountError(
  count: number,
  pointer = '/transactions',
  file?: string,
): UnderstudyError | null {
  const problem = transactionCountProblem(count)
  if (problem === null) return null
  const detail =
    file === undefined
      ? { path: pointer, message: problem }
      : { path: pointer, message: problem, file }
  return createError('ERR_DSL_INVALID', [problem], { details: [detail] })
}
