import { describe, expect, it } from 'vitest'
import { isConstraintViolation } from '../../../src/store/index.js'
import { ALL, openTestStore, seed } from './fixtures.js'

/* Accounts, users, API keys and workspaces (the administration specification). */

describe('accounts', () => {
  it('creates, reads and counts accounts', async () => {
    const { store } = await openTestStore()
    expect(await store.accounts.count()).toBe(0)
    const account = await store.accounts.create({ name: 'acme' })
    expect(account).toEqual({
      id: 1,
      name: 'acme',
      created: expect.any(Number),
      updated: account.created,
    })
    expect(await store.accounts.get(account.id)).toEqual(account)
    expect(await store.accounts.get(999)).toBeUndefined()
    expect(await store.accounts.count()).toBe(1)
  })
})

describe('users', () => {
  it('round-trips every field, with roles as an array and enabled as a boolean', async () => {
    const { store } = await openTestStore()
    const account = await store.accounts.create({ name: 'acme' })
    const user = await store.users.create({
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      enabled: false,
      accountRoles: ['owner', 'admin'],
      accountId: account.id,
    })
    expect(user).toEqual({
      id: 1,
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      enabled: false,
      accountRoles: ['owner', 'admin'],
      accountId: account.id,
      created: expect.any(Number),
      lastAccess: null,
    })
    expect(await store.users.get(user.id)).toEqual(user)
  })

  it('finds a user by email whatever its ASCII case, and refuses a second user with that email', async () => {
    const { store } = await openTestStore()
    const { user, account } = await seed(store)
    expect(await store.users.getByEmail('ADA@Example.COM')).toEqual(user)
    expect(await store.users.getByEmail('nobody@example.com')).toBeUndefined()
    const duplicate = store.users.create({
      email: 'Ada@example.com',
      firstName: 'A',
      lastName: 'L',
      enabled: true,
      accountRoles: [],
      accountId: account.id,
    })
    await expect(duplicate).rejects.toSatisfy((err) => isConstraintViolation(err, 'unique'))
  })

  it('updates only the given fields', async () => {
    const { store } = await openTestStore()
    const { user } = await seed(store)
    const updated = await store.users.update(user.id, {
      lastAccess: 1234,
      accountRoles: ['standard'],
    })
    expect(updated).toEqual({ ...user, lastAccess: 1234, accountRoles: ['standard'] })
    expect(await store.users.update(user.id, { enabled: false })).toEqual({
      ...updated,
      enabled: false,
    })
    expect(await store.users.update(999, { enabled: false })).toBeUndefined()
  })

  it('lists the users of one account only', async () => {
    const { store } = await openTestStore()
    const { account, otherAccount, user } = await seed(store)
    expect(await store.users.listByAccount(account.id, ALL)).toEqual({ items: [user], total: 1 })
    const theirs = await store.users.listByAccount(otherAccount.id, ALL)
    expect(theirs.items.map((u) => u.email)).toEqual(['hank@globex.test'])
  })

  it('cannot belong to an account that does not exist', async () => {
    const { store } = await openTestStore()
    const orphan = store.users.create({
      email: 'x@y.z',
      firstName: 'x',
      lastName: 'y',
      enabled: true,
      accountRoles: [],
      accountId: 42,
    })
    await expect(orphan).rejects.toSatisfy((err) => isConstraintViolation(err, 'foreign-key'))
  })
})

describe('API keys', () => {
  it('creates a key, finds it by id and records its last use without going backwards', async () => {
    const { store } = await openTestStore()
    const { user } = await seed(store)
    const key = await store.apiKeys.create({
      id: 'k-1',
      userId: user.id,
      name: 'ci',
      secretHash: 'aa:bb',
    })
    expect(key).toEqual({
      id: 'k-1',
      userId: user.id,
      name: 'ci',
      secretHash: 'aa:bb',
      created: expect.any(Number),
      lastUsed: null,
      revoked: null,
    })
    await store.apiKeys.touch('k-1', 5000)
    await store.apiKeys.touch('k-1', 4000)
    expect((await store.apiKeys.get('k-1'))?.lastUsed).toBe(5000)
    await store.apiKeys.touch('missing', 1)
    expect(await store.apiKeys.get('missing')).toBeUndefined()
  })

  it('refuses a second key with the same id', async () => {
    const { store } = await openTestStore()
    const { user } = await seed(store)
    await store.apiKeys.create({ id: 'k-1', userId: user.id, name: 'ci', secretHash: 'aa:bb' })
    await expect(
      store.apiKeys.create({ id: 'k-1', userId: user.id, name: 'other', secretHash: 'cc:dd' }),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'unique'))
  })

  it('skips a touch while a write holds the writer, instead of queueing behind it', async () => {
    const { store } = await openTestStore()
    const { user } = await seed(store)
    await store.apiKeys.create({ id: 'k-1', userId: user.id, name: 'ci', secretHash: 'aa:bb' })
    let release = (): void => {}
    let started = (): void => {}
    const startedYet = new Promise<void>((resolve) => {
      started = resolve
    })
    const blocker = store.write(async () => {
      await new Promise<void>((resolve) => {
        release = resolve
        started()
      })
    })
    await startedYet
    await store.apiKeys.touch('k-1', 9000)
    release()
    await blocker
    expect((await store.apiKeys.get('k-1'))?.lastUsed).toBeNull()
  })
})

describe('workspaces', () => {
  it('creates, updates and lists workspaces per account', async () => {
    const { store } = await openTestStore()
    const { account, otherAccount, workspace, otherWorkspace, foreignWorkspace, user } =
      await seed(store)
    expect(workspace).toEqual({
      id: workspace.id,
      accountId: account.id,
      name: 'main',
      enabled: true,
      dedicatedIpsEnabled: false,
      privateLocationsEnabled: false,
      userId: user.id,
      created: expect.any(Number),
      updated: workspace.created,
    })
    const renamed = await store.workspaces.update(workspace.id, {
      name: 'primary',
      privateLocationsEnabled: true,
    })
    expect(renamed).toEqual({
      ...workspace,
      name: 'primary',
      privateLocationsEnabled: true,
      updated: expect.any(Number),
    })
    expect(renamed!.updated).toBeGreaterThan(workspace.updated)
    expect(await store.workspaces.get(workspace.id)).toEqual(renamed)
    expect(await store.workspaces.update(999, { name: 'x' })).toBeUndefined()
    expect((await store.workspaces.listByAccount(account.id, ALL)).items.map((w) => w.id)).toEqual([
      workspace.id,
      otherWorkspace.id,
    ])
    expect(
      (await store.workspaces.listByAccount(otherAccount.id, ALL)).items.map((w) => w.id),
    ).toEqual([foreignWorkspace.id])
  })
})
