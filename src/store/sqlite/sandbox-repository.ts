import { sandboxTable } from '../tables/sandboxes.js'
import type { SandboxRepository } from '../repositories.js'
import type { Sandbox } from '../types.js'
import { defineTable } from './codec.js'
import { returnedRow, rowOf, type RepoContext } from './context.js'

const sandboxes = defineTable(sandboxTable)

/**
 * The sandbox each user has open in a workspace: opening another replaces it.
 *
 * @example
 * await sandboxRepository(ctx).open({ workspaceId: 1, userId: 2, transactionId: 7 })
 */
export function sandboxRepository(ctx: RepoContext): SandboxRepository {
  const { conn } = ctx
  return {
    async open(input) {
      ctx.check()
      const record: Sandbox = { ...input, opened: ctx.now() }
      const sql =
        'INSERT INTO sandboxes (workspace_id, user_id, transaction_id, opened) VALUES (@workspace_id, @user_id, @transaction_id, @opened) ' +
        `ON CONFLICT (workspace_id, user_id) DO UPDATE SET transaction_id = excluded.transaction_id, opened = excluded.opened RETURNING ${sandboxes.columns}`
      return sandboxes.decode(returnedRow(conn.statement(sql).get(sandboxes.encode(record))))
    },
    async get(workspaceId, userId) {
      ctx.check()
      const row = rowOf(
        conn
          .statement(
            `SELECT ${sandboxes.columns} FROM sandboxes WHERE workspace_id = ? AND user_id = ?`,
          )
          .get(workspaceId, userId),
      )
      return row === undefined ? undefined : sandboxes.decode(row)
    },
  }
}
