import {
  trackingUpdatable,
  logSnapshotTable,
  cloneTrackingTable,
  trackingTable,
  newTracking,
  newLogSnapshot,
} from '../tables/tracking.js'
import type {
  CloneTrackingRepository,
  LogSnapshotRepository,
  TrackingRepository,
} from '../repositories.js'
import type { CloneTracking, Tracking } from '../types.js'
import { mergePatch } from '../tables/columns.js'
import { defineTable } from './codec.js'
import { returnedRow, rowOf, type RepoContext } from './context.js'

const trackings = defineTable(trackingTable)

const clones = defineTable(cloneTrackingTable)

const logs = defineTable(logSnapshotTable)

/**
 * Trackings of deploy, configure and stop (the mock services specification, docs/api.md#trackings),
 * keyed by their string id. They belong to their mock service and go with it.
 *
 * @example
 * await trackingRepository(ctx).update(id, { status: 'FINISHED', ended: Date.now() })
 */
export function trackingRepository(ctx: RepoContext): TrackingRepository {
  const { conn } = ctx
  const get = (trackingId: string): Tracking | undefined => {
    const row = rowOf(
      conn
        .statement(`SELECT ${trackings.columns} FROM trackings WHERE tracking_id = ?`)
        .get(trackingId),
    )
    return row === undefined ? undefined : trackings.decode(row)
  }
  return {
    async create(input) {
      ctx.check()
      const now = ctx.now()
      const record = newTracking(input, now)
      return trackings.decode(
        returnedRow(conn.statement(trackings.insertSql).get(trackings.encode(record))),
      )
    },
    async get(trackingId) {
      ctx.check()
      return get(trackingId)
    },
    async update(trackingId, patch) {
      ctx.check()
      const current = get(trackingId)
      if (current === undefined) return undefined
      const next = mergePatch(current, patch, trackingUpdatable)
      next.updated = ctx.now()
      return trackings.decode(
        returnedRow(conn.statement(trackings.updateSql).get(trackings.encode(next))),
      )
    },
    async latestOf(mockServiceId, action) {
      ctx.check()
      // rowid breaks ties between trackings created in the same millisecond
      const row = rowOf(
        conn
          .statement(
            `SELECT ${trackings.columns} FROM trackings WHERE mock_service_id = ? AND action = ? ORDER BY created DESC, rowid DESC LIMIT 1`,
          )
          .get(mockServiceId, action),
      )
      return row === undefined ? undefined : trackings.decode(row)
    },
  }
}

/**
 * Trackings of service clones. A clone is made in one write, so its tracking is created
 * finished, in that same write.
 *
 * @example
 * await cloneTrackingRepository(ctx).create({ trackingId, workspaceId: 1, serviceId: 9, createdBy: 'ada@example.com' })
 */
export function cloneTrackingRepository(ctx: RepoContext): CloneTrackingRepository {
  const { conn } = ctx
  return {
    async create(input) {
      ctx.check()
      const record: CloneTracking = { ...input, created: ctx.now() }
      return clones.decode(returnedRow(conn.statement(clones.insertSql).get(clones.encode(record))))
    },
    async get(trackingId) {
      ctx.check()
      const row = rowOf(
        conn
          .statement(`SELECT ${clones.columns} FROM clone_trackings WHERE tracking_id = ?`)
          .get(trackingId),
      )
      return row === undefined ? undefined : clones.decode(row)
    },
  }
}

/**
 * Log snapshots of mock services. `logId` comes from AUTOINCREMENT: increasing, never reused.
 *
 * @example
 * const { logId } = await logSnapshotRepository(ctx).create({ mockServiceId: 7, trackingId: null, log: text })
 */
export function logSnapshotRepository(ctx: RepoContext): LogSnapshotRepository {
  const { conn } = ctx
  return {
    async create(input) {
      ctx.check()
      const record = newLogSnapshot(input, ctx.now())
      return logs.decode(returnedRow(conn.statement(logs.insertSql).get(logs.encode(record))))
    },
    async get(mockServiceId, logId) {
      ctx.check()
      const row = rowOf(
        conn
          .statement(
            `SELECT ${logs.columns} FROM log_snapshots WHERE log_id = ? AND mock_service_id = ?`,
          )
          .get(logId, mockServiceId),
      )
      return row === undefined ? undefined : logs.decode(row)
    },
  }
}
