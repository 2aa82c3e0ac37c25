import { sandboxTable } from '../tables/sandboxes.js'
import type { SandboxRepository } from '../repositories.js'
import type { Sandbox } from '../types.js'
import type { PgRepoContext } from './context.js'
import { definePgTable } from './codec.js'
import { one, returned } from './sql.js'

const sandboxes = definePgTable(sandboxTable)

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
      const sql =
        'INSERT INTO sandboxes (workspace_id, user_id, transaction_id, opened) VALUES (@workspace_id, @user_id, @transaction_id, @opened) ' +
        `ON CONFLICT (workspace_id, user_id) DO UPDATE SET transaction_id = excluded.transaction_id, opened = excluded.opened RETURNING ${sandboxes.columns}`
      return sandboxes.decode(returned(await one(ctx.db, sql, sandboxes.encode(record))))
    },
    async get(workspaceId, userId) {
      ctx.check()
      const row = await one(
        ctx.db,
        `SELECT ${sandboxes.columns} FROM sandboxes WHERE workspace_id = @workspaceId AND user_id = @userId`,
        { workspaceId, userId },
      )
      return row === undefined ? undefined : sandboxes.decode(row)
    },
  }
}
