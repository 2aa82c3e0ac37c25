export { loadRuntimeOptions, type RuntimeOptionsInput } from './load.js'
export { type RuntimeOptions } from './options.js'
export { lowerThreadPriority } from './thread-priority.js'
export { spawnWorker } from './worker.js'
