import type { Sandbox } from '../types.js'
import type { ColumnKinds, TableSpec } from './columns.js'

/** Every Sandbox field with how its column in sandboxes keeps it. */
export const sandboxColumns = {
  workspaceId: 'value',
  userId: 'value',
  transactionId: 'value',
  opened: 'value',
} as const satisfies ColumnKinds<Sandbox>

/** The sandboxes table: its name, key and columns. */
export const sandboxTable: TableSpec<Sandbox> = {
  table: 'sandboxes',
  key: 'workspaceId',
  kinds: sandboxColumns,
  generatedKey: false,
}
