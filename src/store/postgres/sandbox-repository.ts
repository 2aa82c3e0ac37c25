import type { SandboxRepository } from '../repositories.js'
import type { Sandbox } from '../types.js'
import type { PgRepoContext } from './context.js'
import { definePgTable, firstRow, returnedRow } from './record-table.js'

const sandboxes = definePgTable<Sandbox>(
  'sandboxes',
  'workspaceId',
  { workspaceId: 'value', userId: 'value', transactionId: 'value', opened: 'value' },
  false,
)

/**
 * The sandbox each user has open in a workspace: opening another replaces it.
 *
 * @example
 * await pgSandboxRepository(ctx).open({ workspaceId: 1, userId: 2, transactionId: 7 })
 */
export function pgSandboxRepository(ctx: PgRepoContext): SandboxRepository {
  return {
    async open(input) {
      ctx.check()
      const record: Sandbox = { ...input, opened: ctx.now() }
      const row = await returnedRow(
        ctx.db,
        'INSERT INTO sandboxes (workspace_id, user_id, transaction_id, opened) VALUES ($1, $2, $3, $4) ' +
          `ON CONFLICT (workspace_id, user_id) DO UPDATE SET transaction_id = excluded.transaction_id, opened = excluded.opened RETURNING ${sandboxes.columns}`,
        sandboxes.insertValues(record),
      )
      return sandboxes.decode(row)
    },
    async get(workspaceId, userId) {
      ctx.check()
      const row = await firstRow(
        ctx.db,
        `SELECT ${sandboxes.columns} FROM sandboxes WHERE workspace_id = $1 AND user_id = $2`,
        [workspaceId, userId],
      )
      return row === undefined ? undefined : sandboxes.decode(row)
    },
  }
}
