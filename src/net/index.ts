/**
 * A leaf shared by the runtime (`serve`), the control plane (`api`, `cli`), the deployer and the
 * monitoring runner: the HTTP plumbing (and the time slicing of long loops on the event loop) they
 * need and may not import from each other (docs/architecture.md#layout-and-boundaries), the egress
 * policy of everything sent on a tenant's behalf among it (docs/security.md). It imports only
 * src/errors.
 */
export { readBodyWithin } from './body.js'
export { listenOn } from './listen.js'
export { classifyAddress } from './address.js'
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
export { timeSlicer } from './time-slice.js'
