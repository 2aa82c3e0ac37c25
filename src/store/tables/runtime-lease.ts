import type { RuntimeLease } from '../types.js'

/*
 * The statements of the runtime lease repositories, in the dialect both stores read (named
 * `@params`; SQLite and PostgreSQL both have upserts with a condition and RETURNING). Only the
 * document's column type differs: text in SQLite, json in PostgreSQL.
 */

const COLUMNS =
  'mock_service_id, holder, home, expires, handover, start_id, admin_url, pid, document, updated'

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
  encodeDocument: (document: Record<string, unknown> | null) => unknown,
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
    params['document'] = encodeDocument(facts.document)
  }
  return {
    sql: `UPDATE runtime_leases SET ${sets.join(', ')} WHERE mock_service_id = @mockServiceId AND holder = @holder RETURNING mock_service_id`,
    params,
  }
}

/** A lease from its row, the document decoded by the store's own reader. */
export function leaseOf(
  row: Record<string, unknown>,
  decodeDocument: (value: unknown) => Record<string, unknown> | null,
): RuntimeLease {
  return {
    mockServiceId: Number(row['mock_service_id']),
    holder: String(row['holder']),
    home: String(row['home']),
    expires: Number(row['expires']),
    handover: (row['handover'] as string | null) ?? null,
    startId: (row['start_id'] as string | null) ?? null,
    adminUrl: (row['admin_url'] as string | null) ?? null,
    pid: row['pid'] === null || row['pid'] === undefined ? null : Number(row['pid']),
    document: decodeDocument(row['document']),
    updated: Number(row['updated']),
  }
}
