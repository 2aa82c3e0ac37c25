/*
 * The API monitoring runner: runs a test's steps against real HTTP services, evaluates
 * assertions, extracts variables, runs user scripts in a sandbox, and sends notifications. A pure
 * library: the platform (src/api) stores tests and results and calls it.
 */
export type * from './types.js'
export { runTest } from './run.js'
export { mergeEnvironments, resolveEnvironment } from './environment.js'
export { createScheduler, intervalMs, tickMs } from './scheduler.js'
export { createRunLock } from './run-lock.js'
export { notify, shouldNotify } from './notify.js'
export { authorizationUrl } from './auth.js'
export { canonicalComparison, type Comparison } from './comparisons.js'
export { BUILT_INS, substitute, formatTimestamp } from './template.js'
