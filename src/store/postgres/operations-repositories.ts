import { createError } from '../../errors/index.js'
import type { Repositories } from '../repositories.js'
import type { PgRepoContext } from './context.js'

/** The repositories of the platform's operations: mock services and what hangs off them, monitoring. */
export type OperationsRepositories = Pick<
  Repositories,
  | 'mockServices'
  | 'assets'
  | 'trackings'
  | 'cloneTrackings'
  | 'logs'
  | 'sandboxes'
  | 'locations'
  | 'mockSettings'
  | 'monitoring'
  | 'oauth'
>

/**
 * What the platform calls while it starts, answered as a database without those tables holds
 * them: nothing to restore, no schedule to arm, no asset file in use.
 */
const startupReads: Readonly<Record<string, Readonly<Record<string, () => unknown>>>> = {
  mockServices: { listByStatus: () => [] },
  assets: { fileIds: () => new Set<string>() },
  monitoring: { failUnfinishedRuns: () => 0, listAllSchedules: () => [] },
}

/**
 * A repository of the operations not yet ported to PostgreSQL: every method refuses with a
 * store error naming it, except the start-up reads above, so that the platform starts and serves
 * the catalog and tenancy on PostgreSQL meanwhile.
 */
function notPorted<T extends object>(name: string): T {
  return new Proxy({} as T, {
    get(_, method) {
      if (typeof method !== 'string') return undefined
      const answer = startupReads[name]?.[method]
      if (answer !== undefined) return async () => answer()
      return async () => {
        throw createError('ERR_STORE_FAILED', [
          `${name}.${method} is not available on the PostgreSQL store yet`,
        ])
      }
    },
  })
}

/**
 * The operations repositories over one context. Their PostgreSQL versions are not in this build
 * yet: see notPorted.
 *
 * @example
 * const ops = pgOperationsRepositories(ctx)
 */
export function pgOperationsRepositories(_ctx: PgRepoContext): OperationsRepositories {
  return {
    mockServices: notPorted('mockServices'),
    assets: notPorted('assets'),
    trackings: notPorted('trackings'),
    cloneTrackings: notPorted('cloneTrackings'),
    logs: notPorted('logs'),
    sandboxes: notPorted('sandboxes'),
    locations: notPorted('locations'),
    mockSettings: notPorted('mockSettings'),
    monitoring: notPorted('monitoring'),
    oauth: notPorted('oauth'),
  }
}

/** True while the operations repositories are the not-ported placeholders (their writes are not routed). */
export const operationsPorted: boolean = false
