import type {
  JsonObject,
  MonitorRun,
  MonitoringRepository,
  NewMonitorRun,
  OAuthRepository,
} from '../monitoring.js'
import type { Repositories, Store } from '../repositories.js'
import { monitoringRows } from '../tables/monitoring.js'
import { sqliteReader, type Row } from './codec.js'
import type { RepoContext } from './context.js'

/* SQLite repositories of the monitoring API and its OAuth provider (migration 003). */

const str = (v: unknown): string => v as string
const num = (v: unknown): number => v as number
const {
  bucketOf,
  testOf,
  environmentOf,
  scheduleOf,
  runOf,
  integrationOf,
  batchOf,
  revisionOf,
  appOf,
  tokenOf,
  codeOf,
} = monitoringRows(sqliteReader)

/** The named parameters of a new run's row. */
function runRow(r: NewMonitorRun & { slotKey?: string }): Row {
  return {
    id: r.id,
    test: r.testId,
    bucket: r.bucketKey,
    env: r.environmentId,
    result: r.result,
    source: r.source,
    created: r.created,
    finished: r.finished,
    doc: JSON.stringify(r.doc),
    region: r.region ?? null,
    pinned: r.pinnedAgent ?? null,
    lease: r.leaseId ?? null,
    expires: r.leaseExpires ?? null,
    slot: r.slotKey ?? null,
  }
}

const INSERT_RUN =
  'INSERT INTO monitor_runs (id, test_id, bucket_key, environment_id, result, source, created, finished, doc, region, pinned_agent, lease_id, lease_expires, slot_key) ' +
  'VALUES (@id, @test, @bucket, @env, @result, @source, @created, @finished, @doc, @region, @pinned, @lease, @expires, @slot)'

/*
 * The run a ship may claim: the oldest of its region (not pinned elsewhere) or pinned to it, queued
 * or held under a lease that ended, in a workspace its harbor is offered to. Taken in the same
 * UPDATE that leases it, so two claimers never get the same run (SQLite runs one writer at a time).
 * PostgreSQL form of the same claim, for a store with concurrent writers:
 *   UPDATE monitor_runs SET ... WHERE id = (SELECT r.id FROM monitor_runs r ... ORDER BY r.created
 *   LIMIT 1 FOR UPDATE OF r SKIP LOCKED) RETURNING *
 */
const CLAIM_RUN = `
UPDATE monitor_runs
SET result = 'working', agent = @ship, lease_id = @lease, lease_expires = @expires,
    doc = json_set(doc, '$.agent', @ship, '$.started_at', @started)
WHERE id = (
  SELECT r.id FROM monitor_runs r JOIN monitor_buckets b ON b.key = r.bucket_key
  WHERE ((r.region = @region AND r.pinned_agent IS NULL) OR r.pinned_agent = @ship)
    AND (r.result = 'queued' OR (r.result = 'working' AND r.lease_expires < @now))
    AND b.workspace_id IN (SELECT workspace_id FROM harbor_workspaces WHERE harbor_id = @harbor)
  ORDER BY r.created, r.rowid
  LIMIT 1
)
RETURNING *`

/*
 * Runs waiting for an agent that no agent can take: stored before @cutoff, queued or under a lease
 * that ended, and no ship that could claim them alive since @cutoff. A region's ship is one of a
 * harbor offered to the run's workspace that claimed with the region since then (`seen`), or
 * heartbeated since then listing it; a pinned run's ship is alive by any claim or heartbeat.
 */
const STRANDED_RUNS = `
SELECT r.* FROM monitor_runs r JOIN monitor_buckets b ON b.key = r.bucket_key
WHERE (r.region IS NOT NULL OR r.pinned_agent IS NOT NULL)
  AND (r.result = 'queued' OR (r.result = 'working' AND r.lease_expires < @now))
  AND r.created < @cutoff
  AND NOT EXISTS (
    SELECT 1 FROM ships s
    WHERE CASE WHEN r.pinned_agent IS NOT NULL THEN
        s.id = r.pinned_agent AND (s.last_heartbeat >= @cutoff
          OR EXISTS (SELECT 1 FROM monitor_agent_regions ar WHERE ar.ship_id = s.id AND ar.seen >= @cutoff))
      ELSE
        s.harbor_id IN (SELECT harbor_id FROM harbor_workspaces WHERE workspace_id = b.workspace_id)
        AND (EXISTS (SELECT 1 FROM monitor_agent_regions ar WHERE ar.ship_id = s.id AND ar.region = r.region AND ar.seen >= @cutoff)
          OR (s.last_heartbeat >= @cutoff AND EXISTS (SELECT 1 FROM json_each(s.regions) WHERE value = r.region)))
      END
  )
ORDER BY r.created, r.rowid
LIMIT @limit`

/** A run still waiting for an agent: queued, or under a lease that ended. */
const STILL_WAITING =
  "id = @id AND (result = 'queued' OR (result = 'working' AND lease_expires < @now))"

/** The current, live lease of an agent's run. */
const HELD_LEASE =
  "id = @id AND agent = @ship AND lease_id = @lease AND result = 'working' AND lease_expires >= @now"

/**
 * Buckets, tests, environments, schedules, runs and revisions over one connection.
 *
 * @example
 * const bucket = await monitoringRepository(ctx).getBucket('z3n32gktzx94')
 */
export function monitoringRepository(ctx: RepoContext): MonitoringRepository {
  const get = (sql: string, params: Row | unknown[] = {}): Row | undefined => {
    ctx.check()
    return ctx.conn.statement(sql).get(params) as Row | undefined
  }
  const all = (sql: string, params: Row | unknown[] = {}): Row[] => {
    ctx.check()
    return ctx.conn.statement(sql).all(params) as Row[]
  }
  const run = (sql: string, params: Row | unknown[] = {}): number => {
    ctx.check()
    return ctx.conn.statement(sql).run(params).changes
  }
  const required = (row: Row | undefined): Row => {
    if (row === undefined) throw new Error('the statement returned no row')
    return row
  }

  return {
    async createBucket(b) {
      return bucketOf(
        required(
          get(
            'INSERT INTO monitor_buckets (key, workspace_id, name, trigger_id, is_default, created) VALUES (@key, @ws, @name, @trigger, @def, @now) RETURNING *',
            {
              key: b.key,
              ws: b.workspaceId,
              name: b.name,
              trigger: b.triggerId,
              def: b.isDefault ? 1 : 0,
              now: ctx.now(),
            },
          ),
        ),
      )
    },
    async getBucket(key) {
      const row = get('SELECT * FROM monitor_buckets WHERE key = ?', [key])
      return row === undefined ? undefined : bucketOf(row)
    },
    async getBucketByTrigger(triggerId) {
      const row = get('SELECT * FROM monitor_buckets WHERE trigger_id = ?', [triggerId])
      return row === undefined ? undefined : bucketOf(row)
    },
    async listBuckets(workspaceIds) {
      if (workspaceIds.length === 0) return []
      return all(
        'SELECT * FROM monitor_buckets WHERE workspace_id IN (SELECT value FROM json_each(?)) ORDER BY created, key',
        [JSON.stringify(workspaceIds)],
      ).map(bucketOf)
    },
    async deleteBucket(key) {
      return run('DELETE FROM monitor_buckets WHERE key = ?', [key]) > 0
    },

    async createTest(t) {
      const now = ctx.now()
      return testOf(
        required(
          get(
            'INSERT INTO monitor_tests (id, bucket_key, name, description, default_environment_id, trigger_id, created_by, steps, created, updated, seq) ' +
              'VALUES (@id, @bucket, @name, @description, @env, @trigger, @by, @steps, @now, @now, (SELECT ifnull(max(seq), 0) + 1 FROM monitor_tests)) RETURNING *',
            {
              id: t.id,
              bucket: t.bucketKey,
              name: t.name,
              description: t.description,
              env: t.defaultEnvironmentId,
              trigger: t.triggerId,
              by: JSON.stringify(t.createdBy),
              steps: JSON.stringify(t.steps),
              now,
            },
          ),
        ),
      )
    },
    async getTest(bucketKey, id) {
      const row = get('SELECT * FROM monitor_tests WHERE id = ? AND bucket_key = ?', [
        id,
        bucketKey,
      ])
      return row === undefined ? undefined : testOf(row)
    },
    async getTestById(id) {
      const row = get('SELECT * FROM monitor_tests WHERE id = ?', [id])
      return row === undefined ? undefined : testOf(row)
    },
    async getTestByTrigger(triggerId) {
      const row = get('SELECT * FROM monitor_tests WHERE trigger_id = ?', [triggerId])
      return row === undefined ? undefined : testOf(row)
    },
    async listTests(bucketKey, count, offset, order = 'newest') {
      const sql =
        order === 'newest'
          ? 'SELECT * FROM monitor_tests WHERE bucket_key = ? ORDER BY seq DESC LIMIT ? OFFSET ?'
          : 'SELECT * FROM monitor_tests WHERE bucket_key = ? ORDER BY seq LIMIT ? OFFSET ?'
      return all(sql, [bucketKey, count, offset]).map(testOf)
    },
    async updateTest(id, patch) {
      const row = get('SELECT * FROM monitor_tests WHERE id = ?', [id])
      if (row === undefined) return undefined
      const current = testOf(row)
      const next = { ...current, ...patch }
      return testOf(
        required(
          get(
            'UPDATE monitor_tests SET name = @name, description = @description, default_environment_id = @env, steps = @steps, updated = @now WHERE id = @id RETURNING *',
            {
              id,
              name: next.name,
              description: next.description,
              env: next.defaultEnvironmentId,
              steps: JSON.stringify(next.steps),
              now: ctx.now(),
            },
          ),
        ),
      )
    },
    async deleteTest(bucketKey, id) {
      return run('DELETE FROM monitor_tests WHERE id = ? AND bucket_key = ?', [id, bucketKey]) > 0
    },

    async createEnvironment(e) {
      return environmentOf(
        required(
          get(
            'INSERT INTO monitor_environments (id, bucket_key, test_id, doc, created) VALUES (@id, @bucket, @test, @doc, @now) RETURNING *',
            {
              id: e.id,
              bucket: e.bucketKey,
              test: e.testId,
              doc: JSON.stringify(e.doc),
              now: ctx.now(),
            },
          ),
        ),
      )
    },
    async getEnvironment(bucketKey, id) {
      const row = get('SELECT * FROM monitor_environments WHERE id = ? AND bucket_key = ?', [
        id,
        bucketKey,
      ])
      return row === undefined ? undefined : environmentOf(row)
    },
    async listEnvironments(bucketKey, testId) {
      const rows =
        testId === null
          ? all(
              'SELECT * FROM monitor_environments WHERE bucket_key = ? AND test_id IS NULL ORDER BY created, id',
              [bucketKey],
            )
          : all(
              'SELECT * FROM monitor_environments WHERE bucket_key = ? AND test_id = ? ORDER BY created, id',
              [bucketKey, testId],
            )
      return rows.map(environmentOf)
    },
    async updateEnvironment(id, doc: JsonObject) {
      const row = get('UPDATE monitor_environments SET doc = ? WHERE id = ? RETURNING *', [
        JSON.stringify(doc),
        id,
      ])
      return row === undefined ? undefined : environmentOf(row)
    },
    async deleteEnvironment(bucketKey, id) {
      return (
        run('DELETE FROM monitor_environments WHERE id = ? AND bucket_key = ?', [id, bucketKey]) > 0
      )
    },

    async createSchedule(s) {
      return scheduleOf(
        required(
          get(
            'INSERT INTO monitor_schedules (id, test_id, environment_id, interval, note, created) VALUES (@id, @test, @env, @interval, @note, @now) RETURNING *',
            {
              id: s.id,
              test: s.testId,
              env: s.environmentId,
              interval: s.interval,
              note: s.note,
              now: ctx.now(),
            },
          ),
        ),
      )
    },
    async getSchedule(testId, id) {
      const row = get('SELECT * FROM monitor_schedules WHERE id = ? AND test_id = ?', [id, testId])
      return row === undefined ? undefined : scheduleOf(row)
    },
    async listSchedules(testId) {
      return all('SELECT * FROM monitor_schedules WHERE test_id = ? ORDER BY created, id', [
        testId,
      ]).map(scheduleOf)
    },
    async listAllSchedules() {
      return all('SELECT * FROM monitor_schedules ORDER BY created, id').map(scheduleOf)
    },
    async updateSchedule(id, patch) {
      const row = get('SELECT * FROM monitor_schedules WHERE id = ?', [id])
      if (row === undefined) return undefined
      const next = { ...scheduleOf(row), ...patch }
      return scheduleOf(
        required(
          get(
            'UPDATE monitor_schedules SET environment_id = @env, interval = @interval, note = @note WHERE id = @id RETURNING *',
            { id, env: next.environmentId, interval: next.interval, note: next.note },
          ),
        ),
      )
    },
    async deleteSchedule(testId, id) {
      return run('DELETE FROM monitor_schedules WHERE id = ? AND test_id = ?', [id, testId]) > 0
    },

    async createRun(r) {
      return runOf(required(get(`${INSERT_RUN} RETURNING *`, runRow(r))))
    },
    async createRunOnce(r) {
      const row = get(
        `${INSERT_RUN} ON CONFLICT (slot_key) WHERE slot_key IS NOT NULL DO NOTHING RETURNING *`,
        runRow(r),
      )
      return row === undefined ? undefined : runOf(row)
    },
    async countUnclaimedRuns(testId, region, pinnedAgent, limit) {
      return num(
        get(
          "SELECT count(*) AS n FROM (SELECT 1 FROM monitor_runs WHERE test_id = @test AND result = 'queued' AND region IS @region AND pinned_agent IS @pinned LIMIT @limit)",
          { test: testId, region, pinned: pinnedAgent, limit },
        )?.['n'],
      )
    },
    async claimRun(c) {
      const row = get(CLAIM_RUN, {
        ship: c.shipId,
        harbor: c.harborId,
        region: c.region,
        lease: c.leaseId,
        now: c.now,
        expires: c.expires,
        started: c.now / 1000,
      })
      return row === undefined ? undefined : runOf(row)
    },
    async renewRunLease(l, expires) {
      return (
        run(`UPDATE monitor_runs SET lease_expires = @expires WHERE ${HELD_LEASE}`, {
          id: l.runId,
          ship: l.shipId,
          lease: l.leaseId,
          now: l.now,
          expires,
        }) > 0
      )
    },
    async completeLeasedRun(l, patch) {
      const row = get(
        `UPDATE monitor_runs SET result = @result, finished = @finished, doc = @doc, lease_expires = NULL WHERE ${HELD_LEASE} RETURNING *`,
        {
          id: l.runId,
          ship: l.shipId,
          lease: l.leaseId,
          now: l.now,
          result: patch.result,
          finished: patch.finished,
          doc: JSON.stringify(patch.doc),
        },
      )
      return row === undefined ? undefined : runOf(row)
    },
    async renewLocalLeases(leaseId, expires) {
      return run(
        "UPDATE monitor_runs SET lease_expires = @expires WHERE lease_id = @lease AND result IN ('queued', 'working')",
        { lease: leaseId, expires },
      )
    },
    async recordAgentRegion(shipId, region, seen) {
      run(
        'INSERT INTO monitor_agent_regions (ship_id, region, seen) VALUES (?, ?, ?) ON CONFLICT (ship_id, region) DO UPDATE SET seen = excluded.seen',
        [shipId, region, seen],
      )
    },
    async listAgentRegions(workspaceIds) {
      if (workspaceIds.length === 0) return []
      return all(
        'SELECT DISTINCT ar.region, ar.ship_id, ar.seen, s.name AS ship_name FROM monitor_agent_regions ar JOIN ships s ON s.id = ar.ship_id ' +
          'JOIN harbor_workspaces hw ON hw.harbor_id = s.harbor_id WHERE hw.workspace_id IN (SELECT value FROM json_each(?)) ' +
          'ORDER BY ar.region, ar.ship_id',
        [JSON.stringify(workspaceIds)],
      ).map((r) => ({
        region: str(r['region']),
        shipId: str(r['ship_id']),
        shipName: str(r['ship_name']),
        seen: num(r['seen']),
      }))
    },
    async agentsOffered(workspaceId, shipIds) {
      if (shipIds.length === 0) return []
      const offered = new Set(
        all(
          'SELECT s.id FROM ships s JOIN harbor_workspaces hw ON hw.harbor_id = s.harbor_id ' +
            'WHERE hw.workspace_id = ? AND s.id IN (SELECT value FROM json_each(?))',
          [workspaceId, JSON.stringify(shipIds)],
        ).map((r) => str(r['id'])),
      )
      return shipIds.filter((id) => offered.has(id))
    },
    async updateRun(id, patch) {
      const row = get('SELECT * FROM monitor_runs WHERE id = ?', [id])
      if (row === undefined) return undefined
      const next = { ...runOf(row), ...patch }
      return runOf(
        required(
          get(
            'UPDATE monitor_runs SET result = @result, finished = @finished, doc = @doc WHERE id = @id RETURNING *',
            { id, result: next.result, finished: next.finished, doc: JSON.stringify(next.doc) },
          ),
        ),
      )
    },
    async getRun(testId, id) {
      const row = get('SELECT * FROM monitor_runs WHERE id = ? AND test_id = ?', [id, testId])
      return row === undefined ? undefined : runOf(row)
    },
    async listRuns(testId, count) {
      return all(
        'SELECT * FROM monitor_runs WHERE test_id = ? ORDER BY created DESC, rowid DESC LIMIT ?',
        [testId, count],
      ).map(runOf)
    },
    async failUnfinishedRuns(finished, reason) {
      return run(
        "UPDATE monitor_runs SET result = 'fail', finished = @finished, doc = json_set(doc, '$.error', @reason) " +
          "WHERE result IN ('queued', 'working') AND region IS NULL AND pinned_agent IS NULL AND (lease_expires IS NULL OR lease_expires < @finished)",
        { finished, reason },
      )
    },
    async failStrandedRuns(now, cutoff, reason, limit) {
      const failed: MonitorRun[] = []
      for (const row of all(STRANDED_RUNS, { now, cutoff, limit })) {
        const stranded = runOf(row)
        const doc = {
          ...stranded.doc,
          result: 'fail',
          error: reason(stranded),
          finished_at: now / 1000,
        }
        const updated = get(
          `UPDATE monitor_runs SET result = 'fail', finished = @now, doc = @doc, lease_expires = NULL WHERE ${STILL_WAITING} RETURNING *`,
          { id: stranded.id, now, doc: JSON.stringify(doc) },
        )
        if (updated !== undefined) failed.push(runOf(updated))
      }
      return failed
    },
    async releaseShipRuns(shipId, now, reason) {
      const failed = all(
        "SELECT * FROM monitor_runs WHERE pinned_agent = ? AND result IN ('queued', 'working')",
        [shipId],
      ).map((row) => {
        const pinned = runOf(row)
        const doc = { ...pinned.doc, result: 'fail', error: reason, finished_at: now / 1000 }
        return runOf(
          required(
            get(
              "UPDATE monitor_runs SET result = 'fail', finished = @now, doc = @doc, lease_expires = NULL WHERE id = @id RETURNING *",
              { id: pinned.id, now, doc: JSON.stringify(doc) },
            ),
          ),
        )
      })
      let requeued = 0
      for (const row of all(
        "SELECT * FROM monitor_runs WHERE agent = ? AND pinned_agent IS NULL AND region IS NOT NULL AND result = 'working'",
        [shipId],
      )) {
        const held = runOf(row)
        // Back to how it was queued: no agent, not started.
        const doc: JsonObject = { ...held.doc, agent: null }
        delete doc['started_at']
        requeued += run(
          "UPDATE monitor_runs SET result = 'queued', agent = NULL, lease_id = NULL, lease_expires = NULL, doc = @doc WHERE id = @id",
          { id: held.id, doc: JSON.stringify(doc) },
        )
      }
      return { failed, requeued }
    },
    async pruneRuns(testId, keep) {
      return run(
        'DELETE FROM monitor_runs WHERE test_id = @test AND id NOT IN (SELECT id FROM monitor_runs WHERE test_id = @test ORDER BY created DESC, rowid DESC LIMIT @keep)',
        { test: testId, keep },
      )
    },

    async getRunsByIds(ids) {
      if (ids.length === 0) return []
      const byId = new Map(
        all('SELECT * FROM monitor_runs WHERE id IN (SELECT value FROM json_each(?))', [
          JSON.stringify(ids),
        ]).map((r) => [str(r['id']), runOf(r)]),
      )
      return ids.flatMap((id) => byId.get(id) ?? [])
    },

    async createBatch(b) {
      return batchOf(
        required(
          get(
            'INSERT INTO monitor_batches (id, bucket_key, run_ids, runs_failed, created) VALUES (@id, @bucket, @runs, @failed, @now) RETURNING *',
            {
              id: b.id,
              bucket: b.bucketKey,
              runs: JSON.stringify(b.runIds),
              failed: b.runsFailed,
              now: ctx.now(),
            },
          ),
        ),
      )
    },
    async getBatch(bucketKey, id) {
      const row = get('SELECT * FROM monitor_batches WHERE id = ? AND bucket_key = ?', [
        id,
        bucketKey,
      ])
      return row === undefined ? undefined : batchOf(row)
    },

    async createIntegration(i) {
      return integrationOf(
        required(
          get(
            'INSERT INTO monitor_integrations (id, workspace_id, integration_type, description, doc, created) VALUES (@id, @ws, @type, @description, @doc, @now) RETURNING *',
            {
              id: i.id,
              ws: i.workspaceId,
              type: i.type,
              description: i.description,
              doc: JSON.stringify(i.doc),
              now: ctx.now(),
            },
          ),
        ),
      )
    },
    async listIntegrations(workspaceId) {
      return all('SELECT * FROM monitor_integrations WHERE workspace_id = ? ORDER BY created, id', [
        workspaceId,
      ]).map(integrationOf)
    },
    async getIntegration(workspaceId, id) {
      const row = get('SELECT * FROM monitor_integrations WHERE id = ? AND workspace_id = ?', [
        id,
        workspaceId,
      ])
      return row === undefined ? undefined : integrationOf(row)
    },
    async deleteIntegration(workspaceId, id) {
      return (
        run('DELETE FROM monitor_integrations WHERE id = ? AND workspace_id = ?', [
          id,
          workspaceId,
        ]) > 0
      )
    },

    async addRevision(r) {
      run(
        'INSERT INTO monitor_revisions (uuid, bucket_key, test_id, item_type, item_id, timestamp, author, doc) VALUES (@uuid, @bucket, @test, @type, @item, @ts, @author, @doc)',
        {
          uuid: r.uuid,
          bucket: r.bucketKey,
          test: r.testId,
          type: r.itemType,
          item: r.itemId,
          ts: r.timestamp,
          author: JSON.stringify(r.author),
          doc: JSON.stringify(r.doc),
        },
      )
    },
    async listRevisions(testId) {
      return all('SELECT * FROM monitor_revisions WHERE test_id = ? ORDER BY timestamp, rowid', [
        testId,
      ]).map(revisionOf)
    },
  }
}

/**
 * Applications, tokens and codes of the OAuth 2.0 provider.
 *
 * @example
 * const token = await oauthRepository(ctx).getTokenByHash(sha256hex)
 */
export function oauthRepository(ctx: RepoContext): OAuthRepository {
  const get = (sql: string, params: Row | unknown[]): Row | undefined => {
    ctx.check()
    return ctx.conn.statement(sql).get(params) as Row | undefined
  }
  const all = (sql: string, params: unknown[]): Row[] => {
    ctx.check()
    return ctx.conn.statement(sql).all(params) as Row[]
  }
  const created = (row: Row | undefined): Row => {
    if (row === undefined) throw new Error('the statement returned no row')
    return row
  }
  return {
    async createApp(a) {
      return appOf(
        created(
          get(
            'INSERT INTO oauth_apps (client_id, user_id, name, website_url, callback_url, secret_hash, created) VALUES (@client, @user, @name, @web, @cb, @hash, @now) RETURNING *',
            {
              client: a.clientId,
              user: a.userId,
              name: a.name,
              web: a.websiteUrl,
              cb: a.callbackUrl,
              hash: a.secretHash,
              now: ctx.now(),
            },
          ),
        ),
      )
    },
    async getApp(clientId) {
      const row = get('SELECT * FROM oauth_apps WHERE client_id = ?', [clientId])
      return row === undefined ? undefined : appOf(row)
    },
    async listApps(userId) {
      return all('SELECT * FROM oauth_apps WHERE user_id = ? ORDER BY created, client_id', [
        userId,
      ]).map(appOf)
    },
    async deleteApp(userId, clientId) {
      ctx.check()
      return (
        ctx.conn
          .statement('DELETE FROM oauth_apps WHERE client_id = ? AND user_id = ?')
          .run(clientId, userId).changes > 0
      )
    },
    async createToken(t) {
      return tokenOf(
        created(
          get(
            'INSERT INTO oauth_tokens (id, token_hash, client_id, user_id, scopes, created) VALUES (@id, @hash, @client, @user, @scopes, @now) RETURNING *',
            {
              id: t.id,
              hash: t.tokenHash,
              client: t.clientId,
              user: t.userId,
              scopes: JSON.stringify(t.scopes),
              now: ctx.now(),
            },
          ),
        ),
      )
    },
    async getTokenByHash(tokenHash) {
      const row = get('SELECT * FROM oauth_tokens WHERE token_hash = ?', [tokenHash])
      return row === undefined ? undefined : tokenOf(row)
    },
    async listTokens(userId) {
      return all(
        'SELECT * FROM oauth_tokens WHERE user_id = ? AND revoked IS NULL ORDER BY created, id',
        [userId],
      ).map(tokenOf)
    },
    async revokeToken(userId, id) {
      ctx.check()
      return (
        ctx.conn
          .statement(
            'UPDATE oauth_tokens SET revoked = ? WHERE id = ? AND user_id = ? AND revoked IS NULL',
          )
          .run(ctx.now(), id, userId).changes > 0
      )
    },
    async createCode(c) {
      return codeOf(
        created(
          get(
            'INSERT INTO oauth_codes (code_hash, client_id, user_id, scopes, redirect_uri, expires) VALUES (@hash, @client, @user, @scopes, @uri, @expires) RETURNING *',
            {
              hash: c.codeHash,
              client: c.clientId,
              user: c.userId,
              scopes: JSON.stringify(c.scopes),
              uri: c.redirectUri,
              expires: c.expires,
            },
          ),
        ),
      )
    },
    async consumeCode(codeHash) {
      const row = get('SELECT * FROM oauth_codes WHERE code_hash = ?', [codeHash])
      if (row === undefined) return undefined
      ctx.check()
      ctx.conn.statement('UPDATE oauth_codes SET used = 1 WHERE code_hash = ?').run(codeHash)
      return codeOf(row)
    },
  }
}

const monitoringWrites = [
  'createBucket',
  'deleteBucket',
  'createTest',
  'updateTest',
  'deleteTest',
  'createEnvironment',
  'updateEnvironment',
  'deleteEnvironment',
  'createSchedule',
  'updateSchedule',
  'deleteSchedule',
  'createRun',
  'createRunOnce',
  'claimRun',
  'renewRunLease',
  'completeLeasedRun',
  'renewLocalLeases',
  'recordAgentRegion',
  'updateRun',
  'failUnfinishedRuns',
  'failStrandedRuns',
  'releaseShipRuns',
  'pruneRuns',
  'addRevision',
  'createBatch',
  'createIntegration',
  'deleteIntegration',
] as const satisfies ReadonlyArray<keyof MonitoringRepository>

const oauthWrites = [
  'createApp',
  'deleteApp',
  'createToken',
  'revokeToken',
  'createCode',
  'consumeCode',
] as const satisfies ReadonlyArray<keyof OAuthRepository>

/**
 * The store's own monitoring and OAuth repositories: reads as given, every change method sent
 * through `write` (as routeWrites does for the others).
 *
 * @example
 * const { monitoring, oauth } = routeMonitoringWrites(reads, store.write)
 */
export function routeMonitoringWrites(
  reads: Pick<Repositories, 'monitoring' | 'oauth'>,
  write: Store['write'],
): Pick<Repositories, 'monitoring' | 'oauth'> {
  const monitoring: Record<string, unknown> = { ...reads.monitoring }
  for (const name of monitoringWrites) {
    monitoring[name] = async (...args: unknown[]) =>
      await write(
        async (tx) => await (tx.monitoring[name] as (...a: unknown[]) => Promise<unknown>)(...args),
      )
  }
  const oauth: Record<string, unknown> = { ...reads.oauth }
  for (const name of oauthWrites) {
    oauth[name] = async (...args: unknown[]) =>
      await write(
        async (tx) => await (tx.oauth[name] as (...a: unknown[]) => Promise<unknown>)(...args),
      )
  }
  return {
    monitoring: monitoring as unknown as MonitoringRepository,
    oauth: oauth as unknown as OAuthRepository,
  }
}
