import type { ApiKeyRepository, UserRepository } from '../repositories.js'
import type {
  Account,
  AccountMember,
  AccountProfile,
  ApiKey,
  Invitation,
  Project,
  User,
  WorkspaceMember,
} from '../types.js'
import type { ColumnKinds, Row, TableCodec, TableSpec } from './columns.js'

/** Every AccountMember field with how its column in account_members keeps it. */
export const accountMemberColumns = {
  accountId: 'value',
  userId: 'value',
  roles: 'json',
  enabled: 'bool',
  created: 'value',
  updated: 'value',
} as const satisfies ColumnKinds<AccountMember>

/** Every WorkspaceMember field with how its column in workspace_members keeps it. */
export const workspaceMemberColumns = {
  workspaceId: 'value',
  userId: 'value',
  role: 'value',
  enabled: 'bool',
  created: 'value',
  updated: 'value',
} as const satisfies ColumnKinds<WorkspaceMember>

/** Every Invitation field with how its column in invitations keeps it. */
export const invitationColumns = {
  id: 'value',
  token: 'value',
  accountId: 'value',
  inviteeEmail: 'value',
  accountRoles: 'json',
  workspaceIds: 'json',
  workspaceRoles: 'json',
  attachAutomatically: 'bool',
  status: 'value',
  invitedById: 'value',
  inviteeUserId: 'value',
  created: 'value',
  updated: 'value',
} as const satisfies ColumnKinds<Invitation>

/** Every Project field with how its column in projects keeps it. */
export const projectColumns = {
  id: 'value',
  workspaceId: 'value',
  name: 'value',
  description: 'value',
  isDefault: 'bool',
  userId: 'value',
  created: 'value',
  updated: 'value',
} as const satisfies ColumnKinds<Project>

/** Every AccountProfile field with how its column in accounts keeps it. */
export const accountProfileColumns = {
  id: 'value',
  description: 'value',
  aiConsent: 'bool',
  welcomeLinkText: 'value',
  welcomeLinkUrl: 'value',
} as const satisfies ColumnKinds<AccountProfile>

/** Every ApiKey field with how its column in api_keys keeps it. */
export const apiKeyColumns = {
  id: 'value',
  userId: 'value',
  name: 'value',
  secretHash: 'value',
  created: 'value',
  lastUsed: 'value',
  revoked: 'value',
} as const satisfies ColumnKinds<ApiKey>

/** Every User field with how its column in users keeps it. */
export const userColumns = {
  id: 'value',
  email: 'value',
  firstName: 'value',
  lastName: 'value',
  enabled: 'bool',
  accountRoles: 'json',
  accountId: 'value',
  created: 'value',
  lastAccess: 'value',
} as const satisfies ColumnKinds<User>

/** Every Account field with how its column in accounts keeps it. */
export const accountColumns = {
  id: 'value',
  name: 'value',
  created: 'value',
  updated: 'value',
} as const satisfies ColumnKinds<Account>

/** What `update` may change of a user. */
export const userUpdatable = [
  'firstName',
  'lastName',
  'enabled',
  'accountRoles',
  'lastAccess',
] as const satisfies ReadonlyArray<keyof User>

/**
 * The columns of users joined as `u`, each renamed `u_<column>` so that they do not clash with the
 * member's own.
 */
export function joinedUserColumns(users: TableCodec<User>): string {
  return users.columns
    .split(', ')
    .map((c) => `u.${c} AS u_${c}`)
    .join(', ')
}

/**
 * Wraps a member's decode so that the record also carries its user, read from the `u_` columns of
 * joinedUserColumns.
 *
 * @example
 * const withUser = withJoinedUser(users)
 * const decodeMember = withUser(accountMembers.decode)
 */
export function withJoinedUser(
  users: TableCodec<User>,
): <T>(decode: (row: Row) => T) => (row: Row) => T & { user: User } {
  return (decode) => (row) => {
    const userRow: Row = {}
    for (const [key, value] of Object.entries(row)) {
      if (key.startsWith('u_')) userRow[key.slice(2)] = value
    }
    return { ...decode(row), user: users.decode(userRow) }
  }
}

/** The account_members table: its name, key and columns. */
export const accountMemberTable: TableSpec<AccountMember> = {
  table: 'account_members',
  key: 'accountId',
  kinds: accountMemberColumns,
  generatedKey: false,
}

/** The workspace_members table: its name, key and columns. */
export const workspaceMemberTable: TableSpec<WorkspaceMember> = {
  table: 'workspace_members',
  key: 'workspaceId',
  kinds: workspaceMemberColumns,
  generatedKey: false,
}

/** The invitations table: its name, key and columns. */
export const invitationTable: TableSpec<Invitation> = {
  table: 'invitations',
  key: 'id',
  kinds: invitationColumns,
  generatedKey: false,
}

/** The projects table: its name, key and columns. */
export const projectTable: TableSpec<Project> = {
  table: 'projects',
  key: 'id',
  kinds: projectColumns,
  generatedKey: true,
}

/** The accounts table: its name, key and columns. */
export const accountTable: TableSpec<Account> = {
  table: 'accounts',
  key: 'id',
  kinds: accountColumns,
  generatedKey: true,
}

/** The api_keys table: its name, key and columns. */
export const apiKeyTable: TableSpec<ApiKey> = {
  table: 'api_keys',
  key: 'id',
  kinds: apiKeyColumns,
  generatedKey: false,
}

/** The accounts table: its name, key and columns. */
export const accountProfileTable: TableSpec<AccountProfile> = {
  table: 'accounts',
  key: 'id',
  kinds: accountProfileColumns,
  generatedKey: true,
}

/** The users table: its name, key and columns. */
export const userTable: TableSpec<User> = {
  table: 'users',
  key: 'id',
  kinds: userColumns,
  generatedKey: true,
}

/** The row of a new user: no access yet. */
export function newUser(
  input: Parameters<UserRepository['create']>[0],
  now: number,
): Omit<User, 'id'> {
  return {
    email: input.email,
    firstName: input.firstName,
    lastName: input.lastName,
    enabled: input.enabled,
    accountRoles: input.accountRoles,
    accountId: input.accountId,
    created: now,
    lastAccess: null,
  }
}

/** The row of a new API key: never used, not revoked. */
export function newApiKey(input: Parameters<ApiKeyRepository['create']>[0], now: number): ApiKey {
  return {
    id: input.id,
    userId: input.userId,
    name: input.name,
    secretHash: input.secretHash,
    created: now,
    lastUsed: null,
    revoked: null,
  }
}
