import { describe, expect, it } from 'vitest'
import { openTestStore, seed } from './fixtures.js'

/*
 * The tenancy repository's changes called on the store itself, outside `store.write`: each one
 * runs in a write transaction of its own, commits, and is visible to the next read.
 */

describe('tenancy writes outside a transaction', () => {
  it('commits memberships, profiles, workspace members, invitations, projects, key revocation and the active workspace', async () => {
    const { store } = await openTestStore()
    const { account, user, workspace } = await seed(store)
    const { tenancy } = store
    const grace = await store.users.create({
      email: 'grace@example.com',
      firstName: 'Grace',
      lastName: 'Hopper',
      enabled: true,
      accountRoles: ['standard'],
      accountId: account.id,
    })

    expect(
      await tenancy.setMember({
        accountId: account.id,
        userId: grace.id,
        roles: ['admin'],
        enabled: true,
      }),
    ).toMatchObject({ roles: ['admin'], enabled: true })
    expect((await tenancy.member(account.id, grace.id))?.roles).toEqual(['admin'])
    expect(await tenancy.countWithRole(account.id, 'admin')).toBe(1)

    expect(
      await tenancy.updateProfile(account.id, { description: 'the pet people', aiConsent: true }),
    ).toMatchObject({ description: 'the pet people', aiConsent: true })
    expect(await tenancy.updateProfile(999, { description: 'nobody' })).toBeUndefined()
    expect(await tenancy.renameAccount(account.id, 'acme inc')).toBe(true)
    expect(await tenancy.renameAccount(999, 'nobody')).toBe(false)
    expect((await store.accounts.get(account.id))?.name).toBe('acme inc')

    expect(
      await tenancy.setWorkspaceMember({
        workspaceId: workspace.id,
        userId: grace.id,
        role: 'tester',
        enabled: true,
      }),
    ).toMatchObject({ role: 'tester' })
    expect((await tenancy.workspaceMember(workspace.id, grace.id))?.role).toBe('tester')
    expect(await tenancy.removeWorkspaceMember(workspace.id, grace.id)).toBe(true)
    expect(await tenancy.removeWorkspaceMember(workspace.id, grace.id)).toBe(false)
    expect(await tenancy.workspaceMember(workspace.id, grace.id)).toBeUndefined()

    const invitation = await tenancy.createInvitation({
      id: 'inv-1',
      token: 'token-1',
      accountId: account.id,
      inviteeEmail: 'linus@example.com',
      accountRoles: ['standard'],
      workspaceIds: [workspace.id],
      workspaceRoles: ['viewer'],
      attachAutomatically: false,
      status: 'pending',
      invitedById: user.id,
      inviteeUserId: null,
    })
    expect((await tenancy.pendingInvitation(account.id, 'linus@example.com'))?.id).toBe(
      invitation.id,
    )
    expect(await tenancy.setInvitationStatus(invitation.id, 'rejected', null)).toMatchObject({
      status: 'rejected',
    })
    expect(await tenancy.pendingInvitation(account.id, 'linus@example.com')).toBeUndefined()

    const project = await tenancy.createProject({
      workspaceId: workspace.id,
      name: 'checkout',
      description: null,
      isDefault: false,
      userId: user.id,
    })
    expect(await tenancy.project(project.id)).toMatchObject({
      name: 'checkout',
      workspaceId: workspace.id,
    })

    const key = await store.apiKeys.create({
      id: 'key-of-grace',
      secretHash: 'salt:hash',
      userId: grace.id,
      name: 'ci',
    })
    expect(await tenancy.revokeApiKey(user.id, key.id)).toBe(false)
    expect(await tenancy.revokeApiKey(grace.id, key.id)).toBe(true)

    await tenancy.setActiveWorkspace(grace.id, workspace.id)
    expect((await tenancy.userExtras(grace.id))?.activeWorkspaceId).toBe(workspace.id)
    await tenancy.setActiveWorkspace(grace.id, null)
    expect((await tenancy.userExtras(grace.id))?.activeWorkspaceId).toBeNull()
  })
})
