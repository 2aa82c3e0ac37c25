import { createError } from '../../errors/index.js'
import { SharedScenarios } from './shared.js'
import { STARTED, type ScenarioRead, type ScenarioView, type ScenarioWrite } from './store.js'

/**
 * Scenario states shared by every process that names the same PostgreSQL database and prefix
 * (`--scenario-store postgres://user:pass@host:5432/db?prefix=orders`), the same guarantee as the
 * Redis store (redis.ts): matching stays synchronous on what this process last heard
 * (SharedScenarios); each request that read or wrote a scenario commits through the database,
 * which makes the writes only when every state read still holds and answers the current states.
 *
 * One row per instance not in `Started`, keyed by (prefix, key); `Started` is the absence of the
 * row, and a `ttl` is an expiry by the database's clock (so that processes with skewed clocks
 * agree), after which the row reads as `Started`. A commit that writes takes a transaction-scoped
 * advisory lock per key it involves, in key order (no deadlock between two commits), then reads,
 * compares and writes: rows that do not exist yet cannot be locked with `FOR UPDATE`, advisory
 * locks on their keys can. A commit that only reads is one SELECT: it changes nothing, so the
 * snapshot it reads is all the atomicity it needs; so is a commit whose reads are already stale.
 * The table is created on first use.
 */

/** The table every prefix shares. */
const TABLE = 'understudy_scenarios'

/** Epoch milliseconds by the database's clock (clock_timestamp: not frozen at the transaction's start). */
const NOW_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint'

/** Rows that still hold a state (not expired). */
const LIVE = `(expires IS NULL OR expires > ${NOW_MS})`

/** The lock that serializes creating the table when several processes start at once. */
const CREATE_LOCK = `hashtextextended('${TABLE}', 0)`

const CREATE_SQL = `
CREATE TABLE IF NOT EXISTS ${TABLE} (
  prefix text NOT NULL,
  key text NOT NULL,
  name text NOT NULL,
  instance text,
  state text NOT NULL,
  expires bigint,
  PRIMARY KEY (prefix, key)
)`

/** SQLSTATE of a deadlock PostgreSQL broke by failing one transaction (possible only on a hash collision). */
const DEADLOCK = '40P01'
const MAX_DEADLOCK_RETRIES = 3

/** What the store needs of a pooled connection (node-postgres's `PoolClient` answers it). */
interface PgClientLike {
  query: (sql: string, params?: unknown[]) => Promise<{ rows: unknown[] }>
  release: (err?: Error | boolean) => void
}

/** What the store needs of a pool (node-postgres's `Pool` answers it). */
interface PgPoolLike {
  query: (sql: string, params?: unknown[]) => Promise<{ rows: unknown[] }>
  connect: () => Promise<PgClientLike>
  end: () => Promise<void>
}

interface StateRow {
  key: string
  state: string
}

/** The row key of an instance: unambiguous for any name and instance (PostgreSQL text holds no NUL). */
function rowKey(name: string, instance: string | null): string {
  return JSON.stringify(instance === null ? [name] : [name, instance])
}

class PostgresScenarios extends SharedScenarios {
  constructor(
    private readonly pool: PgPoolLike,
    private readonly prefix: string,
  ) {
    super(async (reads, writes) => await commitInPostgres(pool, prefix, reads, writes))
  }

  /** Creates the table unless it exists; concurrent first starts wait for each other. */
  async prepare(): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(${CREATE_LOCK})`)
      await client.query(CREATE_SQL)
    })
  }

  /** Every instance not in `Started`, read from the database (the truth, not what this process heard). */
  override async list(): Promise<ScenarioView[]> {
    const { rows } = await this.pool.query(
      `SELECT name, instance, state FROM ${TABLE} WHERE prefix = $1 AND ${LIVE}`,
      [this.prefix],
    )
    return (rows as ScenarioView[])
      .map((r) => ({ name: r.name, instance: r.instance, state: r.state }))
      .sort(
        (a, b) =>
          a.name.localeCompare(b.name) || (a.instance ?? '').localeCompare(b.instance ?? ''),
      )
  }

  /** Back to `Started` in the database: all, one scenario, or one instance; how many were reset. */
  override async reset(name?: string, instance?: string): Promise<number> {
    await super.reset()
    const { rows } = await this.pool.query(
      `WITH gone AS (DELETE FROM ${TABLE} WHERE prefix = $1 AND ($2::text IS NULL OR name = $2) AND ($3::text IS NULL OR instance = $3) RETURNING expires)
       SELECT count(*)::int AS n FROM gone WHERE ${LIVE}`,
      [this.prefix, name ?? null, instance ?? null],
    )
    return (rows[0] as { n: number }).n
  }

  async close(): Promise<void> {
    await this.pool.end()
  }
}

async function inTransaction<T>(
  pool: PgPoolLike,
  fn: (client: PgClientLike) => Promise<T>,
): Promise<T> {
  const client = await pool.connect()
  let broken: Error | undefined
  try {
    await client.query('BEGIN')
    const result = await fn(client)
    await client.query('COMMIT')
    return result
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackErr: unknown) => {
      // A connection that cannot even roll back is not given to the next commit.
      broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr))
    })
    throw err
  } finally {
    client.release(broken)
  }
}

async function commitInPostgres(
  pool: PgPoolLike,
  prefix: string,
  reads: readonly ScenarioRead[],
  writes: readonly ScenarioWrite[],
): Promise<{ ok: boolean; states: ScenarioRead[] }> {
  const involved = [...reads, ...writes].map(([n, i]) => rowKey(n, i))
  const answer = (current: Map<string, string>): ScenarioRead[] =>
    [...reads, ...writes].map(([n, i], k) => [n, i, current.get(involved[k] ?? '') ?? STARTED])
  // Without a lock first: a read already stale (every loser of a race) is refused by one SELECT
  // instead of queueing for the lock; a read-only turn needs nothing more.
  const seen = await statesOf(pool, prefix, involved)
  if (writes.length === 0 || !holds(reads, seen)) {
    return { ok: writes.length === 0 && holds(reads, seen), states: answer(seen) }
  }
  // One write per key, the last (as a sequence of SETs would leave it).
  const last = new Map<string, ScenarioWrite>()
  for (const write of writes) last.set(rowKey(write[0], write[1]), write)
  const keys = [...new Set(involved)].sort()
  for (let attempt = 1; ; attempt++) {
    try {
      return await inTransaction(pool, async (client) => {
        await client.query(
          'SELECT pg_advisory_xact_lock(hashtextextended($1 || k, 0)) FROM unnest($2::text[]) WITH ORDINALITY AS u(k, i) ORDER BY i',
          [`${TABLE}\u001f${prefix}\u001f`, keys],
        )
        const current = await statesOf(client, prefix, keys)
        if (!holds(reads, current)) return { ok: false, states: answer(current) }
        const planned = [...last]
        await client.query(
          `WITH w AS (SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[]) AS w(key, name, instance, state, ttl)),
             gone AS (DELETE FROM ${TABLE} t USING w WHERE t.prefix = $1 AND t.key = w.key AND w.state = '${STARTED}')
           INSERT INTO ${TABLE} (prefix, key, name, instance, state, expires)
           SELECT $1, key, name, instance, state, CASE WHEN ttl IS NULL THEN NULL ELSE ${NOW_MS} + ttl END FROM w WHERE state <> '${STARTED}'
           ON CONFLICT (prefix, key) DO UPDATE SET state = excluded.state, expires = excluded.expires, name = excluded.name, instance = excluded.instance`,
          [
            prefix,
            planned.map(([key]) => key),
            planned.map(([, [name]]) => name),
            planned.map(([, [, instance]]) => instance),
            planned.map(([, [, , state]]) => state),
            planned.map(([, [, , , ttl]]) =>
              ttl === null ? null : String(Math.max(1, Math.round(ttl))),
            ),
          ],
        )
        for (const [key, [, , state]] of planned) {
          if (state === STARTED) current.delete(key)
          else current.set(key, state)
        }
        return { ok: true, states: answer(current) }
      })
    } catch (err) {
      if (attempt < MAX_DEADLOCK_RETRIES && sqlState(err) === DEADLOCK) continue
      throw err
    }
  }
}

/** Whether every state read is still the state held. */
function holds(reads: readonly ScenarioRead[], current: Map<string, string>): boolean {
  return reads.every(([n, i, s]) => (current.get(rowKey(n, i)) ?? STARTED) === s)
}

async function statesOf(
  db: Pick<PgPoolLike, 'query'>,
  prefix: string,
  keys: readonly string[],
): Promise<Map<string, string>> {
  const { rows } = await db.query(
    `SELECT key, state FROM ${TABLE} WHERE prefix = $1 AND key = ANY($2::text[]) AND ${LIVE}`,
    [prefix, keys],
  )
  return new Map((rows as StateRow[]).map((r) => [r.key, r.state]))
}

function sqlState(err: unknown): string | undefined {
  return err instanceof Error && 'code' in err && typeof err.code === 'string'
    ? err.code
    : undefined
}

/**
 * Connects to the PostgreSQL database a `--scenario-store` URL names
 * (`postgres://[user:password@]host[:port]/database`, `postgresql://` too, node-postgres's
 * parameters such as `sslmode` kept; `?prefix=NAME`, default `understudy`), loading the client
 * only then, and creates the table unless it exists.
 */
export async function connectPostgresScenarios(url: string): Promise<PostgresScenarios> {
  const parsed = new URL(url)
  const prefix = parsed.searchParams.get('prefix') ?? 'understudy'
  parsed.searchParams.delete('prefix')
  let Pool: new (options: {
    connectionString: string
    connectionTimeoutMillis?: number
    max?: number
  }) => PgPoolLike & { on: (event: 'error', listener: (err: Error) => void) => unknown }
  try {
    ;({ Pool } = ((await import('pg')) as unknown as { default: { Pool: typeof Pool } }).default)
  } catch {
    throw createError('ERR_CONFIG_INVALID', [
      '--scenario-store postgres:// needs the optional package pg: npm install pg',
    ])
  }
  const pool = new Pool({ connectionString: parsed.toString(), connectionTimeoutMillis: 5000 })
  // An idle connection the server closes is replaced by the pool; a commit that fails meanwhile
  // answers 503 ERR_SERVE_SCENARIO_UNAVAILABLE.
  pool.on('error', () => {})
  const store = new PostgresScenarios(pool, prefix)
  try {
    await store.prepare()
  } catch (err) {
    await pool.end().catch(() => {})
    throw createError('ERR_CONFIG_INVALID', [
      `--scenario-store: cannot reach ${redacted(parsed)}: ${err instanceof Error ? err.message : String(err)}`,
    ])
  }
  return store
}

function redacted(url: URL): string {
  const copy = new URL(url.toString())
  if (copy.password !== '') copy.password = '***'
  return copy.toString()
}
