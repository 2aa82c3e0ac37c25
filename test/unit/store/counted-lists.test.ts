import { describe, expect, it } from 'vitest'
import type { ListQuery, Page, Store } from '../../../src/store/index.js'
import { BY, mockServiceInput, openTestStore, seed, type World } from './fixtures.js'

/*
 * The lists whose totals and change counters are maintained (SQLite migration 23, PostgreSQL
 * migration 13): after any insert, update, delete or cascade, every page and total is exactly
 * what a fresh read of the whole list gives, in every sort, on both stores; a walk whose rows
 * changed between its pages (a member's user renamed) continues as OFFSET would.
 */

type List = (query: ListQuery) => Promise<Page<unknown>>

interface Named {
  name: string
  list: List
  sorts: readonly string[]
}

/** Every page of 2 of each sort (a walk, continued by keyset) equals the slice of the whole list. */
async function expectExact(list: Named, expectedTotal?: number): Promise<void> {
  for (const sort of list.sorts) {
    for (const direction of ['', '-']) {
      const whole = await list.list({ limit: -1, skip: 0, sort: `${direction}${sort}` })
      expect(whole.total, `${list.name} ${direction}${sort}`).toBe(whole.items.length)
      if (expectedTotal !== undefined) expect(whole.total, list.name).toBe(expectedTotal)
      for (let skip = 0; skip <= whole.items.length; skip += 2) {
        const page = await list.list({ limit: 2, skip, sort: `${direction}${sort}` })
        expect(page, `${list.name} ${direction}${sort} skip ${skip}`).toEqual({
          items: whole.items.slice(skip, skip + 2),
          total: whole.total,
        })
      }
    }
  }
}

function listsOf(store: Store, world: World): Named[] {
  const account = world.account.id
  const workspace = world.workspace.id
  const audit = ['id', 'name', 'created', 'updated', 'createdBy', 'updatedBy']
  return [
    {
      name: 'users',
      list: (q) => store.users.listByAccount(account, q),
      sorts: ['id', 'email', 'name', 'firstName', 'lastName', 'enabled', 'created'],
    },
    {
      name: 'workspaces',
      list: (q) => store.workspaces.listByAccount(account, q),
      sorts: ['id', 'name', 'enabled', 'created', 'updated'],
    },
    {
      name: 'account members',
      list: (q) => store.tenancy.members(account, q),
      sorts: ['id', 'email', 'name', 'created', 'updated', 'enabled'],
    },
    {
      name: 'workspace members',
      list: (q) => store.tenancy.workspaceMembers(workspace, q),
      sorts: ['id', 'email', 'name', 'created', 'updated', 'enabled'],
    },
    {
      name: 'invitations',
      list: (q) => store.tenancy.invitations(account, q),
      sorts: ['id', 'created', 'updated', 'email'],
    },
    { name: 'tags', list: (q) => store.tags.list(account, q), sorts: audit },
    { name: 'services', list: (q) => store.services.list(workspace, q), sorts: audit },
    {
      name: 'mock services',
      list: (q) => store.mockServices.list(workspace, {}, q),
      sorts: [...audit, 'serviceId', 'status', 'type'],
    },
    {
      name: 'mock services of a service',
      list: (q) => store.mockServices.list(workspace, { serviceId: world.service.id }, q),
      sorts: ['id', 'name'],
    },
    {
      name: 'assets',
      list: (q) => store.assets.list(workspace, {}, q),
      sorts: [...audit, 'type', 'size'],
    },
  ]
}

function assetInput(workspaceId: number, serviceId: number | null, name: string, size: number) {
  return {
    workspaceId,
    serviceId,
    name,
    description: null,
    type: 'MAR' as const,
    fileId: `file-${name}`,
    folderId: null,
    platformVseId: null,
    tags: [],
    primaryMetadata: {},
    secondaryMetadata: {},
    size,
    sha256: 'ab'.repeat(32),
    contentType: null,
    by: BY,
  }
}

/** An account with five more users in it and its main workspace, and a few of every record. */
async function populated(store: Store) {
  const world = await seed(store)
  const account = world.account.id
  const workspace = world.workspace.id
  const names = ['carol', 'Bob', 'alice', 'dave', 'Eve']
  const users = []
  for (const [i, name] of names.entries()) {
    const user = await store.users.create({
      accountId: account,
      email: `${name.toLowerCase()}@example.com`,
      firstName: name,
      lastName: i % 2 === 0 ? 'Smith' : 'jones',
      enabled: i !== 3,
      accountRoles: ['standard'],
    })
    users.push(user)
    await store.tenancy.setWorkspaceMember({
      workspaceId: workspace,
      userId: user.id,
      role: 'tester',
      enabled: i !== 1,
    })
  }
  for (const [i, email] of ['zed@example.com', 'Amy@example.com', 'kim@example.com'].entries()) {
    await store.tenancy.createInvitation({
      id: `inv-${i}`,
      token: `token-${i}`,
      accountId: account,
      inviteeEmail: email,
      accountRoles: ['standard'],
      workspaceIds: [workspace],
      workspaceRoles: ['viewer'],
      attachAutomatically: false,
      status: 'pending',
      invitedById: world.user.id,
      inviteeUserId: null,
    })
  }
  const services = [world.service]
  for (const name of ['orders', 'Billing', 'audit']) {
    await store.tags.create({ accountId: account, name, description: null, by: BY })
    services.push(
      await store.services.create({ workspaceId: workspace, name, description: null, by: BY }),
    )
  }
  const mocks = []
  for (const [i, name] of ['m3', 'M1', 'm2', 'm4'].entries()) {
    const service = services[i % 2] ?? world.service
    mocks.push(
      await store.mockServices.create(
        mockServiceInput(workspace, service.id, {
          name,
          status: i === 2 ? 'RUNNING' : 'STOPPED',
        }),
      ),
    )
  }
  for (const [i, name] of ['b.mar', 'A.mar', 'c.mar'].entries()) {
    await store.assets.create(assetInput(workspace, null, name, 100 - i))
  }
  return { world, users, services, mocks }
}

describe('maintained list totals', () => {
  it('give exact pages and totals in every sort after inserts, updates and deletes', async () => {
    const { store } = await openTestStore()
    const { world, users, services, mocks } = await populated(store)
    const lists = listsOf(store, world)
    for (const list of lists) await expectExact(list)

    const workspace = world.workspace.id
    const [carol, bob] = users
    if (carol === undefined || bob === undefined) throw new Error('seeded users are missing')
    await store.users.update(carol.id, { firstName: 'Zoe', enabled: false })
    await store.tenancy.removeWorkspaceMember(workspace, bob.id)
    await store.tenancy.setInvitationStatus('inv-1', 'accepted', null)
    await store.services.delete(workspace, services[3]?.id ?? 0)
    await store.mockServices.update(mocks[0]?.id ?? 0, { status: 'RUNNING', name: 'a first' })
    await store.mockServices.delete(workspace, mocks[1]?.id ?? 0)
    await store.assets.create(assetInput(workspace, world.service.id, 'd.mar', 7))
    for (const list of lists) await expectExact(list)
    expect((await store.tenancy.workspaceMembers(workspace, { limit: 0, skip: 0 })).total).toBe(5)
    expect((await store.services.list(workspace, { limit: 0, skip: 0 })).total).toBe(3)
    expect((await store.mockServices.list(workspace, {}, { limit: 0, skip: 0 })).total).toBe(3)
  })

  it('continue a walk exactly when a member is renamed between its pages', async () => {
    const { store } = await openTestStore()
    const { world, users } = await populated(store)
    const members = (skip: number) =>
      store.tenancy.workspaceMembers(world.workspace.id, { limit: 2, skip, sort: 'name' })
    const firstNames = (page: Page<{ user: { firstName: string } }>) =>
      page.items.map((member) => member.user.firstName)
    expect(firstNames(await members(0))).toEqual(['Ada', 'alice'])
    // alice moves from the first page to the last: the second page now starts with Bob
    await store.users.update(users[2]?.id ?? 0, { firstName: 'zara' })
    expect(firstNames(await members(2))).toEqual(['carol', 'dave'])
    expect(firstNames(await members(0))).toEqual(['Ada', 'Bob'])
  })

  it('follow the cascade of a workspace delete and of an account delete', async () => {
    const { store, sql } = await openTestStore()
    const { world } = await populated(store)
    const lists = listsOf(store, world)
    await sql(`DELETE FROM workspaces WHERE id = ${world.workspace.id}`)
    for (const list of lists.filter((l) => l.name !== 'users' && l.name !== 'workspaces')) {
      const account = ['account members', 'invitations', 'tags'].includes(list.name)
      await expectExact(list, account ? undefined : 0)
    }
    await expectExact(lists[1] as Named, 1)
    await sql(`DELETE FROM accounts WHERE id = ${world.account.id}`)
    for (const list of lists) await expectExact(list, 0)
    // another account's lists are untouched
    expect(
      (await store.users.listByAccount(world.otherAccount.id, { limit: 5, skip: 0 })).total,
    ).toBe(1)
  })
})
