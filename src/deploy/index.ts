export type { Deployer } from './types.js'
export { LocalDeployer, type LocalDeployerOptions, type DeployerStore } from './local-deployer.js'
export { defaultRuntimeCommand, type RuntimeCommand } from './runtime-command.js'
export { adminHeaders, adminRequest, fetchHealth, type RuntimeAdmin } from './admin-client.js'
export {
  ShipDeployer,
  localView,
  type ShipDeployerOptions,
  type ShipReport,
  type ShipStore,
} from './ship-deployer.js'
export { documentHash } from './kubernetes/document-hash.js'
export {
  KubernetesDriver,
  connectCluster,
  type KubernetesDriverOptions,
  type KubernetesPlacement,
  type RuntimeDriver,
} from './kubernetes/index.js'
