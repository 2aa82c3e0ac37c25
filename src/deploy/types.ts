import type { MockServiceDocument } from '../dsl/index.js'
import type { MockService, Tracking } from '../store/index.js'
import type { RuntimeAdmin } from './admin-client.js'
import type { InspectionHistory } from './inspection-history.js'

/** Live figures of the local runtime host, shown as the platform's environment (`GET /api/v1/platformvses`, docs/api.md). */
export interface EnvironmentFigures {
  status: 'RUNNING'
  /** Epoch milliseconds of the last health check of the runtimes. */
  lastHeartBeat: number
  /** Bytes of memory used by the platform and its runtimes. */
  memoryUsage: number
  msRunningCount: number
  totalTxnCount: number
  runningMockServiceIds: number[]
  /** Transactions served per running mock service (by id), so that each account sees only its own. */
  txnCountByMockService?: Record<number, number>
}

/**
 * Runs mock services: one `understudy run` per mock service (`replicas` worker processes sharing
 * its port), driven through its admin listener (docs/deploy.md). Every action returns its
 * tracking at once; the tracking moves PENDING -> RUNNING -> FINISHED (or FAILED with `errors`)
 * as the work goes on, and the mock service record's `status`, `httpEndpoint`, `httpsEndpoint`
 * and `deployDate` follow.
 */
export interface Deployer {
  /** Starts the mock service's runtime with this document (restarts it if running). */
  deploy: (mock: MockService, document: MockServiceDocument, by: string) => Promise<Tracking>
  /** Swaps the running runtime's configuration without dropping a connection; deploys if it is not running. */
  configure: (mock: MockService, document: MockServiceDocument, by: string) => Promise<Tracking>
  /** Drains and ends the runtime. */
  stop: (mock: MockService, by: string) => Promise<Tracking>
  /** Stops (if running) and forgets a mock service; resolves once its processes are gone. */
  remove: (mockServiceId: number) => Promise<void>
  /**
   * The admin API of a running mock service (inspection, logs, scenarios) with the token every
   * call must carry (admin-client.ts `adminHeaders`), or null; whichever platform instance of the
   * database runs it. ERR_API_UNAVAILABLE (503) when the instance running it is gone and no other
   * has taken it over yet.
   */
  admin: (mockServiceId: number) => Promise<RuntimeAdmin | null>
  /**
   * The newest `limit` lines (default all kept, oldest first) of what the platform saw of a mock
   * service's runtime: its standard error (the runtime's JSON log lines, every replica's) and the
   * platform's own lines about it (`runtime exited with code 1; restarting in 500 ms`). Kept in
   * memory, a bounded number per mock service; empty for one never deployed since the platform started.
   * A mock service run by an agent answers the lines its agent last reported, kept in the store
   * (so asynchronously).
   */
  logsOf: (mockServiceId: number, limit?: number) => string[] | Promise<string[]>
  /**
   * Deploys again, from the documents last written, every mock service whose record says RUNNING
   * (or PENDING: a deploy the platform's stop interrupted): the platform calls it when it starts.
   */
  restore: (by: string) => Promise<Tracking[]>
  /** Resolves when the tracking has ended (FINISHED or FAILED); for tests and the platform's restore. */
  settled: (trackingId: string) => Promise<Tracking | undefined>
  environment: () => Promise<EnvironmentFigures>
  /**
   * The inspection records of mock services' earlier runs, when this deployer keeps them (the
   * local one does, at every stop and redeploy); the analytics API lists them after the running
   * process's own.
   */
  readonly history?: InspectionHistory | undefined
  /** Stops every runtime (the platform is stopping). */
  shutdown: () => Promise<void>
}
