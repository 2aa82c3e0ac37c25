export { loadRuntimeOptions, loadPlatformOptions, type RuntimeOptionsInput } from './load.js'
export {
  runtimeOptionsSchema,
  platformOptionsSchema,
  type PlatformFlagOptions,
  type RuntimeOptions,
  type InspectionOptions,
  type OptionsLogLevel,
  type EgressOptions,
} from './options.js'
export { lowerThreadPriority, BACKGROUND_NICE } from './thread-priority.js'
export { spawnWorker } from './worker.js'
export { RestartSupervisor, type RestartPolicy, type ScheduledRestart } from './supervisor.js'
