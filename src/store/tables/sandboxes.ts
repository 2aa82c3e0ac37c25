import type { Sandbox } from '../types.js'
import type { ColumnKinds } from './columns.js'

/** Every Sandbox field with how its column in sandboxes keeps it. */
export const sandboxColumns = {
  workspaceId: 'value',
  userId: 'value',
  transactionId: 'value',
  opened: 'value',
} as const satisfies ColumnKinds<Sandbox>
