/**
 * A leaf shared by the runtime (`serve`) and the control plane (`api`, `cli`): the HTTP plumbing
 * both need and neither may import from the other (DESIGN.md section 2). It imports only
 * src/errors.
 */
export { readBodyWithin } from './body.js'
export { listenOn, describeListenError } from './listen.js'
export { classifyAddress, type AddressClass } from './address.js'
export {
  EgressPolicy,
  egressLevels,
  DEFAULT_EGRESS_LEVEL,
  defaultEgressPolicy,
  writeProtectedPorts,
  type EgressLevel,
  type EgressSettings,
} from './egress.js'
export { egressConnector, type ConnectorOptions } from './egress-connector.js'
