import { describe, expect, it, onTestFinished } from 'vitest'
import {
  compileSearch,
  isConstraintViolation,
  openPostgresStore,
  writeThroughOwnConnection,
  type Store,
} from '../../../../src/store/index.js'
import { hasPostgres, requirePgDatabase } from '../../../helpers/postgres.js'
import { BY, seed } from '../fixtures.js'

/*
 * The PostgreSQL store's own behaviour, on a real server (the run's, test/helpers/postgres.ts).
 * The store's shared unit tests also run on it with UNDERSTUDY_TEST_STORE=postgres.
 */

async function openStore(): Promise<Store> {
  let now = 1_700_000_000_000
  const store = await openPostgresStore({
    url: await requirePgDatabase(),
    now: () => (now += 1000),
  })
  onTestFinished(async () => await store.close())
  return store
}

const ALL = { limit: 1000, skip: 0 }

function dsl(path: string) {
  return {
    requestDsl: { method: 'GET', path },
    responseDsl: { status: 200, body: `{"b":1,"a":2}` },
  }
}

describe.skipIf(!hasPostgres)('the PostgreSQL store', () => {
  it('keeps services and tags per scope, answers a taken name as a unique violation, and rolls the write back', async () => {
    const store = await openStore()
    const world = await seed(store)
    const taken = store.write(async (tx) => {
      await tx.tags.create({
        accountId: world.account.id,
        name: 'first',
        description: null,
        by: BY,
      })
      return await tx.services.create({
        workspaceId: world.workspace.id,
        name: 'pets',
        description: null,
        by: BY,
      })
    })
    const err: unknown = await taken.catch((e: unknown) => e)
    expect(isConstraintViolation(err, 'unique')).toBe(true)
    expect(isConstraintViolation(err, 'foreign-key')).toBe(false)
    expect(await store.tags.getByName(world.account.id, 'first')).toBeUndefined()
    const tags = await store.tags.ensure(world.account.id, ['b', 'a', 'b'], BY)
    expect(tags.map((t) => t.name)).toEqual(['b', 'a'])
    expect((await store.tags.ensure(world.account.id, ['a'], BY))[0]?.id).toBe(tags[1]?.id)
    const page = await store.services.list(world.workspace.id, { ...ALL, sort: '-name' })
    expect(page).toMatchObject({ total: 1, items: [{ name: 'pets', description: 'Pet store' }] })
    expect(await store.services.get(world.otherWorkspace.id, world.service.id)).toBeUndefined()
    expect(await store.services.delete(world.workspace.id, world.service.id)).toBe(true)
    expect(await store.services.delete(world.workspace.id, world.service.id)).toBe(false)
  })

  it('stores transactions with their tags and DSL as written, filters and pages them, and keeps counts', async () => {
    const store = await openStore()
    const world = await seed(store)
    const into = { workspaceId: world.workspace.id, serviceId: world.service.id, by: BY }
    const ids = await store.transactions.createEncodedMany(
      into,
      Array.from({ length: 1205 }, (_, i) => ({
        name: `T${String(i).padStart(4, '0')}`,
        description: i === 7 ? 'Ünïcode ORDER' : null,
        dslType: 'GENERIC_DSL',
        tags: i % 2 === 0 ? ['even', 'all'] : ['all'],
        dslJson:
          i % 3 === 0
            ? new TextEncoder().encode(JSON.stringify(dsl(`/${i}`)))
            : JSON.stringify(dsl(`/${i}`)),
      })),
    )
    expect(ids).toHaveLength(1205)
    expect([...ids].sort((a, b) => a - b)).toEqual(ids)
    const first = await store.transactions.get(world.workspace.id, ids[0]!)
    expect(first).toMatchObject({ name: 'T0000', tags: ['even', 'all'], dsl: dsl('/0') })
    expect(Object.keys((first?.dsl as { responseDsl: object }).responseDsl)).toEqual([
      'status',
      'body',
    ])
    const even = await store.transactions.list(
      world.workspace.id,
      { tags: ['even', 'all'] },
      { limit: 10, skip: 0 },
    )
    expect(even.total).toBe(603)
    const found = await store.transactions.list(
      world.workspace.id,
      { contains: 'ünïcode order' },
      ALL,
    )
    expect(found.items.map((t) => t.id)).toEqual([ids[7]])
    // a walk through the list by pages sees every row once, in order, whether by keyset or offset
    const walked: number[] = []
    for (let skip = 0; skip < 1205; skip += 100) {
      const page = await store.transactions.list(
        world.workspace.id,
        {},
        { limit: 100, skip, sort: '-name' },
      )
      expect(page.total).toBe(1205)
      walked.push(...page.items.map((t) => t.id))
    }
    expect(walked).toEqual([...ids].reverse())
    expect(
      await store.transactions.deleteMany(world.workspace.id, [ids[0]!, ids[0]!, 999_999]),
    ).toEqual([ids[0]])
    expect(
      await store.transactions.changeTags(
        world.workspace.id,
        [ids[1]!],
        { add: ['new'], remove: ['all'] },
        BY,
      ),
    ).toEqual([ids[1]])
    expect((await store.transactions.get(world.workspace.id, ids[1]!))?.tags).toEqual(['new'])
    expect(
      (await store.transactions.list(world.workspace.id, { serviceId: world.service.id }, ALL))
        .total,
    ).toBe(1204)
  })

  it('keeps members, invitations, projects and keys of accounts and workspaces', async () => {
    const store = await openStore()
    const world = await seed(store)
    expect(await store.users.getByEmail(BY.toUpperCase())).toMatchObject({ id: world.user.id })
    expect(await store.tenancy.countWithRole(world.account.id, 'owner')).toBe(1)
    await store.tenancy.setMember({
      accountId: world.otherAccount.id,
      userId: world.user.id,
      roles: ['viewer'],
      enabled: true,
    })
    expect(
      (await store.tenancy.accountsOf(world.user.id, { ...ALL, sort: 'name' })).items.map(
        (a) => a.name,
      ),
    ).toEqual(['acme', 'globex'])
    const counts = await store.tenancy.countWorkspaceMembers([
      world.workspace.id,
      world.foreignWorkspace.id,
    ])
    expect([...counts]).toEqual([
      [world.workspace.id, 1],
      [world.foreignWorkspace.id, 1],
    ])
    expect(await store.tenancy.defaultProject(world.workspace.id)).toMatchObject({
      name: 'Default project',
      isDefault: true,
    })
    const invitation = await store.tenancy.createInvitation({
      id: 'i-1',
      token: 't-1',
      accountId: world.account.id,
      inviteeEmail: 'Bob@Acme.test',
      accountRoles: ['viewer'],
      workspaceIds: [world.workspace.id],
      workspaceRoles: ['tester'],
      attachAutomatically: false,
      status: 'pending',
      invitedById: world.user.id,
      inviteeUserId: null,
    })
    expect(await store.tenancy.pendingInvitation(world.account.id, 'bob@acme.test')).toEqual(
      invitation,
    )
    const again = store.tenancy.createInvitation({
      ...invitation,
      id: 'i-2',
      token: 't-2',
      inviteeEmail: 'BOB@acme.test',
    })
    expect(isConstraintViolation(await again.catch((e: unknown) => e), 'unique')).toBe(true)
    expect(await store.tenancy.setInvitationStatus('i-1', 'accepted', null)).toMatchObject({
      status: 'accepted',
    })
  })

  it('refuses a write nested in a write, and closes idempotently, refusing what comes after', async () => {
    const store = await openStore()
    await expect(store.write(async () => await store.write(async () => 1))).rejects.toThrow(
      /inside a write/,
    )
    expect(await store.schemaVersion()).toBeGreaterThan(0)
    await Promise.all([store.close(), store.close()])
    await expect(store.accounts.count()).rejects.toThrow(/closed/)
  })

  it('writes elsewhere through a connection of its own, in one transaction', async () => {
    const store = await openStore()
    const world = await seed(store)
    const into = { workspaceId: world.workspace.id, serviceId: world.service.id, by: BY }
    const row = {
      name: 'x',
      description: null,
      dslType: 'GENERIC_DSL',
      tags: [],
      dslJson: JSON.stringify(dsl('/x')),
    }
    const ids = await store.writeElsewhere(
      async (target) =>
        await writeThroughOwnConnection(
          target,
          async (tx) => await tx.transactions.createEncodedMany(into, [row, row]),
        ),
    )
    expect(
      (await store.transactions.list(world.workspace.id, {}, ALL)).items.map((t) => t.id),
    ).toEqual(ids)
    const failed = store.writeElsewhere(
      async (target) =>
        await writeThroughOwnConnection(target, async (tx) => {
          await tx.transactions.createEncodedMany(into, [row])
          throw new Error('the upload was abandoned')
        }),
    )
    await expect(failed).rejects.toThrow('abandoned')
    expect((await store.transactions.list(world.workspace.id, {}, ALL)).total).toBe(2)
  })

  it('runs searches compiled for PostgreSQL', async () => {
    const store = await openStore()
    const world = await seed(store)
    await store.services.create({
      workspaceId: world.workspace.id,
      name: 'Orders',
      description: null,
      by: BY,
    })
    const plan = compileSearch(
      {
        entity: 'services',
        filters: { $or: [{ name: { $ilike: 'ORD' } }, { name: { $in: ['pets'] } }] },
        ordering: [{ name: -1 }],
        fields: ['name', 'workspace.enabled'],
      },
      { accountIds: [world.account.id], workspaceIds: [world.workspace.id] },
      store.search.dialect,
    )
    const { rows, total } = await store.search.run(plan)
    expect(total).toBe(2)
    expect(rows.map((r) => [r['c0'], r['c1']])).toEqual([
      ['pets', 1],
      ['Orders', 1],
    ])
  })
})
