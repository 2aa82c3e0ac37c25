import type {
  JsonObject,
  MonitoringRepository,
  MonitorRun,
  NewMonitorRun,
  OAuthRepository,
} from '../monitoring.js'
import { monitoringRows } from '../tables/monitoring.js'
import { pgReader } from './codec.js'
import type { PgRepoContext } from './context.js'
import { all as allNamed, type Row as PgRow } from './sql.js'

/*
 * PostgreSQL repositories of the monitoring API and its OAuth provider. JSON columns are `json`:
 * node-postgres hands them back parsed, and they are sent as their JSON text.
 */

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
} = monitoringRows(pgReader)
const text = (v: unknown): string => JSON.stringify(v)

/** The parameters $1..$14 of INSERT_RUN. */
function runParams(r: NewMonitorRun & { slotKey?: string }): unknown[] {
  return [
    r.id,
    r.testId,
    r.bucketKey,
    r.environmentId,
    r.result,
    r.source,
    r.created,
    r.finished,
    text(r.doc),
    r.region ?? null,
    r.pinnedAgent ?? null,
    r.leaseId ?? null,
    r.leaseExpires ?? null,
    r.slotKey ?? null,
  ]
}

const INSERT_RUN =
  'INSERT INTO monitor_runs (id, test_id, bucket_key, environment_id, result, source, created, finished, doc, region, pinned_agent, lease_id, lease_expires, slot_key) ' +
  'VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)'

/*
 * The run a ship may claim: the oldest of its region (not pinned elsewhere) or pinned to it, queued
 * or held under a lease that ended, in a workspace its harbor is offered to. Platform instances
 * claim at the same time here: the candidate is locked (FOR UPDATE OF r) and a run another claimer
 * holds is passed over (SKIP LOCKED), so two claimers never get the same run and neither waits.
 * The UPDATE leases it in the same statement; the doc is completed next, in JavaScript (a jsonb
 * merge would reorder its keys), under the lease just taken.
 *   $1 ship, $2 harbor, $3 region, $4 lease, $5 now, $6 expires
 */
const CLAIM_RUN = `
UPDATE monitor_runs
SET result = 'working', agent = $1, lease_id = $4, lease_expires = $6
WHERE id = (
  SELECT r.id FROM monitor_runs r JOIN monitor_buckets b ON b.key = r.bucket_key
  WHERE ((r.region = $3 AND r.pinned_agent IS NULL) OR r.pinned_agent = $1)
    AND (r.result = 'queued' OR (r.result = 'working' AND r.lease_expires < $5))
    AND b.workspace_id IN (SELECT workspace_id FROM harbor_workspaces WHERE harbor_id = $2)
  ORDER BY r.created, r.seq
  LIMIT 1
  FOR UPDATE OF r SKIP LOCKED
)
RETURNING *`

/*
 * Runs waiting for an agent that no agent can take (SQLite's STRANDED_RUNS explains the rule),
 * locked for the update that fails them; one a claimer holds now is passed over.
 *   $1 now, $2 cutoff, $3 limit
 */
const STRANDED_RUNS = `
SELECT r.* FROM monitor_runs r JOIN monitor_buckets b ON b.key = r.bucket_key
WHERE (r.region IS NOT NULL OR r.pinned_agent IS NOT NULL)
  AND (r.result = 'queued' OR (r.result = 'working' AND r.lease_expires < $1))
  AND r.created < $2
  AND NOT EXISTS (
    SELECT 1 FROM ships s
    WHERE CASE WHEN r.pinned_agent IS NOT NULL THEN
        s.id = r.pinned_agent AND (s.last_heartbeat >= $2
          OR EXISTS (SELECT 1 FROM monitor_agent_regions ar WHERE ar.ship_id = s.id AND ar.seen >= $2))
      ELSE
        s.harbor_id IN (SELECT harbor_id FROM harbor_workspaces WHERE workspace_id = b.workspace_id)
        AND (EXISTS (SELECT 1 FROM monitor_agent_regions ar WHERE ar.ship_id = s.id AND ar.region = r.region AND ar.seen >= $2)
          OR (s.last_heartbeat >= $2 AND EXISTS (SELECT 1 FROM json_array_elements_text(s.regions) e WHERE e = r.region)))
      END
  )
ORDER BY r.created, r.seq
LIMIT $3
FOR UPDATE OF r SKIP LOCKED`

/** The current, live lease of an agent's run: $1 run, $2 ship, $3 lease, $4 now. */
const HELD_LEASE =
  "id = $1 AND agent = $2 AND lease_id = $3 AND result = 'working' AND lease_expires >= $4"

/** The statement helpers of a repository: each checks the context first. */
function statements(ctx: PgRepoContext): {
  get: (sql: string, params?: readonly unknown[]) => Promise<PgRow | undefined>
  all: (sql: string, params?: readonly unknown[]) => Promise<PgRow[]>
  /** How many rows a statement ending in `RETURNING 1` touched. */
  count: (sql: string, params?: readonly unknown[]) => Promise<number>
  required: (sql: string, params?: readonly unknown[]) => Promise<PgRow>
} {
  const all = async (sql: string, params: readonly unknown[] = []): Promise<PgRow[]> => {
    ctx.check()
    // Through the store's named-parameter runner ($n becomes @pn), so that what it checks of
    // every value (text PostgreSQL cannot hold) holds here too.
    return await allNamed(
      ctx.db,
      sql.replace(/\$(\d+)/g, '@p$1'),
      Object.fromEntries(params.map((value, i) => [`p${i + 1}`, value])),
    )
  }
  const get = async (sql: string, params: readonly unknown[] = []): Promise<PgRow | undefined> =>
    (await all(sql, params))[0]
  return {
    all,
    get,
    count: async (sql, params) => (await all(sql, params)).length,
    async required(sql, params) {
      const row = await get(sql, params)
      if (row === undefined) throw new Error('the statement returned no row')
      return row
    },
  }
}

/**
 * Buckets, tests, environments, schedules, runs, batches, integrations and revisions.
 *
 * @example
 * const bucket = await pgMonitoringRepository(ctx).getBucket('z3n32gktzx94')
 */
export function pgMonitoringRepository(ctx: PgRepoContext): MonitoringRepository {
  const { get, all, count, required } = statements(ctx)
  return {
    async createBucket(b) {
      return bucketOf(
        await required(
          'INSERT INTO monitor_buckets (key, workspace_id, name, trigger_id, is_default, created) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *',
          [b.key, b.workspaceId, b.name, b.triggerId, b.isDefault, ctx.now()],
        ),
      )
    },
    async getBucket(key) {
      const row = await get('SELECT * FROM monitor_buckets WHERE key = $1', [key])
      return row === undefined ? undefined : bucketOf(row)
    },
    async getBucketByTrigger(triggerId) {
      const row = await get('SELECT * FROM monitor_buckets WHERE trigger_id = $1', [triggerId])
      return row === undefined ? undefined : bucketOf(row)
    },
    async listBuckets(workspaceIds) {
      if (workspaceIds.length === 0) return []
      return (
        await all(
          'SELECT * FROM monitor_buckets WHERE workspace_id = ANY($1::bigint[]) ORDER BY created, key',
          [workspaceIds],
        )
      ).map(bucketOf)
    },
    async deleteBucket(key) {
      return (await count('DELETE FROM monitor_buckets WHERE key = $1 RETURNING 1', [key])) > 0
    },

    async createTest(t) {
      const now = ctx.now()
      return testOf(
        await required(
          'INSERT INTO monitor_tests (id, bucket_key, name, description, default_environment_id, trigger_id, created_by, steps, created, updated) ' +
            'VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING *',
          [
            t.id,
            t.bucketKey,
            t.name,
            t.description,
            t.defaultEnvironmentId,
            t.triggerId,
            text(t.createdBy),
            text(t.steps),
            now,
          ],
        ),
      )
    },
    async getTest(bucketKey, id) {
      const row = await get('SELECT * FROM monitor_tests WHERE id = $1 AND bucket_key = $2', [
        id,
        bucketKey,
      ])
      return row === undefined ? undefined : testOf(row)
    },
    async getTestById(id) {
      const row = await get('SELECT * FROM monitor_tests WHERE id = $1', [id])
      return row === undefined ? undefined : testOf(row)
    },
    async getTestByTrigger(triggerId) {
      const row = await get('SELECT * FROM monitor_tests WHERE trigger_id = $1', [triggerId])
      return row === undefined ? undefined : testOf(row)
    },
    async listTests(bucketKey, limit, offset, order = 'newest') {
      const sql =
        order === 'newest'
          ? 'SELECT * FROM monitor_tests WHERE bucket_key = $1 ORDER BY seq DESC LIMIT $2 OFFSET $3'
          : 'SELECT * FROM monitor_tests WHERE bucket_key = $1 ORDER BY seq LIMIT $2 OFFSET $3'
      // A negative count means no limit, as in SQLite.
      return (await all(sql, [bucketKey, limit < 0 ? null : limit, offset])).map(testOf)
    },
    async updateTest(id, patch) {
      const row = await get('SELECT * FROM monitor_tests WHERE id = $1 FOR UPDATE', [id])
      if (row === undefined) return undefined
      const next = { ...testOf(row), ...patch }
      return testOf(
        await required(
          'UPDATE monitor_tests SET name = $2, description = $3, default_environment_id = $4, steps = $5, updated = $6 WHERE id = $1 RETURNING *',
          [id, next.name, next.description, next.defaultEnvironmentId, text(next.steps), ctx.now()],
        ),
      )
    },
    async deleteTest(bucketKey, id) {
      return (
        (await count('DELETE FROM monitor_tests WHERE id = $1 AND bucket_key = $2 RETURNING 1', [
          id,
          bucketKey,
        ])) > 0
      )
    },

    async createEnvironment(e) {
      return environmentOf(
        await required(
          'INSERT INTO monitor_environments (id, bucket_key, test_id, doc, created) VALUES ($1, $2, $3, $4, $5) RETURNING *',
          [e.id, e.bucketKey, e.testId, text(e.doc), ctx.now()],
        ),
      )
    },
    async getEnvironment(bucketKey, id) {
      const row = await get(
        'SELECT * FROM monitor_environments WHERE id = $1 AND bucket_key = $2',
        [id, bucketKey],
      )
      return row === undefined ? undefined : environmentOf(row)
    },
    async listEnvironments(bucketKey, testId) {
      const rows =
        testId === null
          ? await all(
              'SELECT * FROM monitor_environments WHERE bucket_key = $1 AND test_id IS NULL ORDER BY created, id',
              [bucketKey],
            )
          : await all(
              'SELECT * FROM monitor_environments WHERE bucket_key = $1 AND test_id = $2 ORDER BY created, id',
              [bucketKey, testId],
            )
      return rows.map(environmentOf)
    },
    async updateEnvironment(id, doc) {
      const row = await get('UPDATE monitor_environments SET doc = $1 WHERE id = $2 RETURNING *', [
        text(doc),
        id,
      ])
      return row === undefined ? undefined : environmentOf(row)
    },
    async deleteEnvironment(bucketKey, id) {
      return (
        (await count(
          'DELETE FROM monitor_environments WHERE id = $1 AND bucket_key = $2 RETURNING 1',
          [id, bucketKey],
        )) > 0
      )
    },

    async createSchedule(s) {
      return scheduleOf(
        await required(
          'INSERT INTO monitor_schedules (id, test_id, environment_id, interval, note, created) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *',
          [s.id, s.testId, s.environmentId, s.interval, s.note, ctx.now()],
        ),
      )
    },
    async getSchedule(testId, id) {
      const row = await get('SELECT * FROM monitor_schedules WHERE id = $1 AND test_id = $2', [
        id,
        testId,
      ])
      return row === undefined ? undefined : scheduleOf(row)
    },
    async listSchedules(testId) {
      return (
        await all('SELECT * FROM monitor_schedules WHERE test_id = $1 ORDER BY created, id', [
          testId,
        ])
      ).map(scheduleOf)
    },
    async listAllSchedules() {
      return (await all('SELECT * FROM monitor_schedules ORDER BY created, id')).map(scheduleOf)
    },
    async updateSchedule(id, patch) {
      const row = await get('SELECT * FROM monitor_schedules WHERE id = $1 FOR UPDATE', [id])
      if (row === undefined) return undefined
      const next = { ...scheduleOf(row), ...patch }
      return scheduleOf(
        await required(
          'UPDATE monitor_schedules SET environment_id = $2, interval = $3, note = $4 WHERE id = $1 RETURNING *',
          [id, next.environmentId, next.interval, next.note],
        ),
      )
    },
    async deleteSchedule(testId, id) {
      return (
        (await count('DELETE FROM monitor_schedules WHERE id = $1 AND test_id = $2 RETURNING 1', [
          id,
          testId,
        ])) > 0
      )
    },

    async createRun(r) {
      return runOf(await required(`${INSERT_RUN} RETURNING *`, runParams(r)))
    },
    async createRunOnce(r) {
      const row = await get(
        `${INSERT_RUN} ON CONFLICT (slot_key) WHERE slot_key IS NOT NULL DO NOTHING RETURNING *`,
        runParams(r),
      )
      return row === undefined ? undefined : runOf(row)
    },
    async countUnclaimedRuns(testId, region, pinnedAgent, limit) {
      const row = await required(
        "SELECT count(*) AS n FROM (SELECT 1 FROM monitor_runs WHERE test_id = $1 AND result = 'queued' " +
          'AND region IS NOT DISTINCT FROM $2::text AND pinned_agent IS NOT DISTINCT FROM $3::text LIMIT $4) unclaimed',
        [testId, region, pinnedAgent, limit < 0 ? null : limit],
      )
      return num(row['n'])
    },
    async claimRun(c) {
      const claimed = await get(CLAIM_RUN, [
        c.shipId,
        c.harborId,
        c.region,
        c.leaseId,
        c.now,
        c.expires,
      ])
      if (claimed === undefined) return undefined
      const doc = { ...(claimed['doc'] as object), agent: c.shipId, started_at: c.now / 1000 }
      return runOf(
        await required('UPDATE monitor_runs SET doc = $2 WHERE id = $1 RETURNING *', [
          claimed['id'],
          text(doc),
        ]),
      )
    },
    async renewRunLease(l, expires) {
      return (
        (await count(`UPDATE monitor_runs SET lease_expires = $5 WHERE ${HELD_LEASE} RETURNING 1`, [
          l.runId,
          l.shipId,
          l.leaseId,
          l.now,
          expires,
        ])) > 0
      )
    },
    async completeLeasedRun(l, patch) {
      const row = await get(
        `UPDATE monitor_runs SET result = $5, finished = $6, doc = $7, lease_expires = NULL WHERE ${HELD_LEASE} RETURNING *`,
        [l.runId, l.shipId, l.leaseId, l.now, patch.result, patch.finished, text(patch.doc)],
      )
      return row === undefined ? undefined : runOf(row)
    },
    async renewLocalLeases(leaseId, expires) {
      return await count(
        "UPDATE monitor_runs SET lease_expires = $2 WHERE lease_id = $1 AND result IN ('queued', 'working') RETURNING 1",
        [leaseId, expires],
      )
    },
    async recordAgentRegion(shipId, region, seen) {
      await all(
        'INSERT INTO monitor_agent_regions (ship_id, region, seen) VALUES ($1, $2, $3) ON CONFLICT (ship_id, region) DO UPDATE SET seen = excluded.seen',
        [shipId, region, seen],
      )
    },
    async listAgentRegions(workspaceIds) {
      if (workspaceIds.length === 0) return []
      // Byte order, as SQLite sorts text.
      const rows = await all(
        'SELECT * FROM (SELECT DISTINCT ar.region, ar.ship_id, ar.seen, s.name AS ship_name FROM monitor_agent_regions ar JOIN ships s ON s.id = ar.ship_id ' +
          'JOIN harbor_workspaces hw ON hw.harbor_id = s.harbor_id WHERE hw.workspace_id = ANY($1::bigint[])) offered ' +
          'ORDER BY region COLLATE "C", ship_id COLLATE "C"',
        [workspaceIds],
      )
      return rows.map((r) => ({
        region: str(r['region']),
        shipId: str(r['ship_id']),
        shipName: str(r['ship_name']),
        seen: num(r['seen']),
      }))
    },
    async agentsOffered(workspaceId, shipIds) {
      if (shipIds.length === 0) return []
      const offered = new Set(
        (
          await all(
            'SELECT s.id FROM ships s JOIN harbor_workspaces hw ON hw.harbor_id = s.harbor_id ' +
              'WHERE hw.workspace_id = $1 AND s.id = ANY($2::text[])',
            [workspaceId, shipIds],
          )
        ).map((r) => str(r['id'])),
      )
      return shipIds.filter((id) => offered.has(id))
    },
    async updateRun(id, patch) {
      const row = await get('SELECT * FROM monitor_runs WHERE id = $1 FOR UPDATE', [id])
      if (row === undefined) return undefined
      const next = { ...runOf(row), ...patch }
      return runOf(
        await required(
          'UPDATE monitor_runs SET result = $2, finished = $3, doc = $4 WHERE id = $1 RETURNING *',
          [id, next.result, next.finished, text(next.doc)],
        ),
      )
    },
    async getRun(testId, id) {
      const row = await get('SELECT * FROM monitor_runs WHERE id = $1 AND test_id = $2', [
        id,
        testId,
      ])
      return row === undefined ? undefined : runOf(row)
    },
    async listRuns(testId, limit) {
      return (
        await all(
          'SELECT * FROM monitor_runs WHERE test_id = $1 ORDER BY created DESC, seq DESC LIMIT $2',
          [testId, limit < 0 ? null : limit],
        )
      ).map(runOf)
    },
    async failUnfinishedRuns(finished, reason) {
      // The reason is set in each run's doc in JavaScript: a jsonb merge would reorder its keys.
      // Only local runs whose holder is gone: another instance's live lease, and runs waiting
      // for an agent, are left alone.
      const rows = await all(
        "SELECT id, doc FROM monitor_runs WHERE result IN ('queued', 'working') AND region IS NULL AND pinned_agent IS NULL " +
          'AND (lease_expires IS NULL OR lease_expires < $1) FOR UPDATE',
        [finished],
      )
      for (const row of rows) {
        await all(
          "UPDATE monitor_runs SET result = 'fail', finished = $2, doc = $3 WHERE id = $1",
          [row['id'], finished, text({ ...(row['doc'] as object), error: reason })],
        )
      }
      return rows.length
    },
    async failStrandedRuns(now, cutoff, reason, limit) {
      const failed: MonitorRun[] = []
      for (const row of await all(STRANDED_RUNS, [now, cutoff, limit])) {
        const stranded = runOf(row)
        const doc = {
          ...stranded.doc,
          result: 'fail',
          error: reason(stranded),
          finished_at: now / 1000,
        }
        failed.push(
          runOf(
            await required(
              "UPDATE monitor_runs SET result = 'fail', finished = $2, doc = $3, lease_expires = NULL WHERE id = $1 RETURNING *",
              [stranded.id, now, text(doc)],
            ),
          ),
        )
      }
      return failed
    },
    async releaseShipRuns(shipId, now, reason) {
      const failed: MonitorRun[] = []
      for (const row of await all(
        "SELECT * FROM monitor_runs WHERE pinned_agent = $1 AND result IN ('queued', 'working') FOR UPDATE",
        [shipId],
      )) {
        const pinned = runOf(row)
        const doc = { ...pinned.doc, result: 'fail', error: reason, finished_at: now / 1000 }
        failed.push(
          runOf(
            await required(
              "UPDATE monitor_runs SET result = 'fail', finished = $2, doc = $3, lease_expires = NULL WHERE id = $1 RETURNING *",
              [pinned.id, now, text(doc)],
            ),
          ),
        )
      }
      let requeued = 0
      for (const row of await all(
        "SELECT * FROM monitor_runs WHERE agent = $1 AND pinned_agent IS NULL AND region IS NOT NULL AND result = 'working' FOR UPDATE",
        [shipId],
      )) {
        const held = runOf(row)
        // Back to how it was queued: no agent, not started.
        const doc: JsonObject = { ...held.doc, agent: null }
        delete doc['started_at']
        requeued += await count(
          "UPDATE monitor_runs SET result = 'queued', agent = NULL, lease_id = NULL, lease_expires = NULL, doc = $2 WHERE id = $1 RETURNING 1",
          [held.id, text(doc)],
        )
      }
      return { failed, requeued }
    },
    async pruneRuns(testId, keep) {
      return await count(
        'DELETE FROM monitor_runs WHERE test_id = $1 AND id NOT IN (SELECT id FROM monitor_runs WHERE test_id = $1 ORDER BY created DESC, seq DESC LIMIT $2) RETURNING 1',
        [testId, keep < 0 ? null : keep],
      )
    },
    async getRunsByIds(ids) {
      if (ids.length === 0) return []
      const byId = new Map(
        (await all('SELECT * FROM monitor_runs WHERE id = ANY($1::text[])', [ids])).map((r) => [
          str(r['id']),
          runOf(r),
        ]),
      )
      return ids.flatMap((id) => byId.get(id) ?? [])
    },

    async createBatch(b) {
      return batchOf(
        await required(
          'INSERT INTO monitor_batches (id, bucket_key, run_ids, runs_failed, created) VALUES ($1, $2, $3, $4, $5) RETURNING *',
          [b.id, b.bucketKey, text(b.runIds), b.runsFailed, ctx.now()],
        ),
      )
    },
    async getBatch(bucketKey, id) {
      const row = await get('SELECT * FROM monitor_batches WHERE id = $1 AND bucket_key = $2', [
        id,
        bucketKey,
      ])
      return row === undefined ? undefined : batchOf(row)
    },

    async createIntegration(i) {
      return integrationOf(
        await required(
          'INSERT INTO monitor_integrations (id, workspace_id, integration_type, description, doc, created) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *',
          [i.id, i.workspaceId, i.type, i.description, text(i.doc), ctx.now()],
        ),
      )
    },
    async listIntegrations(workspaceId) {
      return (
        await all(
          'SELECT * FROM monitor_integrations WHERE workspace_id = $1 ORDER BY created, id',
          [workspaceId],
        )
      ).map(integrationOf)
    },
    async getIntegration(workspaceId, id) {
      const row = await get(
        'SELECT * FROM monitor_integrations WHERE id = $1 AND workspace_id = $2',
        [id, workspaceId],
      )
      return row === undefined ? undefined : integrationOf(row)
    },
    async deleteIntegration(workspaceId, id) {
      return (
        (await count(
          'DELETE FROM monitor_integrations WHERE id = $1 AND workspace_id = $2 RETURNING 1',
          [id, workspaceId],
        )) > 0
      )
    },

    async addRevision(r) {
      await all(
        'INSERT INTO monitor_revisions (uuid, bucket_key, test_id, item_type, item_id, timestamp, author, doc) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [
          r.uuid,
          r.bucketKey,
          r.testId,
          r.itemType,
          r.itemId,
          r.timestamp,
          text(r.author),
          text(r.doc),
        ],
      )
    },
    async listRevisions(testId) {
      return (
        await all('SELECT * FROM monitor_revisions WHERE test_id = $1 ORDER BY timestamp, seq', [
          testId,
        ])
      ).map(revisionOf)
    },
  }
}

/**
 * Applications, tokens and codes of the OAuth 2.0 provider.
 *
 * @example
 * const token = await pgOAuthRepository(ctx).getTokenByHash(sha256hex)
 */
export function pgOAuthRepository(ctx: PgRepoContext): OAuthRepository {
  const { get, all, count, required } = statements(ctx)
  return {
    async createApp(a) {
      return appOf(
        await required(
          'INSERT INTO oauth_apps (client_id, user_id, name, website_url, callback_url, secret_hash, created) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *',
          [a.clientId, a.userId, a.name, a.websiteUrl, a.callbackUrl, a.secretHash, ctx.now()],
        ),
      )
    },
    async getApp(clientId) {
      const row = await get('SELECT * FROM oauth_apps WHERE client_id = $1', [clientId])
      return row === undefined ? undefined : appOf(row)
    },
    async listApps(userId) {
      return (
        await all('SELECT * FROM oauth_apps WHERE user_id = $1 ORDER BY created, client_id', [
          userId,
        ])
      ).map(appOf)
    },
    async deleteApp(userId, clientId) {
      return (
        (await count('DELETE FROM oauth_apps WHERE client_id = $1 AND user_id = $2 RETURNING 1', [
          clientId,
          userId,
        ])) > 0
      )
    },
    async createToken(t) {
      return tokenOf(
        await required(
          'INSERT INTO oauth_tokens (id, token_hash, client_id, user_id, scopes, created) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *',
          [t.id, t.tokenHash, t.clientId, t.userId, text(t.scopes), ctx.now()],
        ),
      )
    },
    async getTokenByHash(tokenHash) {
      const row = await get('SELECT * FROM oauth_tokens WHERE token_hash = $1', [tokenHash])
      return row === undefined ? undefined : tokenOf(row)
    },
    async listTokens(userId) {
      return (
        await all(
          'SELECT * FROM oauth_tokens WHERE user_id = $1 AND revoked IS NULL ORDER BY created, id',
          [userId],
        )
      ).map(tokenOf)
    },
    async revokeToken(userId, id) {
      return (
        (await count(
          'UPDATE oauth_tokens SET revoked = $1 WHERE id = $2 AND user_id = $3 AND revoked IS NULL RETURNING 1',
          [ctx.now(), id, userId],
        )) > 0
      )
    },
    async createCode(c) {
      return codeOf(
        await required(
          'INSERT INTO oauth_codes (code_hash, client_id, user_id, scopes, redirect_uri, expires) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *',
          [c.codeHash, c.clientId, c.userId, text(c.scopes), c.redirectUri, c.expires],
        ),
      )
    },
    async consumeCode(codeHash) {
      // One statement marks the code used and answers it as it was before: of two instances
      // redeeming one code at once, the second waits for the row and sees it used.
      const row = await get(
        'UPDATE oauth_codes c SET used = true FROM (SELECT code_hash, used AS was_used FROM oauth_codes WHERE code_hash = $1 FOR UPDATE) before ' +
          'WHERE c.code_hash = before.code_hash RETURNING c.*, before.was_used',
        [codeHash],
      )
      return row === undefined ? undefined : codeOf({ ...row, used: row['was_used'] })
    },
  }
}
