import type { AccountMember, WorkspaceMember, WorkspaceRole } from '../../store/index.js'
import type { WorkspaceNeed } from './policy.js'

const rank: Record<WorkspaceRole, number> = { viewer: 1, tester: 2, manager: 3 }

/** Whether an account membership makes its holder a manager of every workspace of the account. */
export function isAccountAdmin(member: Pick<AccountMember, 'roles'> | undefined): boolean {
  return member !== undefined && (member.roles.includes('owner') || member.roles.includes('admin'))
}

/**
 * The caller's role in a workspace: manager for account owners and admins, else its enabled
 * workspace membership's role, else null (the workspace is not visible).
 *
 * @example
 * workspaceRoleOf({ roles: ['standard'] }, { role: 'tester', enabled: true }) // 'tester'
 */
export function workspaceRoleOf(
  account: Pick<AccountMember, 'roles'>,
  member: Pick<WorkspaceMember, 'role' | 'enabled'> | undefined,
): WorkspaceRole | null {
  if (isAccountAdmin(account)) return 'manager'
  return member !== undefined && member.enabled ? member.role : null
}

/** Whether a role is at least `need`. */
export function satisfies(role: WorkspaceRole, need: WorkspaceNeed): boolean {
  return rank[role] >= rank[need]
}
