export { startRuntime, type Runtime } from './runtime.js'
export type { LiveExchange } from './runtime-state.js'
export { startAdmin, type AdminServer } from './admin.js'
export { compileMock } from './compile-mock.js'
export { ReplicaSet } from './cluster-primary.js'
export { clusterAdminTarget } from './cluster-admin.js'
export { runClusterReplica } from './cluster-worker.js'
export { type RequestCheck } from './request-check.js'
export { withHostMatching } from './host-matching.js'
export type { ScenarioView } from './scenario/store.js'
export {
  Recording,
  type RecordedRequest,
  type HarImporter,
  type MergeResult,
} from './record/recording.js'
export {
  createWireMockAdmin,
  runtimeHost,
  type WireMockAdmin,
  type WireMockConverter,
  type WireMockHost,
} from './wiremock/index.js'
export { clusterWireMockHost } from './cluster-wiremock.js'
