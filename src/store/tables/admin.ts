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
