/*
 * The API monitoring runner: runs a test's steps against real HTTP services, evaluates
 * assertions, extracts variables, runs user scripts in a sandbox, and sends notifications. A pure
 * library: the platform (src/api) stores tests and results and calls it.
 */
export type * from './types.js'
export { runTest } from './run.js'
export { mergeEnvironments, resolveEnvironment } from './environment.js'
export { createScheduler, intervalMs, type Scheduler, type ScheduleEntry, type SchedulerOptions } from './scheduler.js'
export { createRunLock, type RunLock } from './run-lock.js'
export { notify, shouldNotify, type NotifyOptions } from './notify.js'
export { authorizationUrl } from './auth.js'
export { canonicalComparison, COMPARISON_NAMES, type Comparison } from './comparisons.js'
export { knownSource } from './response.js'
export { BUILT_INS, substitute, formatTimestamp } from './template.js'
export { EXTERNAL_UI_NOT_CONFIGURED } from './runner.js'
export { closeSandbox } from './sandbox.js'
