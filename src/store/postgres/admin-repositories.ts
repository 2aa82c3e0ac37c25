import { workspaceUpdatable, workspaceTable, newWorkspace } from '../tables/admin.js'
import {
  userUpdatable,
  accountTable,
  userTable,
  apiKeyTable,
  newUser,
  newApiKey,
} from '../tables/tenancy.js'
import type {
  AccountRepository,
  ApiKeyRepository,
  UserRepository,
  WorkspaceRepository,
} from '../repositories.js'
import { mergePatch } from '../tables/columns.js'
import type { User, Workspace } from '../types.js'
import { definePgTable } from './codec.js'
import type { PgRepoContext } from './context.js'
import { pgListPage, type PgSortKeys } from './list.js'
import { pgListSummary } from './list-counts.js'
import { all, one, returned } from './sql.js'

/* Accounts, users, API keys and workspaces in PostgreSQL: the SQLite store's semantics. */

export const pgAccounts = definePgTable(accountTable)

export const pgUsers = definePgTable(userTable)

export const pgApiKeys = definePgTable(apiKeyTable)

const workspaces = definePgTable(workspaceTable)

const userSortKeys: PgSortKeys = {
  id: 'id',
  email: 'email',
  name: 'lower(first_name), lower(last_name)',
  firstName: 'lower(first_name)',
  lastName: 'lower(last_name)',
  enabled: 'enabled',
  created: 'created',
  lastAccess: 'last_access',
}

const workspaceSortKeys: PgSortKeys = {
  id: 'id',
  name: 'lower(name)',
  enabled: 'enabled',
  created: 'created',
  updated: 'updated',
}

/**
 * Accounts.
 *
 * @example
 * const account = await pgAccountRepository(ctx).create({ name: 'acme' })
 */
export function pgAccountRepository(ctx: PgRepoContext): AccountRepository {
  return {
    async create(input) {
      ctx.check()
      const now = ctx.now()
      const record = pgAccounts.encode({ name: input.name, created: now, updated: now })
      return pgAccounts.decode(returned(await one(ctx.db, pgAccounts.insertSql, record)))
    },
    async get(id) {
      ctx.check()
      const row = await one(ctx.db, `SELECT ${pgAccounts.columns} FROM accounts WHERE id = @id`, {
        id,
      })
      return row === undefined ? undefined : pgAccounts.decode(row)
    },
    async count() {
      ctx.check()
      return (await one(ctx.db, 'SELECT COUNT(*) AS n FROM accounts'))?.['n'] as number
    },
  }
}

/**
 * Users. Emails are unique and compared without ASCII case (they are logins).
 *
 * @example
 * const user = await pgUserRepository(ctx).getByEmail('Ada@Example.com')
 */
export function pgUserRepository(ctx: PgRepoContext): UserRepository {
  const get = async (id: number): Promise<User | undefined> => {
    const row = await one(ctx.db, `SELECT ${pgUsers.columns} FROM users WHERE id = @id`, { id })
    return row === undefined ? undefined : pgUsers.decode(row)
  }
  return {
    async create(input) {
      ctx.check()
      const record = newUser(input, ctx.now())
      const user = pgUsers.decode(
        returned(await one(ctx.db, pgUsers.insertSql, pgUsers.encode(record))),
      )
      await one(ctx.db, 'UPDATE users SET updated = created WHERE id = @id', { id: user.id })
      // The membership of the home account: account_members is what access checks read.
      await one(
        ctx.db,
        'INSERT INTO account_members (account_id, user_id, roles, enabled, created, updated) VALUES (@account, @user, @roles, @enabled, @now, @now)',
        {
          account: user.accountId,
          user: user.id,
          roles: JSON.stringify(user.accountRoles),
          enabled: user.enabled,
          now: user.created,
        },
      )
      return user
    },
    async get(id) {
      ctx.check()
      return await get(id)
    },
    async getByEmail(email) {
      ctx.check()
      const row = await one(
        ctx.db,
        `SELECT ${pgUsers.columns} FROM users WHERE lower(email) = lower(@email)`,
        { email },
      )
      return row === undefined ? undefined : pgUsers.decode(row)
    },
    async listByAccount(accountId, query) {
      ctx.check()
      return await pgListPage(ctx, {
        select: pgUsers.columns,
        from: 'users',
        where: 'account_id = @accountId',
        params: { accountId },
        sortable: userSortKeys,
        query,
        decode: pgUsers.decode,
        summary: pgListSummary('users', 'accountId'),
      })
    },
    async update(id, patch) {
      ctx.check()
      const current = await get(id)
      if (current === undefined) return undefined
      const next = mergePatch(current, patch, userUpdatable)
      return pgUsers.decode(returned(await one(ctx.db, pgUsers.updateSql, pgUsers.encode(next))))
    },
  }
}

/**
 * API keys, looked up by their public id on every authenticated request.
 *
 * @example
 * const key = await pgApiKeyRepository(ctx).get('k1')
 */
export function pgApiKeyRepository(ctx: PgRepoContext): ApiKeyRepository {
  return {
    async create(input) {
      ctx.check()
      const record = newApiKey(input, ctx.now())
      return pgApiKeys.decode(
        returned(await one(ctx.db, pgApiKeys.insertSql, pgApiKeys.encode(record))),
      )
    },
    async get(id) {
      ctx.check()
      const row = await one(ctx.db, `SELECT ${pgApiKeys.columns} FROM api_keys WHERE id = @id`, {
        id,
      })
      return row === undefined ? undefined : pgApiKeys.decode(row)
    },
    async touch(id, when) {
      ctx.check()
      // Never moves lastUsed backwards when touches arrive out of order.
      await all(
        ctx.db,
        'UPDATE api_keys SET last_used = @when WHERE id = @id AND (last_used IS NULL OR last_used < @when)',
        { id, when },
      )
    },
  }
}

/**
 * Workspaces: a new one is managed by its creator and has its default project.
 *
 * @example
 * const page = await pgWorkspaceRepository(ctx).listByAccount(1, { limit: 50, skip: 0, sort: 'name' })
 */
export function pgWorkspaceRepository(ctx: PgRepoContext): WorkspaceRepository {
  const get = async (id: number): Promise<Workspace | undefined> => {
    const row = await one(ctx.db, `SELECT ${workspaces.columns} FROM workspaces WHERE id = @id`, {
      id,
    })
    return row === undefined ? undefined : workspaces.decode(row)
  }
  return {
    async create(input) {
      ctx.check()
      const now = ctx.now()
      const record = newWorkspace(input, now)
      const workspace = workspaces.decode(
        returned(await one(ctx.db, workspaces.insertSql, workspaces.encode(record))),
      )
      const params = { ws: workspace.id, user: workspace.userId, now }
      await one(
        ctx.db,
        "INSERT INTO workspace_members (workspace_id, user_id, role, enabled, created, updated) VALUES (@ws, @user, 'manager', TRUE, @now, @now)",
        params,
      )
      await one(
        ctx.db,
        "INSERT INTO projects (workspace_id, name, description, is_default, user_id, created, updated) VALUES (@ws, 'Default project', NULL, TRUE, @user, @now, @now)",
        params,
      )
      return workspace
    },
    async get(id) {
      ctx.check()
      return await get(id)
    },
    async listByAccount(accountId, query) {
      ctx.check()
      return await pgListPage(ctx, {
        select: workspaces.columns,
        from: 'workspaces',
        where: 'account_id = @accountId',
        params: { accountId },
        sortable: workspaceSortKeys,
        query,
        decode: workspaces.decode,
        summary: pgListSummary('workspaces', 'accountId'),
      })
    },
    async update(id, patch) {
      ctx.check()
      const current = await get(id)
      if (current === undefined) return undefined
      const next = mergePatch(current, patch, workspaceUpdatable)
      next.updated = ctx.now()
      return workspaces.decode(
        returned(await one(ctx.db, workspaces.updateSql, workspaces.encode(next))),
      )
    },
  }
}
