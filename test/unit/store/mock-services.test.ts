import { describe, expect, it } from 'vitest'
import { isConstraintViolation } from '../../../src/store/index.js'
import { ALL, BY, mockServiceInput, openTestStore, realisticDsl, seed } from './fixtures.js'

describe('mock services', () => {
  it('round-trips every field of the record', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const txn = await store.transactions.create({
      workspaceId: world.workspace.id,
      serviceId: world.service.id,
      name: 't',
      description: null,
      tags: [],
      dslType: 'GENERIC_DSL',
      dsl: realisticDsl(),
      by: BY,
    })
    const input = mockServiceInput(world.workspace.id, world.service.id, {
      description: 'd',
      status: 'PENDING',
      harborId: 'h1',
      shipId: 's1',
      bridgeId: 3,
      registryId: 4,
      vseId: 5,
      platformVseId: 6,
      endpointPreference: 'HTTPS',
      liveSystemHost: 'live.example.com',
      liveSystemPort: 8443,
      thinkTime: 250,
      noMatchingRequestPreference: 'returnTransaction',
      noMatchingRequestTxnId: txn.id,
      mockServiceTransactions: [
        { txnId: txn.id, priority: 2 },
        { txnId: 999, priority: null },
      ],
      tags: ['a, b', 'c'],
      groupTag: 'g',
      httpEndpoint: 'http://127.0.0.1:41000',
      httpsEndpoint: 'https://127.0.0.1:41001',
      port: 41000,
      tlsPort: 41001,
      deployDate: 1_700_000_000_000,
      pendingUpdate: true,
      proxy: {
        proxyUrl: 'http://proxy:3128',
        nonProxyHosts: 'localhost',
        username: 'u',
        password: 'p',
      },
    })
    const mock = await store.mockServices.create(input)
    const { by, ...fields } = input
    expect(mock).toEqual({
      ...fields,
      id: mock.id,
      created: expect.any(Number),
      updated: mock.created,
      createdBy: by,
      updatedBy: by,
    })
    expect(await store.mockServices.get(world.workspace.id, mock.id)).toEqual(mock)
    expect(await store.mockServices.getById(mock.id)).toEqual(mock)
  })

  it('update changes only the given fields, and the audit fields only when `by` is given', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const mock = await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id),
    )
    const running = await store.mockServices.update(mock.id, {
      status: 'RUNNING',
      httpEndpoint: 'http://127.0.0.1:4000',
      port: 4000,
    })
    expect(running).toEqual({
      ...mock,
      status: 'RUNNING',
      httpEndpoint: 'http://127.0.0.1:4000',
      port: 4000,
    })
    const edited = await store.mockServices.update(mock.id, {
      name: 'renamed',
      thinkTime: null,
      by: 'bob@example.com',
    })
    expect(edited).toEqual({
      ...running,
      name: 'renamed',
      thinkTime: null,
      updated: expect.any(Number),
      updatedBy: 'bob@example.com',
    })
    expect(edited!.updated).toBeGreaterThan(mock.updated)
    expect(await store.mockServices.update(999, { status: 'FAILED' })).toBeUndefined()
  })

  it('update ignores identity, scope and creation fields smuggled into a patch', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const mock = await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id),
    )
    const patch = {
      id: 555,
      workspaceId: world.otherWorkspace.id,
      created: 1,
      createdBy: 'eve',
      name: 'x',
    }
    const updated = await store.mockServices.update(mock.id, patch)
    expect(updated).toEqual({ ...mock, name: 'x' })
  })

  it('lists by workspace and service, by status, counts per service, and reports used ports', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const orders = await store.services.create({
      workspaceId: world.workspace.id,
      name: 'orders',
      description: null,
      by: BY,
    })
    const a = await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id, {
        status: 'RUNNING',
        port: 4100,
        tlsPort: 4101,
      }),
    )
    const b = await store.mockServices.create(
      mockServiceInput(world.workspace.id, orders.id, { status: 'PENDING', port: 4050 }),
    )
    const c = await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id),
    )
    const d = await store.mockServices.create(
      mockServiceInput(world.otherWorkspace.id, world.otherService.id, { status: 'RUNNING' }),
    )
    expect(
      (await store.mockServices.list(world.workspace.id, {}, ALL)).items.map((m) => m.id),
    ).toEqual([a.id, b.id, c.id])
    expect(
      (
        await store.mockServices.list(world.workspace.id, { serviceId: world.service.id }, ALL)
      ).items.map((m) => m.id),
    ).toEqual([a.id, c.id])
    expect(
      (await store.mockServices.list(world.otherWorkspace.id, { serviceId: world.service.id }, ALL))
        .total,
    ).toBe(0)
    expect(
      (await store.mockServices.listByStatus(['RUNNING', 'PENDING'])).map((m) => m.id),
    ).toEqual([a.id, b.id, d.id])
    expect(await store.mockServices.listByStatus([])).toEqual([])
    expect(await store.mockServices.countByService(world.workspace.id, world.service.id)).toBe(2)
    expect(await store.mockServices.countByService(world.otherWorkspace.id, world.service.id)).toBe(
      0,
    )
    expect(await store.mockServices.usedPorts()).toEqual([4050, 4100, 4101])
  })

  it('refuses to give one port to two mock services', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id, { port: 4100 }),
    )
    await expect(
      store.mockServices.create(
        mockServiceInput(world.workspace.id, world.service.id, { port: 4100 }),
      ),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'unique'))
  })

  it('never shows or deletes a mock service through another workspace', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const mock = await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id),
    )
    expect(await store.mockServices.get(world.otherWorkspace.id, mock.id)).toBeUndefined()
    expect(await store.mockServices.delete(world.otherWorkspace.id, mock.id)).toBe(false)
    expect(await store.mockServices.delete(world.workspace.id, mock.id)).toBe(true)
    expect(await store.mockServices.getById(mock.id)).toBeUndefined()
  })

  it('cannot use a service of another workspace, or one that does not exist', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    await expect(
      store.mockServices.create(mockServiceInput(world.workspace.id, world.otherService.id)),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'foreign-key'))
    await expect(
      store.mockServices.create(mockServiceInput(world.workspace.id, 999)),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'foreign-key'))
  })
})

describe('trackings and log snapshots', () => {
  it('creates a tracking, moves it along and ends it', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const mock = await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id),
    )
    const tracking = await store.trackings.create({
      trackingId: 'c0ffee-1',
      workspaceId: world.workspace.id,
      mockServiceId: mock.id,
      action: 'deploy',
      status: 'PENDING',
      errors: [],
      warnings: [],
      createdBy: BY,
    })
    expect(tracking).toEqual({
      trackingId: 'c0ffee-1',
      workspaceId: world.workspace.id,
      mockServiceId: mock.id,
      action: 'deploy',
      status: 'PENDING',
      errors: [],
      warnings: [],
      created: expect.any(Number),
      updated: tracking.created,
      ended: null,
      createdBy: BY,
    })
    const failed = await store.trackings.update('c0ffee-1', {
      status: 'FAILED',
      errors: [{ code: 'ERR_DEPLOY_FAILED', message: 'port "4000" taken, sorry' }],
      ended: 42,
    })
    expect(failed).toEqual({
      ...tracking,
      status: 'FAILED',
      errors: [{ code: 'ERR_DEPLOY_FAILED', message: 'port "4000" taken, sorry' }],
      ended: 42,
      updated: expect.any(Number),
    })
    expect(await store.trackings.get('c0ffee-1')).toEqual(failed)
    expect(await store.trackings.get('nope')).toBeUndefined()
    expect(await store.trackings.update('nope', { status: 'RUNNING' })).toBeUndefined()
  })

  it('refuses a tracking for a mock service of another workspace', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const mock = await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id),
    )
    await expect(
      store.trackings.create({
        trackingId: 't',
        workspaceId: world.otherWorkspace.id,
        mockServiceId: mock.id,
        action: 'stop',
        status: 'PENDING',
        errors: [],
        warnings: [],
        createdBy: null,
      }),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'foreign-key'))
  })

  it('numbers log snapshots with increasing ids, scoped by mock service', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const mock = await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id),
    )
    const other = await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id),
    )
    const first = await store.logs.create({
      mockServiceId: mock.id,
      trackingId: null,
      log: 'line 1\nline 2',
    })
    const second = await store.logs.create({
      mockServiceId: other.id,
      trackingId: 'c0ffee-1',
      log: '',
    })
    const third = await store.logs.create({
      mockServiceId: mock.id,
      trackingId: null,
      log: 'again',
    })
    expect(first).toEqual({
      logId: first.logId,
      mockServiceId: mock.id,
      trackingId: null,
      log: 'line 1\nline 2',
      created: expect.any(Number),
    })
    expect(second.logId).toBeGreaterThan(first.logId)
    expect(third.logId).toBeGreaterThan(second.logId)
    expect(await store.logs.get(mock.id, first.logId)).toEqual(first)
    expect(await store.logs.get(other.id, first.logId)).toBeUndefined()
  })

  it('go with their mock service', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const mock = await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id),
    )
    await store.trackings.create({
      trackingId: 't',
      workspaceId: world.workspace.id,
      mockServiceId: mock.id,
      action: 'deploy',
      status: 'PENDING',
      errors: [],
      warnings: [],
      createdBy: null,
    })
    const log = await store.logs.create({ mockServiceId: mock.id, trackingId: 't', log: 'x' })
    await store.mockServices.delete(world.workspace.id, mock.id)
    expect(await store.trackings.get('t')).toBeUndefined()
    expect(await store.logs.get(mock.id, log.logId)).toBeUndefined()
  })
})
