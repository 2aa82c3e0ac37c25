import { onTestFinished } from 'vitest'
import { openPgPool, type PgPool } from '../../../../src/store/postgres/connection.js'
import type { PgRepoContext } from '../../../../src/store/postgres/context.js'
import { applyPgMigrations } from '../../../../src/store/postgres/migrate.js'
import { pgMigrations } from '../../../../src/store/postgres/migrations/index.js'
import {
  pgOperationsRepositories,
  type OperationsRepositories,
} from '../../../../src/store/postgres/operations-repositories.js'
import { freshPgDatabase, PG_SKIP_REASON } from '../../../helpers/postgres.js'

export const BY = 'ada@example.com'

/** The parent rows the operations tables reference, made with plain SQL (the catalog is another module's). */
interface PgWorld {
  accountId: number
  otherAccountId: number
  userId: number
  workspaceId: number
  otherWorkspaceId: number
  foreignWorkspaceId: number
  serviceId: number
  otherServiceId: number
  transactionId: number
}

/**
 * A fresh database with the whole schema, the operations repositories over its pool (a clock that
 * moves one second per call), and a seeded world; everything closed when the test finishes.
 */
export async function openPgOperations(): Promise<{
  pool: PgPool
  repos: OperationsRepositories
  ctx: PgRepoContext
  world: PgWorld
}> {
  const url = await freshPgDatabase()
  if (url === undefined) throw new Error(PG_SKIP_REASON)
  const pool = openPgPool(url)
  onTestFinished(async () => await pool.close())
  await applyPgMigrations(pool, pgMigrations)
  let now = 1_700_000_000_000
  const ctx: PgRepoContext = { db: pool, check: () => {}, now: () => (now += 1000) }
  return { pool, repos: pgOperationsRepositories(ctx), ctx, world: await seedWorld(pool) }
}

async function seedWorld(pool: PgPool): Promise<PgWorld> {
  const id = async (sql: string, params: unknown[]): Promise<number> =>
    ((await pool.query<{ id: number }>(`${sql} RETURNING id`, params))[0] as { id: number }).id
  const account = async (name: string): Promise<number> =>
    await id('INSERT INTO accounts (name, created, updated) VALUES ($1, 1, 1)', [name])
  const accountId = await account('acme')
  const otherAccountId = await account('globex')
  const user = async (accountId: number, email: string): Promise<number> =>
    await id(
      `INSERT INTO users (account_id, email, first_name, last_name, enabled, account_roles, created) VALUES ($1, $2, 'A', 'B', true, '["owner"]', 1)`,
      [accountId, email],
    )
  const userId = await user(accountId, BY)
  const strangerId = await user(otherAccountId, 'hank@globex.test')
  const workspace = async (accountId: number, userId: number, name: string): Promise<number> =>
    await id(
      'INSERT INTO workspaces (account_id, name, enabled, dedicated_ips_enabled, private_locations_enabled, user_id, created, updated) VALUES ($1, $2, true, false, false, $3, 1, 1)',
      [accountId, name, userId],
    )
  const workspaceId = await workspace(accountId, userId, 'main')
  const otherWorkspaceId = await workspace(accountId, userId, 'second')
  const foreignWorkspaceId = await workspace(otherAccountId, strangerId, 'theirs')
  const service = async (workspaceId: number): Promise<number> =>
    await id(
      `INSERT INTO services (workspace_id, name, created, updated, created_by, updated_by) VALUES ($1, 'pets', 1, 1, $2, $2)`,
      [workspaceId, BY],
    )
  const serviceId = await service(workspaceId)
  const otherServiceId = await service(otherWorkspaceId)
  const transactionId = await id(
    `INSERT INTO transactions (workspace_id, service_id, name, dsl_type, dsl, created, updated, created_by, updated_by) VALUES ($1, $2, 't', 'GENERIC_DSL', '{"requestDsl":{}}', 1, 1, $3, $3)`,
    [workspaceId, serviceId, BY],
  )
  return {
    accountId,
    otherAccountId,
    userId,
    workspaceId,
    otherWorkspaceId,
    foreignWorkspaceId,
    serviceId,
    otherServiceId,
    transactionId,
  }
}

export const ALL = { limit: 1000, skip: 0 }
