import type { RuntimeAdmin } from '../deploy/index.js'
import type { MockServiceStatus } from '../store/index.js'

/*
 * What the platform and its agents say to each other (docs/deploy.md#agents-and-locations): the
 * ship's desired state, and what the agent reports of each mock service it runs.
 */

/** One mock service of a ship's desired state (`GET .../servers/{shipId}/work`). */
export interface WorkItem {
  mockServiceId: number
  name: string
  harborId: string
  shipId: string
  /** Whether it should run here now. */
  desired: 'RUNNING' | 'STOPPED'
  /** sha256 of `document`: a change of hash is a configuration change, pushed without restart. */
  documentHash: string
  /** The mock-service document, as the platform's deployer built it. */
  document: Record<string, unknown>
  replicas: number
  endpointPreference: 'HTTP' | 'HTTPS'
  /** The platform's tracking of the last action asked; the agent's report finishes it. */
  trackingId: string | null
}

/** The ship's desired state at a version. */
export interface WorkState {
  version: number
  mockServices: WorkItem[]
}

/** Where and how a mock service runs here, as a driver reports it. */
export interface RunView {
  status: MockServiceStatus
  endpoints: { http: string | null; https: string | null }
  /** The runtime's process id, when it is a local process. */
  pid: number | null
  port: number | null
}

/** What an action on a mock service ended with. */
export interface Outcome {
  ok: boolean
  errors: Array<{ code: string; message: string }>
  warnings: Array<{ code: string; message: string }>
}

/** The figures of a heartbeat, from the driver. */
export interface RunnerFigures {
  memoryUsage: number
  transactionsCount: number
}

/**
 * What runs the mock services of a ship: local `understudy run` processes (process-runner.ts,
 * the platform's own local deployer) or Kubernetes objects (kubernetes-runner.ts).
 */
export interface MockRunner {
  /** Starts it (restarting it if it runs), on the port given when there is one. */
  deploy: (item: WorkItem, ports: { port: number; tlsPort: number | null }) => Promise<Outcome>
  /** Gives it the new document (and replicas) without a restart where the runtime allows. */
  configure: (item: WorkItem, ports: { port: number; tlsPort: number | null }) => Promise<Outcome>
  stop: (item: WorkItem) => Promise<Outcome>
  /** Stops it if it runs and forgets it. */
  remove: (mockServiceId: number) => Promise<void>
  /** Its state now, or undefined when this runner has never run it. */
  view: (mockServiceId: number) => RunView | undefined
  /** Whether it runs (or is restarting) here now. */
  isRunning: (mockServiceId: number) => boolean
  /** The newest lines of its log. */
  logs: (mockServiceId: number, limit: number) => string[]
  /**
   * The admin API of its runtime (one of its pods, on Kubernetes), with its token, while it runs
   * here; null otherwise. The admin calls the platform relays to the agent go there.
   */
  admin: (mockServiceId: number) => Promise<RuntimeAdmin | null>
  figures: () => Promise<RunnerFigures>
  /** Called when a mock service's state changes by itself (a crash and its restart). */
  onChange: (listener: (mockServiceId: number) => void) => void
  shutdown: () => Promise<void>
}
