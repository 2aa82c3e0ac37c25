import {
  joinedUserColumns,
  withJoinedUser,
  accountMemberTable,
  workspaceMemberTable,
  invitationTable,
  accountTable,
  userTable,
  apiKeyTable,
  accountProfileTable,
  projectTable,
} from '../tables/tenancy.js'
import type { TenancyRepository } from '../repositories.js'
import type { AccountProfile } from '../types.js'
import { defineTable, type Row } from './codec.js'
import {
  listPage,
  preparedListPage,
  returnedRow,
  rowOf,
  type RepoContext,
  type SortKeys,
} from './context.js'
import { listSummary } from './list-counts.js'

/* Tenancy records: account and workspace members, invitations, projects. */

const accountMembers = defineTable(accountMemberTable)

const workspaceMembers = defineTable(workspaceMemberTable)

const invitations = defineTable(invitationTable)

const projects = defineTable(projectTable)

const accounts = defineTable(accountTable)
const apiKeys = defineTable(apiKeyTable)
const profiles = defineTable(accountProfileTable)
const users = defineTable(userTable)

const memberUserColumns = joinedUserColumns(users)
const withUser = withJoinedUser(users)

// A member's id is its user's: read from the membership, which the scope's indexes hold. The
// member lists CROSS JOIN their users so that SQLite walks the scope's memberships first: with a
// plain JOIN it walked every user of the installation by id and sorted (a second per slice of
// positions at 50,000 members).
const memberSortKeys: SortKeys = {
  id: 'm.user_id',
  email: 'u.email',
  name: 'u.first_name COLLATE NOCASE, u.last_name COLLATE NOCASE',
  created: 'm.created',
  updated: 'm.updated',
  enabled: 'm.enabled',
}
/** The member sorts an index of migration 23 serves; email and name are the users', in no index of the scope. */
const memberIndexedSorts = ['id', 'created', 'updated', 'enabled']
const accountSortKeys: SortKeys = {
  id: 'a.id',
  name: 'a.name COLLATE NOCASE',
  created: 'a.created',
  updated: 'a.updated',
}
const invitationSortKeys: SortKeys = {
  // by creation, ties by id: a keyset page continues after a (created, id) pair
  id: 'created, id',
  created: 'created',
  updated: 'updated',
  email: 'invitee_email',
}
const projectSortKeys: SortKeys = {
  id: 'id',
  name: 'name COLLATE NOCASE',
  created: 'created',
  updated: 'updated',
}

/**
 * The tenancy repository over one context.
 *
 * @example
 * const roles = (await tenancyRepository(ctx).member(1, 2))?.roles
 */
export function tenancyRepository(ctx: RepoContext): TenancyRepository {
  const { conn } = ctx
  const one = <T>(sql: string, decode: (row: Row) => T, ...params: unknown[]): T | undefined => {
    const row = rowOf(conn.statement(sql).get(...params))
    return row === undefined ? undefined : decode(row)
  }
  const getProfile = (id: number) =>
    one(`SELECT ${profiles.columns} FROM accounts WHERE id = ?`, profiles.decode, id)
  return {
    async membershipsOf(userId) {
      ctx.check()
      return (
        conn
          .statement(
            `SELECT ${accountMembers.columns} FROM account_members WHERE user_id = ? ORDER BY account_id`,
          )
          .all(userId) as Row[]
      ).map(accountMembers.decode)
    },
    async member(accountId, userId) {
      ctx.check()
      return one(
        `SELECT ${accountMembers.columns} FROM account_members WHERE account_id = ? AND user_id = ?`,
        accountMembers.decode,
        accountId,
        userId,
      )
    },
    async members(accountId, query) {
      ctx.check()
      const select =
        accountMembers.columns
          .split(', ')
          .map((c) => `m.${c}`)
          .join(', ') +
        ', ' +
        memberUserColumns
      return await preparedListPage(ctx, {
        select,
        from: 'account_members m CROSS JOIN users u ON u.id = m.user_id',
        where: 'm.account_id = @accountId',
        params: { accountId },
        sortable: memberSortKeys,
        query,
        decode: withUser(accountMembers.decode),
        idColumn: 'm.user_id',
        summary: listSummary('account_members', 'accountId'),
        scope: 'm.account_id = @accountId',
        indexedSorts: memberIndexedSorts,
      })
    },
    async setMember(input) {
      ctx.check()
      const now = ctx.now()
      const row = conn
        .statement(
          `INSERT INTO account_members (account_id, user_id, roles, enabled, created, updated)
        VALUES (@account_id, @user_id, @roles, @enabled, @created, @updated)
        ON CONFLICT (account_id, user_id) DO UPDATE SET roles = excluded.roles, enabled = excluded.enabled, updated = excluded.updated
        RETURNING ${accountMembers.columns}`,
        )
        .get(accountMembers.encode({ ...input, created: now, updated: now }))
      // The home account's copy in users stays in step, for the readers that use it.
      conn
        .statement(
          'UPDATE users SET account_roles = ?, updated = ? WHERE id = ? AND account_id = ?',
        )
        .run(JSON.stringify(input.roles), now, input.userId, input.accountId)
      return accountMembers.decode(returnedRow(row))
    },
    async countWithRole(accountId, role) {
      ctx.check()
      const sql = `SELECT COUNT(*) AS n FROM account_members m, json_each(m.roles) r WHERE m.account_id = ? AND m.enabled = 1 AND r.value = ?`
      return (conn.statement(sql).get(accountId, role) as { n: number }).n
    },
    async accountsOf(userId, query) {
      ctx.check()
      return listPage(ctx, {
        select: accounts.columns
          .split(', ')
          .map((c) => `a.${c}`)
          .join(', '),
        from: 'accounts a JOIN account_members m ON m.account_id = a.id',
        where: 'm.user_id = @userId AND m.enabled = 1',
        params: { userId },
        sortable: accountSortKeys,
        query,
        decode: accounts.decode,
        idColumn: 'a.id',
      })
    },
    async profile(accountId) {
      ctx.check()
      return getProfile(accountId)
    },
    async updateProfile(accountId, patch) {
      ctx.check()
      const current = getProfile(accountId)
      if (current === undefined) return undefined
      const next: AccountProfile = { ...current }
      if (patch.description !== undefined) next.description = patch.description
      if (patch.aiConsent !== undefined) next.aiConsent = patch.aiConsent
      if (patch.welcomeLinkText !== undefined) next.welcomeLinkText = patch.welcomeLinkText
      if (patch.welcomeLinkUrl !== undefined) next.welcomeLinkUrl = patch.welcomeLinkUrl
      conn
        .statement(
          'UPDATE accounts SET description = @description, ai_consent = @ai_consent, welcome_link_text = @welcome_link_text, welcome_link_url = @welcome_link_url, updated = @now WHERE id = @id',
        )
        .run({ ...profiles.encode(next), now: ctx.now() })
      return getProfile(accountId)
    },
    async firstAccountId() {
      ctx.check()
      return (
        (conn.statement('SELECT min(id) AS id FROM accounts').get() as { id: number | null }).id ??
        undefined
      )
    },
    async renameAccount(accountId, name) {
      ctx.check()
      return (
        conn
          .statement('UPDATE accounts SET name = ?, updated = ? WHERE id = ?')
          .run(name, ctx.now(), accountId).changes > 0
      )
    },

    async workspaceMember(workspaceId, userId) {
      ctx.check()
      return one(
        `SELECT ${workspaceMembers.columns} FROM workspace_members WHERE workspace_id = ? AND user_id = ?`,
        workspaceMembers.decode,
        workspaceId,
        userId,
      )
    },
    async workspaceMembers(workspaceId, query) {
      ctx.check()
      const select =
        workspaceMembers.columns
          .split(', ')
          .map((c) => `m.${c}`)
          .join(', ') +
        ', ' +
        memberUserColumns
      return await preparedListPage(ctx, {
        select,
        from: 'workspace_members m CROSS JOIN users u ON u.id = m.user_id',
        where: 'm.workspace_id = @workspaceId',
        params: { workspaceId },
        sortable: memberSortKeys,
        query,
        decode: withUser(workspaceMembers.decode),
        idColumn: 'm.user_id',
        summary: listSummary('workspace_members', 'workspaceId'),
        scope: 'm.workspace_id = @workspaceId',
        indexedSorts: memberIndexedSorts,
      })
    },
    async setWorkspaceMember(input) {
      ctx.check()
      const now = ctx.now()
      return workspaceMembers.decode(
        returnedRow(
          conn
            .statement(
              `INSERT INTO workspace_members (workspace_id, user_id, role, enabled, created, updated)
        VALUES (@workspace_id, @user_id, @role, @enabled, @created, @updated)
        ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = excluded.role, enabled = excluded.enabled, updated = excluded.updated
        RETURNING ${workspaceMembers.columns}`,
            )
            .get(workspaceMembers.encode({ ...input, created: now, updated: now })),
        ),
      )
    },
    async removeWorkspaceMember(workspaceId, userId) {
      ctx.check()
      return (
        conn
          .statement('DELETE FROM workspace_members WHERE workspace_id = ? AND user_id = ?')
          .run(workspaceId, userId).changes > 0
      )
    },
    async countWorkspaceMembers(workspaceIds) {
      ctx.check()
      const out = new Map<number, number>()
      if (workspaceIds.length === 0) return out
      const rows = conn
        .statement(
          'SELECT workspace_id AS w, COUNT(*) AS n FROM workspace_members WHERE workspace_id IN (SELECT value FROM json_each(?)) AND enabled = 1 GROUP BY workspace_id',
        )
        .all(JSON.stringify(workspaceIds)) as Array<{ w: number; n: number }>
      for (const { w, n } of rows) out.set(w, n)
      return out
    },
    async workspaceRolesOf(accountId, userId) {
      ctx.check()
      const sql = `SELECT ${workspaceMembers.columns
        .split(', ')
        .map((c) => `m.${c}`)
        .join(', ')} FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
        WHERE w.account_id = ? AND m.user_id = ? AND m.enabled = 1 ORDER BY m.workspace_id`
      return (conn.statement(sql).all(accountId, userId) as Row[]).map(workspaceMembers.decode)
    },

    async createInvitation(input) {
      ctx.check()
      const now = ctx.now()
      return invitations.decode(
        returnedRow(
          conn
            .statement(invitations.insertSql)
            .get(invitations.encode({ ...input, created: now, updated: now })),
        ),
      )
    },
    async invitationByToken(token) {
      ctx.check()
      return one(
        `SELECT ${invitations.columns} FROM invitations WHERE token = ?`,
        invitations.decode,
        token,
      )
    },
    async invitations(accountId, query) {
      ctx.check()
      return await preparedListPage(ctx, {
        select: invitations.columns,
        from: 'invitations',
        where: 'account_id = @accountId',
        params: { accountId },
        sortable: invitationSortKeys,
        query,
        decode: invitations.decode,
        idColumn: 'id',
        summary: listSummary('invitations', 'accountId'),
        scope: 'account_id = @accountId',
        indexedSorts: Object.keys(invitationSortKeys),
      })
    },
    async pendingInvitation(accountId, email) {
      ctx.check()
      return one(
        `SELECT ${invitations.columns} FROM invitations WHERE account_id = ? AND invitee_email = ? AND status = 'pending'`,
        invitations.decode,
        accountId,
        email,
      )
    },
    async setInvitationStatus(id, status, inviteeUserId) {
      ctx.check()
      const row = rowOf(
        conn
          .statement(
            `UPDATE invitations SET status = ?, invitee_user_id = coalesce(?, invitee_user_id), updated = ? WHERE id = ? RETURNING ${invitations.columns}`,
          )
          .get(status, inviteeUserId, ctx.now(), id),
      )
      return row === undefined ? undefined : invitations.decode(row)
    },

    async createProject(input) {
      ctx.check()
      const now = ctx.now()
      return projects.decode(
        returnedRow(
          conn
            .statement(projects.insertSql)
            .get(projects.encode({ ...input, created: now, updated: now })),
        ),
      )
    },
    async project(id) {
      ctx.check()
      return one(`SELECT ${projects.columns} FROM projects WHERE id = ?`, projects.decode, id)
    },
    async projects(filter, query) {
      ctx.check()
      const where = ['workspace_id IN (SELECT value FROM json_each(@workspaceIds))']
      const params: Row = { workspaceIds: JSON.stringify(filter.workspaceIds) }
      if (filter.name !== undefined) {
        where.push('name = @name')
        params['name'] = filter.name
      }
      return listPage(ctx, {
        select: projects.columns,
        from: 'projects',
        where: where.join(' AND '),
        params,
        sortable: projectSortKeys,
        query,
        decode: projects.decode,
      })
    },
    async defaultProject(workspaceId) {
      ctx.check()
      return one(
        `SELECT ${projects.columns} FROM projects WHERE workspace_id = ? AND is_default = 1`,
        projects.decode,
        workspaceId,
      )
    },

    async apiKeysOf(userId) {
      ctx.check()
      return (
        conn
          .statement(
            `SELECT ${apiKeys.columns} FROM api_keys WHERE user_id = ? ORDER BY created, id`,
          )
          .all(userId) as Row[]
      ).map(apiKeys.decode)
    },
    async revokeApiKey(userId, id) {
      ctx.check()
      return (
        conn
          .statement(
            'UPDATE api_keys SET revoked = ? WHERE id = ? AND user_id = ? AND revoked IS NULL',
          )
          .run(ctx.now(), id, userId).changes > 0
      )
    },
    async setActiveWorkspace(userId, workspaceId) {
      ctx.check()
      conn
        .statement('UPDATE users SET active_workspace_id = ?, updated = ? WHERE id = ?')
        .run(workspaceId, ctx.now(), userId)
    },
    async userExtras(userId) {
      ctx.check()
      const row = conn
        .statement('SELECT created, updated, active_workspace_id AS a FROM users WHERE id = ?')
        .get(userId) as { created: number; updated: number | null; a: number | null } | undefined
      return row === undefined
        ? undefined
        : { updated: row.updated ?? row.created, activeWorkspaceId: row.a }
    },
  }
}
