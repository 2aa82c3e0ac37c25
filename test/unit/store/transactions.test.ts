import { describe, expect, it } from 'vitest'
import {
  isConstraintViolation,
  type Store,
  type StoredTransaction,
} from '../../../src/store/index.js'
import { ALL, BY, openTestStore, realisticDsl, seed, type World } from './fixtures.js'

function create(
  store: Store,
  world: World,
  input: Partial<
    Pick<StoredTransaction, 'name' | 'description' | 'tags' | 'dslType' | 'serviceId'>
  >,
) {
  return store.transactions.create({
    workspaceId: world.workspace.id,
    serviceId: input.serviceId ?? world.service.id,
    name: input.name ?? 'get pet',
    description: input.description ?? null,
    tags: input.tags ?? [],
    dslType: input.dslType ?? 'GENERIC_DSL',
    dsl: realisticDsl(),
    by: BY,
  })
}

async function names(
  store: Store,
  world: World,
  filter: Parameters<Store['transactions']['list']>[1],
): Promise<string[]> {
  return (await store.transactions.list(world.workspace.id, filter, ALL)).items.map((t) => t.name)
}

describe('transactions', () => {
  it('stores a realistic DSL as JSON and reads it back unchanged', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const created = await create(store, world, {
      name: 'create order',
      description: 'POST with body',
      tags: ['orders', 'v2'],
    })
    expect(created).toEqual({
      id: created.id,
      workspaceId: world.workspace.id,
      serviceId: world.service.id,
      name: 'create order',
      description: 'POST with body',
      tags: ['orders', 'v2'],
      dslType: 'GENERIC_DSL',
      dsl: realisticDsl(),
      created: expect.any(Number),
      updated: created.created,
      createdBy: BY,
      updatedBy: BY,
    })
    expect(await store.transactions.get(world.workspace.id, created.id)).toEqual(created)
    expect((await store.transactions.list(world.workspace.id, {}, ALL)).items).toEqual([created])
  })

  it('keeps tags in the given order without duplicates, and replaces them on update', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const t = await create(store, world, { tags: ['z', 'a', 'z', 'm'] })
    expect(t.tags).toEqual(['z', 'a', 'm'])
    expect((await store.transactions.get(world.workspace.id, t.id))?.tags).toEqual(['z', 'a', 'm'])
    const updated = await store.transactions.update(world.workspace.id, t.id, {
      tags: ['b'],
      name: 'renamed',
      by: 'bob@example.com',
    })
    expect(updated).toEqual({
      ...t,
      tags: ['b'],
      name: 'renamed',
      updated: expect.any(Number),
      updatedBy: 'bob@example.com',
    })
    const untouchedTags = await store.transactions.update(world.workspace.id, t.id, {
      description: 'd',
      by: BY,
    })
    expect(untouchedTags?.tags).toEqual(['b'])
  })

  it('updates the dsl, type and service, but only to a service of the same workspace', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const t = await create(store, world, {})
    const orders = await store.services.create({
      workspaceId: world.workspace.id,
      name: 'orders',
      description: null,
      by: BY,
    })
    const dsl = { ...realisticDsl(), priority: 1 }
    const moved = await store.transactions.update(world.workspace.id, t.id, {
      serviceId: orders.id,
      dsl,
      dslType: 'HAR_DSL',
      by: BY,
    })
    expect(moved).toMatchObject({ serviceId: orders.id, dslType: 'HAR_DSL', dsl })
    await expect(
      store.transactions.update(world.workspace.id, t.id, {
        serviceId: world.otherService.id,
        by: BY,
      }),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'foreign-key'))
    expect(
      await store.transactions.update(world.workspace.id, 999, { name: 'x', by: BY }),
    ).toBeUndefined()
  })

  it('refuses a transaction whose service does not exist or is in another workspace', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    await expect(create(store, world, { serviceId: 999 })).rejects.toSatisfy((err) =>
      isConstraintViolation(err, 'foreign-key'),
    )
    await expect(create(store, world, { serviceId: world.otherService.id })).rejects.toSatisfy(
      (err) => isConstraintViolation(err, 'foreign-key'),
    )
    expect((await store.transactions.list(world.workspace.id, {}, ALL)).total).toBe(0)
  })

  it('never shows, changes or deletes a transaction through another workspace', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const t = await create(store, world, { tags: ['a'] })
    const other = world.otherWorkspace.id
    expect(await store.transactions.get(other, t.id)).toBeUndefined()
    expect((await store.transactions.list(other, {}, ALL)).total).toBe(0)
    expect((await store.transactions.list(other, { ids: [t.id] }, ALL)).total).toBe(0)
    expect(await store.transactions.update(other, t.id, { name: 'x', by: BY })).toBeUndefined()
    expect(await store.transactions.delete(other, t.id)).toBe(false)
    expect(await store.transactions.deleteMany(other, [t.id])).toEqual([])
    expect(await store.transactions.changeTags(other, [t.id], { add: ['b'] }, BY)).toEqual([])
    expect(await store.transactions.get(world.workspace.id, t.id)).toEqual(t)
  })

  it('deletes one, or many returning those deleted', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const [a, b, c] = [
      await create(store, world, { name: 'a' }),
      await create(store, world, { name: 'b' }),
      await create(store, world, { name: 'c' }),
    ]
    expect(await store.transactions.delete(world.workspace.id, a.id)).toBe(true)
    expect(await store.transactions.delete(world.workspace.id, a.id)).toBe(false)
    expect(
      await store.transactions.deleteMany(world.workspace.id, [c.id, a.id, 999, c.id, b.id]),
    ).toEqual([c.id, b.id])
    expect((await store.transactions.list(world.workspace.id, {}, ALL)).total).toBe(0)
  })

  it('servicesOf maps each existing id of the workspace to its service, however many are asked', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const ws = world.workspace.id
    const second = await store.services.create({
      workspaceId: ws,
      name: 'orders',
      description: null,
      by: BY,
    })
    const a = await create(store, world, { name: 'a' })
    const b = await create(store, world, { name: 'b', serviceId: second.id })
    expect(await store.transactions.servicesOf(ws, [])).toEqual(new Map())
    expect(await store.transactions.servicesOf(ws, [b.id, 999_999, a.id, b.id])).toEqual(
      new Map([
        [b.id, second.id],
        [a.id, world.service.id],
      ]),
    )
    // An id no column could hold is no transaction, not an error of the database.
    expect(await store.transactions.servicesOf(ws, [1e20, a.id])).toEqual(
      new Map([[a.id, world.service.id]]),
    )
    expect(await store.transactions.servicesOf(world.otherWorkspace.id, [a.id, b.id])).toEqual(
      new Map(),
    )
    // More ids than one statement binds: the existing ones are found in every chunk.
    const many = Array.from({ length: 700 }, (_, i) => 1_000_000 + i)
    many.splice(300, 0, a.id)
    many.push(b.id)
    expect(await store.transactions.servicesOf(ws, many)).toEqual(
      new Map([
        [a.id, world.service.id],
        [b.id, second.id],
      ]),
    )
    expect(await store.write(async (tx) => await tx.transactions.servicesOf(ws, [a.id]))).toEqual(
      new Map([[a.id, world.service.id]]),
    )
  })

  it('changeTags adds and removes tags on the existing transactions and returns their ids', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const a = await create(store, world, { name: 'a', tags: ['x'] })
    const b = await create(store, world, { name: 'b', tags: ['y'] })
    const changed = await store.transactions.changeTags(
      world.workspace.id,
      [b.id, 999, a.id],
      { add: ['new, "one"', 'x'] },
      'bob@example.com',
    )
    expect(changed).toEqual([b.id, a.id])
    const a2 = await store.transactions.get(world.workspace.id, a.id)
    const b2 = await store.transactions.get(world.workspace.id, b.id)
    expect(a2?.tags).toEqual(['x', 'new, "one"'])
    expect(b2?.tags).toEqual(['y', 'new, "one"', 'x'])
    expect(b2).toMatchObject({ updatedBy: 'bob@example.com' })

    expect(
      await store.transactions.changeTags(
        world.workspace.id,
        [a.id, b.id],
        { remove: ['x', 'absent'] },
        BY,
      ),
    ).toEqual([a.id, b.id])
    expect((await store.transactions.get(world.workspace.id, a.id))?.tags).toEqual(['new, "one"'])
    expect((await store.transactions.get(world.workspace.id, b.id))?.tags).toEqual([
      'y',
      'new, "one"',
    ])

    // Nothing to change: still reported (it exists), but its audit fields stay as they were.
    const before = await store.transactions.get(world.workspace.id, a.id)
    expect(
      await store.transactions.changeTags(
        world.workspace.id,
        [a.id],
        { add: ['new, "one"'] },
        'eve@example.com',
      ),
    ).toEqual([a.id])
    expect(await store.transactions.get(world.workspace.id, a.id)).toEqual(before)
  })

  describe('list filters', () => {
    async function fixture() {
      const { store } = await openTestStore()
      const world = await seed(store)
      const orders = await store.services.create({
        workspaceId: world.workspace.id,
        name: 'orders',
        description: null,
        by: BY,
      })
      const made = {
        getPet: await create(store, world, {
          name: 'Get pet',
          description: 'Reads one PET',
          tags: ['read', 'pets'],
        }),
        listPets: await create(store, world, {
          name: 'list pets',
          description: null,
          tags: ['read', 'a,b'],
        }),
        discount: await create(store, world, {
          name: '100% off',
          description: 'promo_code',
          tags: ['say "hi"', 'a,b'],
          dslType: 'HAR_DSL',
        }),
        underscore: await create(store, world, {
          name: 'snake_case',
          description: 'x',
          tags: ['a'],
          serviceId: orders.id,
        }),
        unicode: await create(store, world, {
          name: 'ÉCOLE',
          description: null,
          tags: [],
          dslType: 'RR_PAIR',
          serviceId: orders.id,
        }),
      }
      await store.transactions.create({
        workspaceId: world.otherWorkspace.id,
        serviceId: world.otherService.id,
        name: 'Get pet',
        description: null,
        tags: ['read'],
        dslType: 'GENERIC_DSL',
        dsl: realisticDsl(),
        by: BY,
      })
      return { store, world, orders, made }
    }

    it('filters by service, exact name and dsl type', async () => {
      const { store, world, orders } = await fixture()
      expect(await names(store, world, { serviceId: orders.id })).toEqual(['snake_case', 'ÉCOLE'])
      expect(await names(store, world, { name: 'Get pet' })).toEqual(['Get pet'])
      expect(await names(store, world, { name: 'get pet' })).toEqual([])
      expect(await names(store, world, { dslType: 'HAR_DSL' })).toEqual(['100% off'])
      expect(await names(store, world, { dslType: 'RR_PAIR', serviceId: orders.id })).toEqual([
        'ÉCOLE',
      ])
    })

    it('contains matches a case-insensitive substring of the name or the description', async () => {
      const { store, world } = await fixture()
      expect(await names(store, world, { contains: 'PET' })).toEqual(['Get pet', 'list pets'])
      expect(await names(store, world, { contains: 'one pet' })).toEqual(['Get pet'])
      expect(await names(store, world, { contains: 'PROMO' })).toEqual(['100% off'])
      expect(await names(store, world, { contains: 'école' })).toEqual(['ÉCOLE'])
      expect(await names(store, world, { contains: '' })).toHaveLength(5)
    })

    it('contains takes % and _ literally, not as LIKE wildcards', async () => {
      const { store, world } = await fixture()
      expect(await names(store, world, { contains: '%' })).toEqual(['100% off'])
      expect(await names(store, world, { contains: '0%' })).toEqual(['100% off'])
      expect(await names(store, world, { contains: '_' })).toEqual(['100% off', 'snake_case'])
      expect(await names(store, world, { contains: 'e_c' })).toEqual(['snake_case'])
      expect(await names(store, world, { contains: 'g_t' })).toEqual([])
      expect(await names(store, world, { contains: '\\' })).toEqual([])
    })

    it('tags keeps transactions carrying every tag, comparing whole tags with commas and quotes', async () => {
      const { store, world } = await fixture()
      expect(await names(store, world, { tags: ['read'] })).toEqual(['Get pet', 'list pets'])
      expect(await names(store, world, { tags: ['read', 'pets'] })).toEqual(['Get pet'])
      expect(await names(store, world, { tags: ['a,b'] })).toEqual(['list pets', '100% off'])
      expect(await names(store, world, { tags: ['a'] })).toEqual(['snake_case'])
      expect(await names(store, world, { tags: ['b'] })).toEqual([])
      expect(await names(store, world, { tags: ['say "hi"'] })).toEqual(['100% off'])
      expect(await names(store, world, { tags: ['say "hi"', 'a,b', 'a,b'] })).toEqual(['100% off'])
      expect(await names(store, world, { tags: ['read', 'missing'] })).toEqual([])
      expect(await names(store, world, { tags: [] })).toHaveLength(5)
    })

    it('ids keeps the listed ones; an empty list keeps none', async () => {
      const { store, world, made } = await fixture()
      expect(await names(store, world, { ids: [made.unicode.id, made.getPet.id, 999] })).toEqual([
        'Get pet',
        'ÉCOLE',
      ])
      expect(await names(store, world, { ids: [] })).toEqual([])
    })

    it('combines filters, and counts the total before paging', async () => {
      const { store, world } = await fixture()
      const page = await store.transactions.list(
        world.workspace.id,
        { contains: 'p', tags: ['read'] },
        { limit: 1, skip: 1, sort: '-name' },
      )
      expect(page.total).toBe(2)
      expect(page.items.map((t) => t.name)).toEqual(['Get pet'])
      expect(page.items[0]?.tags).toEqual(['read', 'pets'])
    })
  })
})
