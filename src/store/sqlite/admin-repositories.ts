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
import type { User, Workspace } from '../types.js'
import { mergePatch } from '../tables/columns.js'
import { defineTable } from './codec.js'
import { preparedListPage, returnedRow, rowOf, type RepoContext, type SortKeys } from './context.js'
import { listSummary } from './list-counts.js'

/* The records of the administration specification: accounts, users, API keys, workspaces. */

const accounts = defineTable(accountTable)

const users = defineTable(userTable)

const apiKeys = defineTable(apiKeyTable)

const workspaces = defineTable(workspaceTable)

const userSortKeys: SortKeys = {
  id: 'id',
  email: 'email',
  // the administration specification shows a displayName, "first last".
  name: 'first_name COLLATE NOCASE, last_name COLLATE NOCASE',
  firstName: 'first_name COLLATE NOCASE',
  lastName: 'last_name COLLATE NOCASE',
  enabled: 'enabled',
  created: 'created',
  lastAccess: 'last_access',
}
/** The user sorts an index of migration 23 serves (`lastAccess` may be NULL, which keyset pages cannot follow). */
const userIndexedSorts = ['id', 'email', 'name', 'firstName', 'lastName', 'enabled', 'created']

const workspaceSortKeys: SortKeys = {
  id: 'id',
  name: 'name COLLATE NOCASE',
  enabled: 'enabled',
  created: 'created',
  updated: 'updated',
}

/**
 * Accounts.
 *
 * @example
 * const account = await accountRepository(ctx).create({ name: 'acme' })
 */
export function accountRepository(ctx: RepoContext): AccountRepository {
  const { conn } = ctx
  return {
    async create(input) {
      ctx.check()
      const now = ctx.now()
      return accounts.decode(
        returnedRow(
          conn
            .statement(accounts.insertSql)
            .get(accounts.encode({ name: input.name, created: now, updated: now })),
        ),
      )
    },
    async get(id) {
      ctx.check()
      const row = rowOf(
        conn.statement(`SELECT ${accounts.columns} FROM accounts WHERE id = ?`).get(id),
      )
      return row === undefined ? undefined : accounts.decode(row)
    },
    async count() {
      ctx.check()
      return (conn.statement('SELECT COUNT(*) AS n FROM accounts').get() as { n: number }).n
    },
  }
}

/**
 * Users. Emails are unique and compared without ASCII case (they are logins).
 *
 * @example
 * const user = await userRepository(ctx).getByEmail('Ada@Example.com')
 */
export function userRepository(ctx: RepoContext): UserRepository {
  const { conn } = ctx
  const get = (id: number): User | undefined => {
    const row = rowOf(conn.statement(`SELECT ${users.columns} FROM users WHERE id = ?`).get(id))
    return row === undefined ? undefined : users.decode(row)
  }
  return {
    async create(input) {
      ctx.check()
      const record = newUser(input, ctx.now())
      const user = users.decode(
        returnedRow(conn.statement(users.insertSql).get(users.encode(record))),
      )
      // Membership of the home account (migration 2): account_members is what access checks read.
      conn.statement('UPDATE users SET updated = created WHERE id = ?').run(user.id)
      conn
        .statement(
          'INSERT INTO account_members (account_id, user_id, roles, enabled, created, updated) VALUES (?, ?, ?, ?, ?, ?)',
        )
        .run(
          user.accountId,
          user.id,
          JSON.stringify(user.accountRoles),
          user.enabled ? 1 : 0,
          user.created,
          user.created,
        )
      return user
    },
    async get(id) {
      ctx.check()
      return get(id)
    },
    async getByEmail(email) {
      ctx.check()
      const row = rowOf(
        conn.statement(`SELECT ${users.columns} FROM users WHERE email = ?`).get(email),
      )
      return row === undefined ? undefined : users.decode(row)
    },
    async listByAccount(accountId, query) {
      ctx.check()
      return await preparedListPage(ctx, {
        select: users.columns,
        from: 'users',
        where: 'account_id = @accountId',
        params: { accountId },
        sortable: userSortKeys,
        query,
        decode: users.decode,
        summary: listSummary('users', 'accountId'),
        scope: 'account_id = @accountId',
        indexedSorts: userIndexedSorts,
      })
    },
    async update(id, patch) {
      ctx.check()
      const current = get(id)
      if (current === undefined) return undefined
      const next = mergePatch(current, patch, userUpdatable)
      return users.decode(returnedRow(conn.statement(users.updateSql).get(users.encode(next))))
    },
  }
}

/**
 * API keys, looked up by their public id on every authenticated request.
 *
 * @example
 * const key = await apiKeyRepository(ctx).get('k1')
 */
export function apiKeyRepository(ctx: RepoContext): ApiKeyRepository {
  const { conn } = ctx
  return {
    async create(input) {
      ctx.check()
      const record = newApiKey(input, ctx.now())
      return apiKeys.decode(
        returnedRow(conn.statement(apiKeys.insertSql).get(apiKeys.encode(record))),
      )
    },
    async get(id) {
      ctx.check()
      const row = rowOf(
        conn.statement(`SELECT ${apiKeys.columns} FROM api_keys WHERE id = ?`).get(id),
      )
      return row === undefined ? undefined : apiKeys.decode(row)
    },
    async touch(id, when) {
      ctx.check()
      // Never moves lastUsed backwards when touches arrive out of order.
      conn
        .statement(
          'UPDATE api_keys SET last_used = ? WHERE id = ? AND (last_used IS NULL OR last_used < ?)',
        )
        .run(when, id, when)
    },
  }
}

/**
 * Workspaces.
 *
 * @example
 * const page = await workspaceRepository(ctx).listByAccount(1, { limit: 50, skip: 0, sort: 'name' })
 */
export function workspaceRepository(ctx: RepoContext): WorkspaceRepository {
  const { conn } = ctx
  const get = (id: number): Workspace | undefined => {
    const row = rowOf(
      conn.statement(`SELECT ${workspaces.columns} FROM workspaces WHERE id = ?`).get(id),
    )
    return row === undefined ? undefined : workspaces.decode(row)
  }
  return {
    async create(input) {
      ctx.check()
      const now = ctx.now()
      const record = newWorkspace(input, now)
      const workspace = workspaces.decode(
        returnedRow(conn.statement(workspaces.insertSql).get(workspaces.encode(record))),
      )
      // Its creator manages it, and it has its default project (migration 2).
      conn
        .statement(
          "INSERT INTO workspace_members (workspace_id, user_id, role, enabled, created, updated) VALUES (?, ?, 'manager', 1, ?, ?)",
        )
        .run(workspace.id, workspace.userId, now, now)
      conn
        .statement(
          "INSERT INTO projects (workspace_id, name, description, is_default, user_id, created, updated) VALUES (?, 'Default project', NULL, 1, ?, ?, ?)",
        )
        .run(workspace.id, workspace.userId, now, now)
      return workspace
    },
    async get(id) {
      ctx.check()
      return get(id)
    },
    async listByAccount(accountId, query) {
      ctx.check()
      return await preparedListPage(ctx, {
        select: workspaces.columns,
        from: 'workspaces',
        where: 'account_id = @accountId',
        params: { accountId },
        sortable: workspaceSortKeys,
        query,
        decode: workspaces.decode,
        summary: listSummary('workspaces', 'accountId'),
        scope: 'account_id = @accountId',
        indexedSorts: Object.keys(workspaceSortKeys),
      })
    },
    async update(id, patch) {
      ctx.check()
      const current = get(id)
      if (current === undefined) return undefined
      const next = mergePatch(current, patch, workspaceUpdatable)
      next.updated = ctx.now()
      return workspaces.decode(
        returnedRow(conn.statement(workspaces.updateSql).get(workspaces.encode(next))),
      )
    },
  }
}
