export { loadRuntimeOptions, deepFreeze } from './load.js'
export { runtimeOptionsSchema, type RuntimeOptions, type InspectionOptions, type OptionsLogLevel } from './options.js'
