export type { Deployer, EnvironmentFigures } from './types.js'
export { LocalDeployer, type LocalDeployerOptions, type DeployerStore, type RestartPolicy } from './local-deployer.js'
export { defaultRuntimeCommand, type RuntimeCommand } from './runtime-command.js'
