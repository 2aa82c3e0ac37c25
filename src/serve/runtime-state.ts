import type { InspectionRing } from '../inspect/index.js'
import type { Logger } from '../log/index.js'
import type { CapacityGate } from './capacity.js'
import type { CompiledMock } from './compile-mock.js'
import type { RequestCheck } from './request-check.js'
import type { AnyRequest, AnyResponse } from './any-http.js'
import type { LiveListener, LiveRecorder } from './live-exchange.js'
import type { PendingBodies } from './pending-bodies.js'

/**
 * The state a runtime's request handler reads. `mock` is the only mutable member: a reload
 * replaces it with a new immutable snapshot, so requests in flight finish on the one they began
 * with (docs/architecture.md#hot-path, "swap, do not mutate").
 */
export interface RuntimeState {
  mock: CompiledMock
  readonly ring: InspectionRing | null
  readonly gate: CapacityGate
  readonly log: Logger
  readonly bodyLimit: number
  /** Milliseconds a request body may take to arrive in full (408 past it). */
  readonly bodyTimeout: number
  /** Requests whose body is still arriving: they hold no capacity place yet. */
  readonly pendingBodies: PendingBodies
  readonly logRequests: boolean
  /** Set when draining: answers ask clients to close their connections. */
  draining: boolean
  /** Opt-in request validation before matching; null (the default) costs one test per request. */
  requestCheck: RequestCheck | null
  /** Told about every exchange forwarded to the live system (recording); null: none. */
  readonly onLive: LiveListener | null
  /**
   * Where `noMatchingRequestPreference: record` hands what it forwarded (kept across
   * swaps): this runtime's Recording, or a cluster replica's queue to the primary; null: none.
   */
  readonly recording: LiveRecorder | null
  /**
   * Answers the requests whose path starts with `/__admin` on the mock port (the WireMock admin
   * API, src/serve/wiremock); null: none, and such paths are ordinary traffic.
   */
  portAdmin: PortAdmin | null
}

/** A request listener for the admin paths of the mock port. */
export type PortAdmin = (req: AnyRequest, res: AnyResponse) => void

export type { LiveExchange, LiveListener } from './live-exchange.js'
export type { PendingBody } from './pending-bodies.js'
