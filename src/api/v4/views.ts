import type {
  Account,
  AccountMember,
  AccountProfile,
  User,
  Workspace,
  WorkspaceMember,
} from '../../store/index.js'
import { epochSeconds, epochSecondsOrNull } from '../format.js'
import { localLocation } from '../local-location.js'
import { workspaceBilling, workspaceFeatures, workspacePlan } from './workspace-plan.js'

/* The administration specification shapes of /api/v4, in one place so that every endpoint shows a record alike. */

export function displayNameOf(user: Pick<User, 'firstName' | 'lastName' | 'email'>): string {
  const name = `${user.firstName} ${user.lastName}`.trim()
  return name === '' ? user.email : name
}

/** `access` / `login`: the last access, else the creation (clients' models refuse null). */
export function accessOf(user: User): number {
  return epochSecondsOrNull(user.lastAccess) ?? epochSeconds(user.created)
}

/** An account as GET /accounts shows it. */
export function accountView(
  account: Account,
  profile: AccountProfile | undefined,
  member?: AccountMember,
) {
  return {
    id: account.id,
    name: account.name,
    // the administration specification types these as strings, and clients' models refuse null
    // there: '' when unset.
    description: profile?.description ?? '',
    created: epochSeconds(account.created),
    updated: epochSeconds(account.updated),
    aiConsent: profile?.aiConsent ?? false,
    welcomeScreenLinkText: profile?.welcomeLinkText ?? '',
    welcomeScreenLinkUrl: profile?.welcomeLinkUrl ?? '',
    ...(member === undefined ? {} : { roles: member.roles, enabled: member.enabled }),
  }
}

/** An account user (the administration specification, docs/api.md#accounts). */
export function accountUserView(user: User, member: AccountMember) {
  const access = accessOf(user)
  return {
    id: user.id,
    email: user.email,
    displayName: displayNameOf(user),
    firstName: user.firstName,
    lastName: user.lastName,
    login: access,
    access,
    lastAccess: access,
    roles: member.roles,
    enabled: member.enabled,
    type: 'account',
  }
}

/** A workspace member (`activeMember` in the administration specification). */
export function workspaceMemberView(user: User, member: Pick<WorkspaceMember, 'role' | 'enabled'>) {
  return {
    id: user.id,
    email: user.email,
    displayName: displayNameOf(user),
    roles: [member.role],
    enabled: member.enabled,
    access: accessOf(user),
  }
}

/** The workspace of the administration specification as lists show it (no locations, features, plan or billing; `expiration` and `credits` are there). */
export function workspaceListView(w: Workspace, owner: User | undefined, membersCount: number) {
  return {
    id: w.id,
    name: w.name,
    userId: w.userId,
    created: epochSeconds(w.created),
    updated: epochSeconds(w.updated),
    enabled: w.enabled,
    dedicatedIpsEnabled: w.dedicatedIpsEnabled,
    privateLocationsEnabled: w.privateLocationsEnabled,
    owner:
      owner === undefined
        ? null
        : { id: owner.id, email: owner.email, displayName: displayNameOf(owner) },
    membersCount,
    allowance: { amount: 0, type: 'credits' },
    accountId: w.accountId,
    // A self-hosted workspace never expires and has no credits to spend.
    expiration: null,
    credits: 0,
  }
}

/** The create response adds the features, plan, credits and billing a client may read. */
export function workspaceCreateView(w: Workspace, owner: User | undefined, membersCount: number) {
  return {
    ...workspaceListView(w, owner, membersCount),
    features: workspaceFeatures(),
    plan: workspacePlan(w),
    billing: workspaceBilling(),
  }
}

/**
 * The detail view: the create view with the locations (the local one, then the private locations
 * offered to the workspace) and the caller as `activeMember`.
 */
export function workspaceDetailView(
  w: Workspace,
  owner: User | undefined,
  membersCount: number,
  activeMember: ReturnType<typeof workspaceMemberView>,
  privateLocations: readonly object[] = [],
) {
  return {
    ...workspaceCreateView(w, owner, membersCount),
    locations: [localLocation(), ...privateLocations],
    activeMember,
  }
}
