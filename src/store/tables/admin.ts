import type { WorkspaceRepository } from '../repositories.js'
import type { Workspace } from '../types.js'
import type { ColumnKinds, TableSpec } from './columns.js'

/** Every Workspace field with how its column in workspaces keeps it. */
export const workspaceColumns = {
  id: 'value',
  accountId: 'value',
  name: 'value',
  enabled: 'bool',
  dedicatedIpsEnabled: 'bool',
  privateLocationsEnabled: 'bool',
  userId: 'value',
  created: 'value',
  updated: 'value',
} as const satisfies ColumnKinds<Workspace>

/** What `update` may change of a workspace. */
export const workspaceUpdatable = [
  'name',
  'enabled',
  'dedicatedIpsEnabled',
  'privateLocationsEnabled',
] as const satisfies ReadonlyArray<keyof Workspace>

/** The workspaces table: its name, key and columns. */
export const workspaceTable: TableSpec<Workspace> = {
  table: 'workspaces',
  key: 'id',
  kinds: workspaceColumns,
  generatedKey: true,
}

/** The row of a new workspace. */
export function newWorkspace(
  input: Parameters<WorkspaceRepository['create']>[0],
  now: number,
): Omit<Workspace, 'id'> {
  return {
    accountId: input.accountId,
    name: input.name,
    enabled: input.enabled,
    dedicatedIpsEnabled: input.dedicatedIpsEnabled,
    privateLocationsEnabled: input.privateLocationsEnabled,
    userId: input.userId,
    created: now,
    updated: now,
  }
}
