import { describe, expect, it } from 'vitest'
import { isConstraintViolation, type Asset } from '../../../src/store/index.js'
import { ALL, BY, openTestStore, seed } from './fixtures.js'

function assetInput(workspaceId: number, serviceId: number | null, overrides: Partial<Asset> = {}) {
  return {
    workspaceId,
    serviceId,
    name: 'pets.mar',
    description: null,
    type: 'MAR' as const,
    fileId: '0b7c4c4e-5b9b-4a55-9d5e-2f3f1a4a9f00',
    folderId: null,
    platformVseId: null,
    tags: [],
    primaryMetadata: {},
    secondaryMetadata: {},
    size: 1234,
    sha256: 'ab'.repeat(32),
    contentType: 'application/octet-stream',
    ...overrides,
    by: BY,
  }
}

describe('assets', () => {
  it('round-trips an asset with its metadata objects and tags', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const input = assetInput(world.workspace.id, world.service.id, {
      description: 'the pets MAR',
      folderId: 'f1',
      platformVseId: 9,
      tags: ['x, y'],
      primaryMetadata: { nested: { list: [1, 'two', null], flag: true } },
      secondaryMetadata: { 'key with "quotes"': 'ünï' },
    })
    const asset = await store.assets.create(input)
    const { by, ...fields } = input
    expect(asset).toEqual({
      ...fields,
      id: asset.id,
      created: expect.any(Number),
      updated: asset.created,
      createdBy: by,
      updatedBy: by,
    })
    expect(await store.assets.get(world.workspace.id, asset.id)).toEqual(asset)
  })

  it('updates the editable fields and deletes', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const asset = await store.assets.create(assetInput(world.workspace.id, null))
    const updated = await store.assets.update(world.workspace.id, asset.id, {
      description: 'd',
      serviceId: world.service.id,
      tags: ['t'],
      primaryMetadata: { a: 1 },
      by: 'bob@example.com',
    })
    expect(updated).toEqual({
      ...asset,
      description: 'd',
      serviceId: world.service.id,
      tags: ['t'],
      primaryMetadata: { a: 1 },
      updated: expect.any(Number),
      updatedBy: 'bob@example.com',
    })
    expect(await store.assets.delete(world.workspace.id, asset.id)).toBe(true)
    expect(await store.assets.get(world.workspace.id, asset.id)).toBeUndefined()
  })

  it('lists by workspace and service, never across workspaces', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const a = await store.assets.create(
      assetInput(world.workspace.id, world.service.id, { name: 'a' }),
    )
    const b = await store.assets.create(assetInput(world.workspace.id, null, { name: 'b' }))
    const c = await store.assets.create(
      assetInput(world.otherWorkspace.id, world.otherService.id, { name: 'c' }),
    )
    expect((await store.assets.list(world.workspace.id, {}, ALL)).items.map((x) => x.id)).toEqual([
      a.id,
      b.id,
    ])
    expect(
      (await store.assets.list(world.workspace.id, { serviceId: world.service.id }, ALL)).items.map(
        (x) => x.id,
      ),
    ).toEqual([a.id])
    expect(await store.assets.get(world.workspace.id, c.id)).toBeUndefined()
    expect(
      await store.assets.update(world.workspace.id, c.id, { description: 'x', by: BY }),
    ).toBeUndefined()
    expect(await store.assets.delete(world.workspace.id, c.id)).toBe(false)
  })

  it('findByName looks within one service (or none), leaving out idToIgnore', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const withService = await store.assets.create(
      assetInput(world.workspace.id, world.service.id, { name: 'x.mar' }),
    )
    const without = await store.assets.create(
      assetInput(world.workspace.id, null, { name: 'x.mar' }),
    )
    expect(await store.assets.findByName(world.workspace.id, world.service.id, 'x.mar')).toEqual(
      withService,
    )
    expect(await store.assets.findByName(world.workspace.id, null, 'x.mar')).toEqual(without)
    expect(
      await store.assets.findByName(world.workspace.id, world.service.id, 'x.mar', withService.id),
    ).toBeUndefined()
    expect(await store.assets.findByName(world.otherWorkspace.id, null, 'x.mar')).toBeUndefined()
    expect(await store.assets.findByName(world.workspace.id, null, 'X.MAR')).toBeUndefined()
  })

  it('refuses a service of another workspace, and loses its service when the service is deleted', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    await expect(
      store.assets.create(assetInput(world.workspace.id, world.otherService.id)),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'foreign-key'))
    const asset = await store.assets.create(assetInput(world.workspace.id, world.service.id))
    await expect(
      store.assets.update(world.workspace.id, asset.id, {
        serviceId: world.otherService.id,
        by: BY,
      }),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'foreign-key'))
    expect(await store.services.delete(world.workspace.id, world.service.id)).toBe(true)
    expect((await store.assets.get(world.workspace.id, asset.id))?.serviceId).toBeNull()
  })
})
