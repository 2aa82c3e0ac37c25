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
import type { CloneTracking } from '../types.js'
import { mergePatch } from '../tables/columns.js'
import type { PgRepoContext } from './context.js'
import { definePgTable } from './codec.js'
import { one, returned } from './sql.js'

const trackings = definePgTable(trackingTable)

const clones = definePgTable(cloneTrackingTable)

const logs = definePgTable(logSnapshotTable)

/**
 * Trackings of deploy, configure and stop, keyed by their string id. They belong to their mock
 * service and go with it.
 *
 * @example
 * await pgTrackingRepository(ctx).update(id, { status: 'FINISHED', ended: Date.now() })
 */
export function pgTrackingRepository(ctx: PgRepoContext): TrackingRepository {
  const byId = `SELECT ${trackings.columns} FROM trackings WHERE tracking_id = @trackingId`
  return {
    async create(input) {
      ctx.check()
      const now = ctx.now()
      const record = newTracking(input, now)
      return trackings.decode(
        returned(await one(ctx.db, trackings.insertSql, trackings.encode(record))),
      )
    },
    async get(trackingId) {
      ctx.check()
      const row = await one(ctx.db, byId, { trackingId })
      return row === undefined ? undefined : trackings.decode(row)
    },
    async update(trackingId, patch) {
      ctx.check()
      // FOR UPDATE: another instance moving the same tracking waits instead of being overwritten.
      const row = await one(ctx.db, `${byId} FOR UPDATE`, { trackingId })
      if (row === undefined) return undefined
      const next = mergePatch(trackings.decode(row), patch, trackingUpdatable)
      next.updated = ctx.now()
      return trackings.decode(
        returned(await one(ctx.db, trackings.updateSql, trackings.encode(next))),
      )
    },
    async latestOf(mockServiceId, action) {
      ctx.check()
      // seq breaks ties between trackings created in the same millisecond
      const row = await one(
        ctx.db,
        `SELECT ${trackings.columns} FROM trackings WHERE mock_service_id = @mockServiceId AND action = @action ORDER BY created DESC, seq DESC LIMIT 1`,
        { mockServiceId, action },
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
 * await pgCloneTrackingRepository(ctx).create({ trackingId, workspaceId: 1, serviceId: 9, createdBy: 'ada@example.com' })
 */
export function pgCloneTrackingRepository(ctx: PgRepoContext): CloneTrackingRepository {
  return {
    async create(input) {
      ctx.check()
      const record: CloneTracking = { ...input, created: ctx.now() }
      return clones.decode(returned(await one(ctx.db, clones.insertSql, clones.encode(record))))
    },
    async get(trackingId) {
      ctx.check()
      const row = await one(
        ctx.db,
        `SELECT ${clones.columns} FROM clone_trackings WHERE tracking_id = @trackingId`,
        { trackingId },
      )
      return row === undefined ? undefined : clones.decode(row)
    },
  }
}

/**
 * Log snapshots of mock services. `logId` comes from an identity: increasing, never reused.
 *
 * @example
 * const { logId } = await pgLogSnapshotRepository(ctx).create({ mockServiceId: 7, trackingId: null, log: text })
 */
export function pgLogSnapshotRepository(ctx: PgRepoContext): LogSnapshotRepository {
  return {
    async create(input) {
      ctx.check()
      const record = newLogSnapshot(input, ctx.now())
      return logs.decode(returned(await one(ctx.db, logs.insertSql, logs.encode(record))))
    },
    async get(mockServiceId, logId) {
      ctx.check()
      const row = await one(
        ctx.db,
        `SELECT ${logs.columns} FROM log_snapshots WHERE log_id = @logId AND mock_service_id = @mockServiceId`,
        { logId, mockServiceId },
      )
      return row === undefined ? undefined : logs.decode(row)
    },
  }
}
