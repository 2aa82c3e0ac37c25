export type { Deployer } from './types.js'
export { LocalDeployer, type LocalDeployerOptions, type DeployerStore } from './local-deployer.js'
export { type RuntimeCommand } from './runtime-command.js'
export { adminHeaders, adminRequest, fetchHealth, type RuntimeAdmin } from './admin-client.js'
export { RuntimeLeases, DEFAULT_RUNTIME_LEASE_MS } from './runtime-leases.js'
export { ShipDeployer, localView, type ShipReport } from './ship-deployer.js'
export {
  KubernetesDriver,
  connectCluster,
  type KubernetesPlacement,
  type RuntimeDriver,
} from './kubernetes/index.js'
