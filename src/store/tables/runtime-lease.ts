import type { RuntimeLease } from '../types.js'
import { tableSql, type ColumnKinds, type TableSpec } from './columns.js'

/*
 * The statements of the runtime lease repositories, in the dialect both stores read (named
 * `@params`; SQLite and PostgreSQL both have upserts with a condition and RETURNING). Only the
 * document's column type differs: text in SQLite, json in PostgreSQL.
 */

/** Every RuntimeLease field with how its column in runtime_leases keeps it. */
export const runtimeLeaseColumns = {
  mockServiceId: 'value',
  holder: 'value',
  home: 'value',
  expires: 'value',
  handover: 'value',
  startId: 'value',
  adminUrl: 'value',
  pid: 'value',
  document: 'json',
  updated: 'value',
} as const satisfies ColumnKinds<RuntimeLease>

/** The runtime_leases table: its name, key and columns; each store decodes its rows with it. */
export const runtimeLeaseTable: TableSpec<RuntimeLease> = {
  table: 'runtime_leases',
  key: 'mockServiceId',
  kinds: runtimeLeaseColumns,
  generatedKey: false,
}

const COLUMNS = tableSql(
  runtimeLeaseTable.table,
  runtimeLeaseTable.key,
  runtimeLeaseTable.kinds,
  runtimeLeaseTable.generatedKey,
).columns

/** What the process of a lease that changes hands was is forgotten: it was the old holder's. */
const sameHolderOr = (column: string): string =>
  `${column} = CASE WHEN runtime_leases.holder = excluded.holder THEN runtime_leases.${column} ELSE NULL END`

/**
 * Takes the lease when free, expired (or released: 0), the holder's own, or (`@adopt`, 1 or
 * true) held by the same home; a lease that does not change answers no row.
 */
export function claimSql(adopt: string): string {
  return `INSERT INTO runtime_leases (mock_service_id, holder, home, expires, updated)
VALUES (@mockServiceId, @holder, @home, @expires, @now)
ON CONFLICT (mock_service_id) DO UPDATE SET
  holder = excluded.holder, home = excluded.home, expires = excluded.expires, updated = excluded.updated,
  handover = CASE WHEN runtime_leases.handover = excluded.holder THEN NULL ELSE runtime_leases.handover END,
  ${sameHolderOr('start_id')}, ${sameHolderOr('admin_url')}, ${sameHolderOr('pid')}
WHERE runtime_leases.holder = excluded.holder OR runtime_leases.expires < @now
  OR (${adopt} AND runtime_leases.home = excluded.home)
RETURNING ${COLUMNS}`
}

export const getSql = `SELECT ${COLUMNS} FROM runtime_leases WHERE mock_service_id = @mockServiceId`

export const renewSql = `UPDATE runtime_leases SET expires = @expires
WHERE holder = @holder AND expires > 0 RETURNING ${COLUMNS}`

export const requestHandoverSql = `UPDATE runtime_leases SET handover = @requester
WHERE mock_service_id = @mockServiceId AND holder <> @requester`

/** The new holder's home is set by its own claim, which follows: until then no home re-adopts it. */
export const handOverSql = `UPDATE runtime_leases SET holder = @to, home = '', expires = @expires, handover = NULL,
  start_id = NULL, admin_url = NULL, pid = NULL, updated = @now
WHERE mock_service_id = @mockServiceId AND holder = @from RETURNING mock_service_id`

export const releaseAllSql = `UPDATE runtime_leases SET expires = 0, start_id = NULL, admin_url = NULL,
  pid = NULL, updated = @now WHERE holder = @holder RETURNING mock_service_id`

export const removeSql =
  'DELETE FROM runtime_leases WHERE mock_service_id = @mockServiceId AND holder = @holder RETURNING mock_service_id'

/** Only of mock services whose record wants them running: stopped ones are nobody's work. */
export const expiredSql = `SELECT ${COLUMNS.split(', ')
  .map((c) => `l.${c}`)
  .join(', ')} FROM runtime_leases l JOIN mock_services m ON m.id = l.mock_service_id
WHERE l.expires < @now AND m.status IN ('RUNNING', 'PENDING') ORDER BY l.mock_service_id`

export const insertSecretSql =
  'INSERT INTO platform_secrets (name, value) VALUES (@name, @value) ON CONFLICT (name) DO NOTHING'

export const secretSql = 'SELECT value FROM platform_secrets WHERE name = @name'

/**
 * The UPDATE of the facts given (only those: a configure records the document and keeps the
 * process), with their named parameters; null when none is given.
 */
export function recordSql(
  facts: Partial<Pick<RuntimeLease, 'startId' | 'adminUrl' | 'pid' | 'document'>>,
): { sql: string; params: Record<string, unknown> } {
  const sets: string[] = ['updated = @now']
  const params: Record<string, unknown> = {}
  const columns = { startId: 'start_id', adminUrl: 'admin_url', pid: 'pid' } as const
  for (const key of ['startId', 'adminUrl', 'pid'] as const) {
    if (facts[key] === undefined) continue
    sets.push(`${columns[key]} = @${key}`)
    params[key] = facts[key]
  }
  if (facts.document !== undefined) {
    sets.push('document = @document')
    // JSON text: SQLite keeps it as is and PostgreSQL casts it to its json column.
    params['document'] = facts.document === null ? null : JSON.stringify(facts.document)
  }
  return {
    sql: `UPDATE runtime_leases SET ${sets.join(', ')} WHERE mock_service_id = @mockServiceId AND holder = @holder RETURNING mock_service_id`,
    params,
  }
}
