import { describe, expect, it } from 'vitest'
import type { ListQuery, Page } from '../../../src/store/index.js'
import { BY, mockServiceInput, openTestStore, realisticDsl, seed } from './fixtures.js'

const idsOf = (page: Page<{ id: number }>) => page.items.map((item) => item.id)

describe('lists', () => {
  it('page with limit and skip, and count the total before paging', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const ids = [world.service.id]
    for (const name of ['b', 'c', 'd', 'e']) {
      ids.push(
        (
          await store.services.create({
            workspaceId: world.workspace.id,
            name,
            description: null,
            by: BY,
          })
        ).id,
      )
    }
    const page = (query: ListQuery) => store.services.list(world.workspace.id, query)
    expect(await page({ limit: 2, skip: 0 })).toMatchObject({ total: 5 })
    expect(idsOf(await page({ limit: 2, skip: 0 }))).toEqual(ids.slice(0, 2))
    expect(idsOf(await page({ limit: 2, skip: 2 }))).toEqual(ids.slice(2, 4))
    expect(idsOf(await page({ limit: 2, skip: 4 }))).toEqual(ids.slice(4))
    expect(await page({ limit: 2, skip: 10 })).toEqual({ items: [], total: 5 })
  })

  it('sort by name (ignoring ASCII case), created and updated, ascending or descending, ties by id', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const ws = world.workspace.id
    const create = async (name: string) =>
      (await store.services.create({ workspaceId: ws, name, description: null, by: BY })).id
    const banana = await create('banana')
    const apple = await create('Apple')
    const cherry = await create('cherry')
    await store.services.update(ws, banana, { description: 'touched last', by: BY })
    const pets = world.service.id
    const sorted = async (sort: string) =>
      idsOf(await store.services.list(ws, { limit: 10, skip: 0, sort }))
    expect(await sorted('name')).toEqual([apple, banana, cherry, pets])
    expect(await sorted('-name')).toEqual([pets, cherry, banana, apple])
    expect(await sorted('created')).toEqual([pets, banana, apple, cherry])
    expect(await sorted('-created')).toEqual([cherry, apple, banana, pets])
    expect(await sorted('-updated')).toEqual([banana, cherry, apple, pets])
    expect(await sorted('id')).toEqual([pets, banana, apple, cherry])
    expect(await sorted('-id')).toEqual([cherry, apple, banana, pets])
    expect(await sorted('')).toEqual([pets, banana, apple, cherry])
  })

  it('order by id ascending when no sort is given, on every list', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const ws = world.workspace.id
    const query = { limit: 10, skip: 0 }
    const txns = []
    for (const name of ['z', 'a']) {
      txns.push(
        (
          await store.transactions.create({
            workspaceId: ws,
            serviceId: world.service.id,
            name,
            description: null,
            tags: [],
            dslType: 'GENERIC_DSL',
            dsl: realisticDsl(),
            by: BY,
          })
        ).id,
      )
    }
    expect(idsOf(await store.transactions.list(ws, {}, query))).toEqual(txns)
    const mocks = [
      (await store.mockServices.create(mockServiceInput(ws, world.service.id, { name: 'z' }))).id,
      (await store.mockServices.create(mockServiceInput(ws, world.service.id, { name: 'a' }))).id,
    ]
    expect(idsOf(await store.mockServices.list(ws, {}, query))).toEqual(mocks)
    expect(idsOf(await store.mockServices.list(ws, {}, { ...query, sort: 'name' }))).toEqual(
      [...mocks].reverse(),
    )
    const tags = await store.tags.ensure(world.account.id, ['z', 'a'], BY)
    expect(idsOf(await store.tags.list(world.account.id, query))).toEqual(tags.map((t) => t.id))
    expect(idsOf(await store.tags.list(world.account.id, { ...query, sort: '-name' }))).toEqual(
      tags.map((t) => t.id),
    )
    expect(
      (await store.users.listByAccount(world.account.id, { ...query, sort: 'email' })).total,
    ).toBe(1)
    expect(
      idsOf(await store.workspaces.listByAccount(world.account.id, { ...query, sort: '-name' })),
    ).toEqual([world.otherWorkspace.id, world.workspace.id])
  })

  it('throws on a sort field the list does not know, rather than ignoring it', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    await expect(
      store.services.list(world.workspace.id, { limit: 10, skip: 0, sort: 'password' }),
    ).rejects.toThrow(/cannot sort by "password"/)
    await expect(
      store.transactions.list(
        world.workspace.id,
        {},
        { limit: 10, skip: 0, sort: '-name; DROP TABLE services' },
      ),
    ).rejects.toThrow(/cannot sort/)
    await expect(
      store.services.list(world.workspace.id, { limit: 10, skip: 0, sort: 'constructor' }),
    ).rejects.toThrow(/cannot sort/)
    expect((await store.services.list(world.workspace.id, { limit: 10, skip: 0 })).total).toBe(1)
  })
})
