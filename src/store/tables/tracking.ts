import type { LogSnapshotRepository, TrackingRepository } from '../repositories.js'
import type { CloneTracking, LogSnapshot, Tracking } from '../types.js'
import type { ColumnKinds, TableSpec } from './columns.js'

/** Every CloneTracking field with how its column in clone_trackings keeps it. */
export const cloneTrackingColumns = {
  trackingId: 'value',
  workspaceId: 'value',
  serviceId: 'value',
  created: 'value',
  createdBy: 'value',
} as const satisfies ColumnKinds<CloneTracking>

/** Every LogSnapshot field with how its column in log_snapshots keeps it. */
export const logSnapshotColumns = {
  logId: 'value',
  mockServiceId: 'value',
  trackingId: 'value',
  log: 'value',
  created: 'value',
} as const satisfies ColumnKinds<LogSnapshot>

/** Every Tracking field with how its column in trackings keeps it. */
export const trackingColumns = {
  trackingId: 'value',
  workspaceId: 'value',
  mockServiceId: 'value',
  action: 'value',
  status: 'value',
  errors: 'json',
  warnings: 'json',
  created: 'value',
  updated: 'value',
  ended: 'value',
  createdBy: 'value',
} as const satisfies ColumnKinds<Tracking>

/** What `update` may change of a tracking. */
export const trackingUpdatable = [
  'status',
  'errors',
  'warnings',
  'ended',
] as const satisfies ReadonlyArray<keyof Tracking>

/** The trackings table: its name, key and columns. */
export const trackingTable: TableSpec<Tracking> = {
  table: 'trackings',
  key: 'trackingId',
  kinds: trackingColumns,
  generatedKey: false,
}

/** The clone_trackings table: its name, key and columns. */
export const cloneTrackingTable: TableSpec<CloneTracking> = {
  table: 'clone_trackings',
  key: 'trackingId',
  kinds: cloneTrackingColumns,
  generatedKey: false,
}

/** The log_snapshots table: its name, key and columns. */
export const logSnapshotTable: TableSpec<LogSnapshot> = {
  table: 'log_snapshots',
  key: 'logId',
  kinds: logSnapshotColumns,
  generatedKey: true,
}

/** The row of a new tracking: not ended. */
export function newTracking(
  input: Parameters<TrackingRepository['create']>[0],
  now: number,
): Tracking {
  return {
    trackingId: input.trackingId,
    workspaceId: input.workspaceId,
    mockServiceId: input.mockServiceId,
    action: input.action,
    status: input.status,
    errors: input.errors,
    warnings: input.warnings,
    created: now,
    updated: now,
    ended: null,
    createdBy: input.createdBy,
  }
}

/** The row of a new log snapshot (its id is the database's). */
export function newLogSnapshot(
  input: Parameters<LogSnapshotRepository['create']>[0],
  now: number,
): Omit<LogSnapshot, 'logId'> {
  return {
    mockServiceId: input.mockServiceId,
    trackingId: input.trackingId,
    log: input.log,
    created: now,
  }
}
