export type { Deployer } from './types.js'
export { LocalDeployer, type LocalDeployerOptions, type DeployerStore } from './local-deployer.js'
export { type RuntimeCommand } from './runtime-command.js'
export {
  adminHeaders,
  adminRequest,
  fetchHealth,
  httpExchange,
  type AdminAnswer,
  type RuntimeAdmin,
} from './admin-client.js'
export { AdminRelay, RELAY_ANSWER_LIMIT, relayable, type RelayedCall } from './admin-relay.js'
export { RuntimeLeases, DEFAULT_RUNTIME_LEASE_MS } from './runtime-leases.js'
export { copyHistoriesToStore } from './history-storage.js'
export { ShipDeployer, localView, type ShipReport } from './ship-deployer.js'
export {
  KubernetesDriver,
  connectCluster,
  kubernetesRuntimeAdmin,
  type FannedInAnswer,
  type KubernetesPlacement,
  type MockServiceAdmin,
  type RuntimeDriver,
} from './kubernetes/index.js'
