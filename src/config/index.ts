export { loadRuntimeOptions, deepFreeze, type RuntimeOptionsInput } from './load.js'
export { runtimeOptionsSchema, type RuntimeOptions, type InspectionOptions, type OptionsLogLevel, type EgressOptions, type OptionsEgressLevel } from './options.js'
export { lowerThreadPriority, BACKGROUND_NICE } from './thread-priority.js'
export { spawnWorker } from './worker.js'
