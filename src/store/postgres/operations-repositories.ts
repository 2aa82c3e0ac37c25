import type { Repositories } from '../repositories.js'
import type { PgRepoContext } from './context.js'
import { pgAssetRepository } from './asset-repository.js'
import { pgLocationRepository } from './location-repository.js'
import { pgMockServiceRepository } from './mock-service-repository.js'
import { pgMockSettingRepository } from './mock-setting-repository.js'
import { pgMonitoringRepository, pgOAuthRepository } from './monitoring-repository.js'
import { pgPlacementRepository } from './placement-repository.js'
import { pgRuntimeLeaseRepository } from './runtime-lease-repository.js'
import { pgSandboxRepository } from './sandbox-repository.js'
import {
  pgCloneTrackingRepository,
  pgLogSnapshotRepository,
  pgTrackingRepository,
} from './tracking-repositories.js'

/** The repositories of mock services, assets, trackings, settings, sandboxes, locations, placements, runtime leases, monitoring and OAuth. */
export type OperationsRepositories = Pick<
  Repositories,
  | 'mockServices'
  | 'assets'
  | 'trackings'
  | 'cloneTrackings'
  | 'logs'
  | 'sandboxes'
  | 'locations'
  | 'placements'
  | 'runtimeLeases'
  | 'mockSettings'
  | 'monitoring'
  | 'oauth'
>

/**
 * Every operations repository over one context, for the PostgreSQL store to spread beside the
 * catalog's.
 *
 * @example
 * const tx = { ...catalogRepositories(ctx), ...pgOperationsRepositories(ctx) }
 */
export function pgOperationsRepositories(ctx: PgRepoContext): OperationsRepositories {
  return {
    mockServices: pgMockServiceRepository(ctx),
    assets: pgAssetRepository(ctx),
    trackings: pgTrackingRepository(ctx),
    cloneTrackings: pgCloneTrackingRepository(ctx),
    logs: pgLogSnapshotRepository(ctx),
    sandboxes: pgSandboxRepository(ctx),
    locations: pgLocationRepository(ctx),
    placements: pgPlacementRepository(ctx),
    runtimeLeases: pgRuntimeLeaseRepository(ctx),
    mockSettings: pgMockSettingRepository(ctx),
    monitoring: pgMonitoringRepository(ctx),
    oauth: pgOAuthRepository(ctx),
  }
}
