import type { LocationRepository } from '../repositories.js'
import type { Harbor, Ship } from '../types.js'
import type { ColumnKinds, TableSpec } from './columns.js'

/**
 * Every harbor field but workspaceIds (kept in harbor_workspaces) with how its column in harbors
 * keeps it.
 */
export const harborRowColumns = {
  id: 'value',
  accountId: 'value',
  name: 'value',
  userId: 'value',
  created: 'value',
  updated: 'value',
} as const satisfies ColumnKinds<Omit<Harbor, 'workspaceIds'>>

/** Every Ship field with how its column in ships keeps it. */
export const shipColumns = {
  id: 'value',
  harborId: 'value',
  name: 'value',
  address: 'value',
  tokenHash: 'value',
  state: 'value',
  lastHeartbeat: 'value',
  created: 'value',
  updated: 'value',
  memoryUsage: 'value',
  msRunningCount: 'value',
  transactionsCount: 'value',
  agentVersion: 'value',
  advertiseHost: 'value',
  regions: 'json',
  workVersion: 'value',
  environmentId: 'value',
} as const satisfies ColumnKinds<Ship>

/** The harbors table: its name, key and columns. */
export const harborTable: TableSpec<Omit<Harbor, 'workspaceIds'>> = {
  table: 'harbors',
  key: 'id',
  kinds: harborRowColumns,
  generatedKey: false,
}

/** The ships table: its name, key and columns. */
export const shipTable: TableSpec<Ship> = {
  table: 'ships',
  key: 'id',
  kinds: shipColumns,
  generatedKey: false,
}

/** The row of a new ship: empty, never heard from, shown as environment `environmentId`. */
export function newShip(
  input: Parameters<LocationRepository['createShip']>[0],
  now: number,
  environmentId: number,
): Ship {
  return {
    ...input,
    state: 'empty',
    lastHeartbeat: null,
    created: now,
    updated: now,
    memoryUsage: null,
    msRunningCount: null,
    transactionsCount: null,
    agentVersion: null,
    advertiseHost: null,
    regions: null,
    workVersion: 0,
    environmentId,
  }
}
