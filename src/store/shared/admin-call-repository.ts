import type { AdminCallRepository, StoredAdminAnswer, StoredAdminCall } from '../repositories.js'
import { num, type SqlRow, type SqlRunner } from './runner.js'

const CALL_COLUMNS = 'call_id, harbor_id, ship_id, mock_service_id, method, path, json, timeout_ms'

function callOf(row: SqlRow): StoredAdminCall & { created: number } {
  return {
    callId: String(row['call_id']),
    harborId: String(row['harbor_id']),
    shipId: String(row['ship_id']),
    mockServiceId: num(row['mock_service_id']),
    method: String(row['method']),
    path: String(row['path']),
    json: row['json'] === null ? null : String(row['json']),
    timeoutMs: num(row['timeout_ms']),
    created: num(row['created']),
  }
}

function answerOf(row: SqlRow | undefined): StoredAdminAnswer | undefined {
  if (row === undefined || row['answer_status'] === null) return undefined
  return { status: num(row['answer_status']), body: String(row['answer_body']) }
}

/**
 * The admin-call mailbox (both dialects). A take is one UPDATE whose WHERE says `taken_at IS
 * NULL` again: on PostgreSQL a second taker that picked the same rows waits for the first one's
 * row locks, re-reads the rows and skips them, and SQLite runs one write at a time, so a call is
 * handed out once. The caller's side deletes the row when it collects the answer or gives up.
 *
 * @example
 * const [call] = await adminCallRepository(run).take('ship-1', 4, Date.now())
 */
export function adminCallRepository(run: SqlRunner): AdminCallRepository {
  return {
    async queue(call) {
      await run(
        `INSERT INTO admin_calls (${CALL_COLUMNS}, answer_within_ms, created, take_by, expires) ` +
          'VALUES (@callId, @harborId, @shipId, @mockServiceId, @method, @path, @json, @timeoutMs, ' +
          '@answerWithinMs, @created, @takeBy, @expires)',
        { ...call, expires: call.takeBy + call.answerWithinMs },
      )
    },
    async take(shipId, max, now) {
      const rows = await run(
        'UPDATE admin_calls SET taken_at = CAST(@now AS BIGINT), answer_by = CAST(@now AS BIGINT) + answer_within_ms ' +
          'WHERE call_id IN (SELECT call_id FROM admin_calls WHERE ship_id = @shipId AND taken_at IS NULL ' +
          'AND take_by > @now ORDER BY created, call_id LIMIT @max) ' +
          'AND taken_at IS NULL AND take_by > @now ' +
          `RETURNING ${CALL_COLUMNS}, created`,
        { shipId, max, now },
      )
      // RETURNING promises no order.
      return rows
        .map(callOf)
        .sort((a, b) => a.created - b.created || (a.callId < b.callId ? -1 : 1))
        .map(({ created: _created, ...call }) => call)
    },
    async answer(shipId, callId, answer, now) {
      const rows = await run(
        'UPDATE admin_calls SET answer_status = @status, answer_body = @body ' +
          'WHERE call_id = @callId AND ship_id = @shipId AND taken_at IS NOT NULL ' +
          'AND answer_status IS NULL AND answer_by >= @now RETURNING call_id',
        { shipId, callId, status: answer.status, body: answer.body, now },
      )
      return rows.length > 0
    },
    async collect(callId) {
      const [row] = await run(
        'DELETE FROM admin_calls WHERE call_id = @callId AND answer_status IS NOT NULL ' +
          'RETURNING answer_status, answer_body',
        { callId },
      )
      return answerOf(row)
    },
    async withdrawQueued(callId) {
      const rows = await run(
        'DELETE FROM admin_calls WHERE call_id = @callId AND taken_at IS NULL RETURNING call_id',
        { callId },
      )
      return rows.length > 0
    },
    async answerBy(callId) {
      const [row] = await run('SELECT answer_by FROM admin_calls WHERE call_id = @callId', {
        callId,
      })
      return row === undefined || row['answer_by'] === null ? undefined : num(row['answer_by'])
    },
    async withdraw(callId) {
      const [row] = await run(
        'DELETE FROM admin_calls WHERE call_id = @callId RETURNING answer_status, answer_body',
        { callId },
      )
      return answerOf(row)
    },
    async sweep(before) {
      const rows = await run('DELETE FROM admin_calls WHERE expires < @before RETURNING call_id', {
        before,
      })
      return rows.length
    },
  }
}
