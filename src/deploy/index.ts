export type { Deployer } from './types.js'
export {
  LocalDeployer,
  PROTECTED_PORTS_ENV,
  type LocalDeployerOptions,
  type DeployerStore,
} from './local-deployer.js'
export { adminHeaders, adminRequest, type RuntimeAdmin } from './admin-client.js'
