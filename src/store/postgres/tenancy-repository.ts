import {
  joinedUserColumns,
  withJoinedUser,
  projectTable,
  accountMemberTable,
  workspaceMemberTable,
  invitationTable,
  accountProfileTable,
} from '../tables/tenancy.js'
import type { TenancyRepository } from '../repositories.js'
import type { AccountProfile } from '../types.js'
import { pgAccounts, pgApiKeys, pgUsers } from './admin-repositories.js'
import { definePgTable } from './codec.js'
import type { PgRepoContext } from './context.js'
import { pgListPage, type PgSortKeys } from './list.js'
import { pgListSummary } from './list-counts.js'
import { all, one, returned, type Row } from './sql.js'

/* Tenancy records in PostgreSQL: account and workspace members, invitations, projects. */

const accountMembers = definePgTable(accountMemberTable)

const workspaceMembers = definePgTable(workspaceMemberTable)

const invitations = definePgTable(invitationTable)

const projects = definePgTable(projectTable)

const profiles = definePgTable(accountProfileTable)

const prefixed = (columns: string, alias: string): string =>
  columns
    .split(', ')
    .map((c) => `${alias}.${c}`)
    .join(', ')

const memberUserColumns = joinedUserColumns(pgUsers)
const withUser = withJoinedUser(pgUsers)

// A member's id is its user's, read from the membership, which the scope's indexes hold.
const memberSortKeys: PgSortKeys = {
  id: 'm.user_id',
  email: 'u.email',
  name: 'lower(u.first_name), lower(u.last_name)',
  created: 'm.created',
  updated: 'm.updated',
  enabled: 'm.enabled',
}
const accountSortKeys: PgSortKeys = {
  id: 'a.id',
  name: 'lower(a.name)',
  created: 'a.created',
  updated: 'a.updated',
}
const invitationSortKeys: PgSortKeys = {
  // by creation, ties by id: a keyset page continues after a (created, id) pair
  id: 'created, id',
  created: 'created',
  updated: 'updated',
  email: 'invitee_email',
}
const projectSortKeys: PgSortKeys = {
  id: 'id',
  name: 'lower(name)',
  created: 'created',
  updated: 'updated',
}

/**
 * The tenancy repository over one context.
 *
 * @example
 * const roles = (await pgTenancyRepository(ctx).member(1, 2))?.roles
 */
export function pgTenancyRepository(ctx: PgRepoContext): TenancyRepository {
  const first = async <T>(
    sql: string,
    decode: (row: Row) => T,
    params: Row,
  ): Promise<T | undefined> => {
    const row = await one(ctx.db, sql, params)
    return row === undefined ? undefined : decode(row)
  }
  const getProfile = async (id: number): Promise<AccountProfile | undefined> =>
    await first(`SELECT ${profiles.columns} FROM accounts WHERE id = @id`, profiles.decode, { id })
  return {
    async membershipsOf(userId) {
      ctx.check()
      const rows = await all(
        ctx.db,
        `SELECT ${accountMembers.columns} FROM account_members WHERE user_id = @userId ORDER BY account_id`,
        { userId },
      )
      return rows.map(accountMembers.decode)
    },
    async member(accountId, userId) {
      ctx.check()
      return await first(
        `SELECT ${accountMembers.columns} FROM account_members WHERE account_id = @accountId AND user_id = @userId`,
        accountMembers.decode,
        { accountId, userId },
      )
    },
    async members(accountId, query) {
      ctx.check()
      return await pgListPage(ctx, {
        select: `${prefixed(accountMembers.columns, 'm')}, ${memberUserColumns}`,
        from: 'account_members m JOIN users u ON u.id = m.user_id',
        where: 'm.account_id = @accountId',
        params: { accountId },
        sortable: memberSortKeys,
        query,
        decode: withUser(accountMembers.decode),
        idColumn: 'm.user_id',
        summary: pgListSummary('account_members', 'accountId'),
      })
    },
    async setMember(input) {
      ctx.check()
      const now = ctx.now()
      const row = await one(
        ctx.db,
        `INSERT INTO account_members (account_id, user_id, roles, enabled, created, updated)
        VALUES (@account_id, @user_id, @roles, @enabled, @created, @updated)
        ON CONFLICT (account_id, user_id) DO UPDATE SET roles = excluded.roles, enabled = excluded.enabled, updated = excluded.updated
        RETURNING ${accountMembers.columns}`,
        accountMembers.encode({ ...input, created: now, updated: now }),
      )
      // The home account's copy in users stays in step, for the readers that use it.
      await all(
        ctx.db,
        'UPDATE users SET account_roles = @roles, updated = @now WHERE id = @userId AND account_id = @accountId',
        {
          roles: JSON.stringify(input.roles),
          now,
          userId: input.userId,
          accountId: input.accountId,
        },
      )
      return accountMembers.decode(returned(row))
    },
    async countWithRole(accountId, role) {
      ctx.check()
      const row = await one(
        ctx.db,
        'SELECT COUNT(*) AS n FROM account_members m, json_array_elements_text(m.roles) r(value) WHERE m.account_id = @accountId AND m.enabled AND r.value = @role',
        { accountId, role },
      )
      return row?.['n'] as number
    },
    async accountsOf(userId, query) {
      ctx.check()
      return await pgListPage(ctx, {
        select: prefixed(pgAccounts.columns, 'a'),
        from: 'accounts a JOIN account_members m ON m.account_id = a.id',
        where: 'm.user_id = @userId AND m.enabled',
        params: { userId },
        sortable: accountSortKeys,
        query,
        decode: pgAccounts.decode,
        idColumn: 'a.id',
      })
    },
    async profile(accountId) {
      ctx.check()
      return await getProfile(accountId)
    },
    async updateProfile(accountId, patch) {
      ctx.check()
      const current = await getProfile(accountId)
      if (current === undefined) return undefined
      const next: AccountProfile = { ...current }
      if (patch.description !== undefined) next.description = patch.description
      if (patch.aiConsent !== undefined) next.aiConsent = patch.aiConsent
      if (patch.welcomeLinkText !== undefined) next.welcomeLinkText = patch.welcomeLinkText
      if (patch.welcomeLinkUrl !== undefined) next.welcomeLinkUrl = patch.welcomeLinkUrl
      await all(
        ctx.db,
        'UPDATE accounts SET description = @description, ai_consent = @ai_consent, welcome_link_text = @welcome_link_text, welcome_link_url = @welcome_link_url, updated = @now WHERE id = @id',
        { ...profiles.encode(next), now: ctx.now() },
      )
      return await getProfile(accountId)
    },
    async firstAccountId() {
      ctx.check()
      const row = await one(ctx.db, 'SELECT min(id) AS id FROM accounts')
      return (row?.['id'] as number | null | undefined) ?? undefined
    },
    async renameAccount(accountId, name) {
      ctx.check()
      const rows = await all(
        ctx.db,
        'UPDATE accounts SET name = @name, updated = @now WHERE id = @id RETURNING id',
        { name, now: ctx.now(), id: accountId },
      )
      return rows.length > 0
    },

    async workspaceMember(workspaceId, userId) {
      ctx.check()
      return await first(
        `SELECT ${workspaceMembers.columns} FROM workspace_members WHERE workspace_id = @workspaceId AND user_id = @userId`,
        workspaceMembers.decode,
        { workspaceId, userId },
      )
    },
    async workspaceMembers(workspaceId, query) {
      ctx.check()
      return await pgListPage(ctx, {
        select: `${prefixed(workspaceMembers.columns, 'm')}, ${memberUserColumns}`,
        from: 'workspace_members m JOIN users u ON u.id = m.user_id',
        where: 'm.workspace_id = @workspaceId',
        params: { workspaceId },
        sortable: memberSortKeys,
        query,
        decode: withUser(workspaceMembers.decode),
        idColumn: 'm.user_id',
        summary: pgListSummary('workspace_members', 'workspaceId'),
      })
    },
    async setWorkspaceMember(input) {
      ctx.check()
      const now = ctx.now()
      const row = await one(
        ctx.db,
        `INSERT INTO workspace_members (workspace_id, user_id, role, enabled, created, updated)
        VALUES (@workspace_id, @user_id, @role, @enabled, @created, @updated)
        ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = excluded.role, enabled = excluded.enabled, updated = excluded.updated
        RETURNING ${workspaceMembers.columns}`,
        workspaceMembers.encode({ ...input, created: now, updated: now }),
      )
      return workspaceMembers.decode(returned(row))
    },
    async removeWorkspaceMember(workspaceId, userId) {
      ctx.check()
      const rows = await all(
        ctx.db,
        'DELETE FROM workspace_members WHERE workspace_id = @workspaceId AND user_id = @userId RETURNING user_id',
        { workspaceId, userId },
      )
      return rows.length > 0
    },
    async countWorkspaceMembers(workspaceIds) {
      ctx.check()
      const out = new Map<number, number>()
      if (workspaceIds.length === 0) return out
      const rows = await all(
        ctx.db,
        'SELECT workspace_id AS w, COUNT(*) AS n FROM workspace_members WHERE workspace_id = ANY(@ids::bigint[]) AND enabled GROUP BY workspace_id',
        { ids: [...workspaceIds] },
      )
      for (const row of rows) out.set(row['w'] as number, row['n'] as number)
      return out
    },
    async workspaceRolesOf(accountId, userId) {
      ctx.check()
      const rows = await all(
        ctx.db,
        `SELECT ${prefixed(workspaceMembers.columns, 'm')} FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
        WHERE w.account_id = @accountId AND m.user_id = @userId AND m.enabled ORDER BY m.workspace_id`,
        { accountId, userId },
      )
      return rows.map(workspaceMembers.decode)
    },

    async createInvitation(input) {
      ctx.check()
      const now = ctx.now()
      const row = await one(
        ctx.db,
        invitations.insertSql,
        invitations.encode({ ...input, created: now, updated: now }),
      )
      return invitations.decode(returned(row))
    },
    async invitationByToken(token) {
      ctx.check()
      return await first(
        `SELECT ${invitations.columns} FROM invitations WHERE token = @token`,
        invitations.decode,
        { token },
      )
    },
    async invitations(accountId, query) {
      ctx.check()
      return await pgListPage(ctx, {
        select: invitations.columns,
        from: 'invitations',
        where: 'account_id = @accountId',
        params: { accountId },
        sortable: invitationSortKeys,
        query,
        decode: invitations.decode,
        idColumn: 'id',
        summary: pgListSummary('invitations', 'accountId'),
      })
    },
    async pendingInvitation(accountId, email) {
      ctx.check()
      return await first(
        `SELECT ${invitations.columns} FROM invitations WHERE account_id = @accountId AND lower(invitee_email) = lower(@email) AND status = 'pending'`,
        invitations.decode,
        { accountId, email },
      )
    },
    async setInvitationStatus(id, status, inviteeUserId) {
      ctx.check()
      return await first(
        `UPDATE invitations SET status = @status, invitee_user_id = coalesce(@user::bigint, invitee_user_id), updated = @now WHERE id = @id RETURNING ${invitations.columns}`,
        invitations.decode,
        { status, user: inviteeUserId, now: ctx.now(), id },
      )
    },

    async createProject(input) {
      ctx.check()
      const now = ctx.now()
      const row = await one(
        ctx.db,
        projects.insertSql,
        projects.encode({ ...input, created: now, updated: now }),
      )
      return projects.decode(returned(row))
    },
    async project(id) {
      ctx.check()
      return await first(
        `SELECT ${projects.columns} FROM projects WHERE id = @id`,
        projects.decode,
        {
          id,
        },
      )
    },
    async projects(filter, query) {
      ctx.check()
      const where = ['workspace_id = ANY(@workspaceIds::bigint[])']
      const params: Row = { workspaceIds: [...filter.workspaceIds] }
      if (filter.name !== undefined) {
        where.push('name = @name')
        params['name'] = filter.name
      }
      return await pgListPage(ctx, {
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
      return await first(
        `SELECT ${projects.columns} FROM projects WHERE workspace_id = @workspaceId AND is_default`,
        projects.decode,
        { workspaceId },
      )
    },

    async apiKeysOf(userId) {
      ctx.check()
      const rows = await all(
        ctx.db,
        `SELECT ${pgApiKeys.columns} FROM api_keys WHERE user_id = @userId ORDER BY created, id`,
        { userId },
      )
      return rows.map(pgApiKeys.decode)
    },
    async revokeApiKey(userId, id) {
      ctx.check()
      const rows = await all(
        ctx.db,
        'UPDATE api_keys SET revoked = @now WHERE id = @id AND user_id = @userId AND revoked IS NULL RETURNING id',
        { now: ctx.now(), id, userId },
      )
      return rows.length > 0
    },
    async setActiveWorkspace(userId, workspaceId) {
      ctx.check()
      await all(
        ctx.db,
        'UPDATE users SET active_workspace_id = @workspaceId, updated = @now WHERE id = @userId',
        { workspaceId, now: ctx.now(), userId },
      )
    },
    async userExtras(userId) {
      ctx.check()
      const row = await one(
        ctx.db,
        'SELECT created, updated, active_workspace_id AS a FROM users WHERE id = @userId',
        { userId },
      )
      if (row === undefined) return undefined
      const created = row['created'] as number
      const updated = row['updated'] as number | null
      return { updated: updated ?? created, activeWorkspaceId: row['a'] as number | null }
    },
  }
}
