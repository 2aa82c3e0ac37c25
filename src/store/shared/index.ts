import type { Repositories } from '../repositories.js'
import { adminCallRepository } from './admin-call-repository.js'
import { agentLogRepository } from './agent-log-repository.js'
import { assetChunkRepository } from './asset-chunk-repository.js'
import { authFailureRepository } from './auth-failure-repository.js'
import { keptInspectionRepository } from './kept-inspection-repository.js'
import { localRunRepository } from './local-run-repository.js'
import type { SqlRunner } from './runner.js'
import { uiSessionRepository } from './ui-session-repository.js'

export type { SqlRunner } from './runner.js'
export { transactionServices } from './transaction-services.js'

/**
 * The repositories of what several platform instances on one store share (sessions, throttle
 * counters, agents' logs, abandoned local runs, asset bytes, kept inspection records), written once for both dialects.
 *
 * @example
 * const shared = sharedRepositories(run, Date.now)
 */
export function sharedRepositories(
  run: SqlRunner,
  now: () => number,
): Pick<
  Repositories,
  | 'uiSessions'
  | 'authFailures'
  | 'agentLogs'
  | 'localRuns'
  | 'adminCalls'
  | 'assetChunks'
  | 'keptInspections'
> {
  return {
    uiSessions: uiSessionRepository(run),
    authFailures: authFailureRepository(run),
    agentLogs: agentLogRepository(run, now),
    localRuns: localRunRepository(run),
    adminCalls: adminCallRepository(run),
    assetChunks: assetChunkRepository(run),
    keptInspections: keptInspectionRepository(run),
  }
}
