import type { StoredUiSession, UiSessionRepository } from '../repositories.js'
import { num, type SqlRow, type SqlRunner } from './runner.js'

const COLUMNS = 'id_hash, api_key_id, user_id, monitor_token_id, sealed, created, last_seen'

function sessionOf(row: SqlRow): StoredUiSession {
  return {
    idHash: String(row['id_hash']),
    apiKeyId: String(row['api_key_id']),
    userId: row['user_id'] === null ? null : num(row['user_id']),
    monitorTokenId: row['monitor_token_id'] === null ? null : String(row['monitor_token_id']),
    sealed: String(row['sealed']),
    created: num(row['created']),
    lastSeen: num(row['last_seen']),
  }
}

/**
 * Dashboard sessions in the store (both dialects), so that a session signed in through one
 * platform instance works, and ends, on every other.
 *
 * @example
 * await uiSessionRepository(run).get(idHash)
 */
export function uiSessionRepository(run: SqlRunner): UiSessionRepository {
  return {
    async create(session, max) {
      await run(
        `INSERT INTO ui_sessions (${COLUMNS}) VALUES (@idHash, @apiKeyId, @userId, @monitorTokenId, @sealed, @created, @lastSeen)`,
        { ...session },
      )
      const [counted] = await run('SELECT COUNT(*) AS n FROM ui_sessions')
      const extra = num(counted?.['n'] ?? 0) - max
      if (extra <= 0) return []
      const evicted = await run(
        `DELETE FROM ui_sessions WHERE id_hash IN (SELECT id_hash FROM ui_sessions WHERE id_hash <> @idHash ORDER BY created, id_hash LIMIT @extra) RETURNING ${COLUMNS}`,
        { idHash: session.idHash, extra },
      )
      return evicted.map(sessionOf)
    },
    async get(idHash) {
      const [row] = await run(`SELECT ${COLUMNS} FROM ui_sessions WHERE id_hash = @idHash`, {
        idHash,
      })
      return row === undefined ? undefined : sessionOf(row)
    },
    async touch(idHash, lastSeen) {
      await run(
        'UPDATE ui_sessions SET last_seen = @lastSeen WHERE id_hash = @idHash AND last_seen < @lastSeen',
        { idHash, lastSeen },
      )
    },
    async delete(idHash) {
      const [row] = await run(
        `DELETE FROM ui_sessions WHERE id_hash = @idHash RETURNING ${COLUMNS}`,
        { idHash },
      )
      return row === undefined ? undefined : sessionOf(row)
    },
    async sweep(idleBefore, createdBefore) {
      const rows = await run(
        `DELETE FROM ui_sessions WHERE last_seen < @idleBefore OR created < @createdBefore RETURNING ${COLUMNS}`,
        { idleBefore, createdBefore },
      )
      return rows.map(sessionOf)
    },
  }
}
