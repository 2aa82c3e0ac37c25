import { describe, expect, it } from 'vitest'
import { isConstraintViolation } from '../../../src/store/index.js'
import { BY, mockServiceInput, openTestStore, realisticDsl, seed } from './fixtures.js'

/* What the schema itself refuses or cleans up, whatever a caller forgets to check. */

describe('foreign keys', () => {
  it('refuses to delete a service that a mock service uses, and keeps everything', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const txn = await store.transactions.create({
      workspaceId: world.workspace.id,
      serviceId: world.service.id,
      name: 't',
      description: null,
      tags: ['a'],
      dslType: 'GENERIC_DSL',
      dsl: realisticDsl(),
      by: BY,
    })
    const mock = await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id),
    )
    await expect(store.services.delete(world.workspace.id, world.service.id)).rejects.toSatisfy(
      (err) => isConstraintViolation(err, 'foreign-key'),
    )
    expect(await store.services.get(world.workspace.id, world.service.id)).toEqual(world.service)
    expect(await store.transactions.get(world.workspace.id, txn.id)).toEqual(txn)
    expect(await store.mockServices.delete(world.workspace.id, mock.id)).toBe(true)
    expect(await store.services.delete(world.workspace.id, world.service.id)).toBe(true)
  })

  it('deletes the transactions (and their tags) of a deleted service', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const txn = await store.transactions.create({
      workspaceId: world.workspace.id,
      serviceId: world.service.id,
      name: 't',
      description: null,
      tags: ['a'],
      dslType: 'GENERIC_DSL',
      dsl: realisticDsl(),
      by: BY,
    })
    await store.services.delete(world.workspace.id, world.service.id)
    expect(await store.transactions.get(world.workspace.id, txn.id)).toBeUndefined()
    expect(
      (await store.transactions.list(world.workspace.id, { tags: ['a'] }, { limit: 10, skip: 0 }))
        .total,
    ).toBe(0)
  })

  it('clears a mock service reference to a deleted transaction or asset', async () => {
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
    const asset = await store.assets.create({
      workspaceId: world.workspace.id,
      serviceId: null,
      name: 'a.mar',
      description: null,
      type: 'MAR',
      fileId: 'f',
      folderId: null,
      platformVseId: null,
      tags: [],
      primaryMetadata: {},
      secondaryMetadata: {},
      size: 1,
      sha256: 'x',
      contentType: null,
      by: BY,
    })
    const mock = await store.mockServices.create(
      mockServiceInput(world.workspace.id, world.service.id, {
        noMatchingRequestTxnId: txn.id,
        assetId: asset.id,
        mockServiceTransactions: [{ txnId: txn.id, priority: 1 }],
      }),
    )
    await store.transactions.delete(world.workspace.id, txn.id)
    await store.assets.delete(world.workspace.id, asset.id)
    const after = await store.mockServices.getById(mock.id)
    expect(after).toMatchObject({ noMatchingRequestTxnId: null, assetId: null })
    // The JSON list is not a foreign key: the deployer skips ids that are gone.
    expect(after?.mockServiceTransactions).toEqual([{ txnId: txn.id, priority: 1 }])
  })

  it('refuses a mock service pointing at a transaction or asset that does not exist', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    await expect(
      store.mockServices.create(
        mockServiceInput(world.workspace.id, world.service.id, { noMatchingRequestTxnId: 999 }),
      ),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'foreign-key'))
    await expect(
      store.mockServices.create(
        mockServiceInput(world.workspace.id, world.service.id, { assetId: 999 }),
      ),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'foreign-key'))
  })

  it('refuses values the schema does not allow, naming the kind of rule', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    // @ts-expect-error a status the type does not allow, as an unchecked caller could send
    const badStatus = mockServiceInput(world.workspace.id, world.service.id, { status: 'DANCING' })
    await expect(store.mockServices.create(badStatus)).rejects.toSatisfy((err) =>
      isConstraintViolation(err, 'check'),
    )
    await expect(
      store.services.create({
        workspaceId: world.workspace.id,
        // @ts-expect-error a null name, as an unchecked caller could send
        name: null,
        description: null,
        by: BY,
      }),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'not-null'))
    expect(isConstraintViolation(new Error('plain'))).toBe(false)
    expect(isConstraintViolation('SQLITE_CONSTRAINT')).toBe(false)
  })
})
