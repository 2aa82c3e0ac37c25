import { describe, expect, it } from 'vitest'
import { isConstraintViolation, type Tag } from '../../../src/store/index.js'
import { ALL, BY, openTestStore, seed } from './fixtures.js'

describe('services', () => {
  it('creates, reads, updates and deletes a service with its audit fields', async () => {
    const { store } = await openTestStore()
    const { workspace, service } = await seed(store)
    expect(service).toEqual({
      id: service.id,
      workspaceId: workspace.id,
      name: 'pets',
      description: 'Pet store',
      created: expect.any(Number),
      updated: service.created,
      createdBy: BY,
      updatedBy: BY,
    })
    expect(await store.services.get(workspace.id, service.id)).toEqual(service)
    expect(await store.services.getByName(workspace.id, 'pets')).toEqual(service)

    const updated = await store.services.update(workspace.id, service.id, {
      description: null,
      by: 'bob@example.com',
    })
    expect(updated).toEqual({
      ...service,
      description: null,
      updated: expect.any(Number),
      updatedBy: 'bob@example.com',
    })
    expect(updated!.updated).toBeGreaterThan(service.updated)
    const renamed = await store.services.update(workspace.id, service.id, {
      name: 'animals',
      by: BY,
    })
    expect(renamed).toMatchObject({ name: 'animals', description: null })

    expect(await store.services.delete(workspace.id, service.id)).toBe(true)
    expect(await store.services.delete(workspace.id, service.id)).toBe(false)
    expect(await store.services.get(workspace.id, service.id)).toBeUndefined()
  })

  it('never shows, changes or deletes a service through another workspace', async () => {
    const { store } = await openTestStore()
    const { otherWorkspace, service } = await seed(store)
    expect(await store.services.get(otherWorkspace.id, service.id)).toBeUndefined()
    expect(
      await store.services.update(otherWorkspace.id, service.id, { name: 'stolen', by: BY }),
    ).toBeUndefined()
    expect(await store.services.delete(otherWorkspace.id, service.id)).toBe(false)
    expect((await store.services.getByName(otherWorkspace.id, 'pets'))?.id).not.toBe(service.id)
    expect(
      (await store.services.list(otherWorkspace.id, ALL)).items.map((s) => s.id),
    ).not.toContain(service.id)
    expect(await store.services.get(service.workspaceId, service.id)).toEqual(service)
  })

  it('keeps service names unique per workspace, not across workspaces', async () => {
    const { store } = await openTestStore()
    const { workspace, service, otherService } = await seed(store)
    expect(otherService.name).toBe(service.name)
    await expect(
      store.services.create({ workspaceId: workspace.id, name: 'pets', description: null, by: BY }),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'unique'))
    const second = await store.services.create({
      workspaceId: workspace.id,
      name: 'orders',
      description: null,
      by: BY,
    })
    await expect(
      store.services.update(workspace.id, second.id, { name: 'pets', by: BY }),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'unique'))
  })

  it('cannot be created in a workspace that does not exist', async () => {
    const { store } = await openTestStore()
    await expect(
      store.services.create({ workspaceId: 77, name: 'x', description: null, by: BY }),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'foreign-key'))
  })
})

describe('tags', () => {
  it('creates, reads, renames and deletes a tag of an account', async () => {
    const { store } = await openTestStore()
    const { account } = await seed(store)
    const tag = await store.tags.create({
      accountId: account.id,
      name: 'smoke',
      description: 'fast ones',
      by: BY,
    })
    expect(tag).toEqual({
      id: tag.id,
      accountId: account.id,
      name: 'smoke',
      description: 'fast ones',
      created: expect.any(Number),
      updated: tag.created,
      createdBy: BY,
      updatedBy: BY,
    })
    expect(await store.tags.get(account.id, tag.id)).toEqual(tag)
    expect(await store.tags.getByName(account.id, 'smoke')).toEqual(tag)
    const renamed = await store.tags.update(account.id, tag.id, {
      name: 'quick',
      by: 'bob@example.com',
    })
    expect(renamed).toMatchObject({
      name: 'quick',
      description: 'fast ones',
      updatedBy: 'bob@example.com',
    })
    expect(await store.tags.getByName(account.id, 'smoke')).toBeUndefined()
    expect(await store.tags.delete(account.id, tag.id)).toBe(true)
    expect(await store.tags.get(account.id, tag.id)).toBeUndefined()
  })

  it('keeps each account to its own tags', async () => {
    const { store } = await openTestStore()
    const { account, otherAccount } = await seed(store)
    const mine = await store.tags.create({
      accountId: account.id,
      name: 'smoke',
      description: null,
      by: BY,
    })
    const theirs = await store.tags.create({
      accountId: otherAccount.id,
      name: 'smoke',
      description: null,
      by: BY,
    })
    expect(theirs.id).not.toBe(mine.id)
    expect(await store.tags.get(otherAccount.id, mine.id)).toBeUndefined()
    expect(await store.tags.getByName(otherAccount.id, 'smoke')).toEqual(theirs)
    expect(await store.tags.update(otherAccount.id, mine.id, { name: 'x', by: BY })).toBeUndefined()
    expect(await store.tags.delete(otherAccount.id, mine.id)).toBe(false)
    expect((await store.tags.list(account.id, ALL)).items).toEqual([mine])
    await expect(
      store.tags.create({ accountId: account.id, name: 'smoke', description: null, by: BY }),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'unique'))
  })

  it('ensure returns the named tags in order, creating only the missing ones', async () => {
    const { store } = await openTestStore()
    const { account } = await seed(store)
    const existing = await store.tags.create({
      accountId: account.id,
      name: 'b',
      description: 'kept',
      by: BY,
    })
    const tags = await store.tags.ensure(
      account.id,
      ['a', 'b', 'c, "quoted"', 'a'],
      'bob@example.com',
    )
    expect(tags.map((t) => t.name)).toEqual(['a', 'b', 'c, "quoted"'])
    expect(tags[1]).toEqual(existing)
    expect(tags[0]).toMatchObject({
      accountId: account.id,
      description: null,
      createdBy: 'bob@example.com',
    })
    const again = await store.tags.ensure(account.id, ['c, "quoted"', 'a'], BY)
    expect(again).toEqual([tags[2], tags[0]])
    expect((await store.tags.list(account.id, ALL)).total).toBe(3)
  })

  it('200 concurrent ensures with overlapping names create each tag once, without SQLITE_BUSY', async () => {
    const { store } = await openTestStore()
    const { account } = await seed(store)
    const names = Array.from({ length: 20 }, (_, i) => `tag-${i}`)
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, async (_, i) => {
        // Half through write, half through the store's own repositories (which go through write).
        if (i % 2 === 1) {
          return await store.tags.ensure(account.id, [names[i % 20]!, names[(i * 11) % 20]!], BY)
        }
        return await store.write(async (tx) => {
          const first = await tx.tags.ensure(account.id, [names[i % 20]!, names[(i * 7) % 20]!], BY)
          await new Promise<void>((resolve) => setImmediate(resolve)) // let the other writes try to get in between
          const second = await tx.tags.ensure(account.id, [names[(i * 3) % 20]!], BY)
          return [...first, ...second]
        })
      }),
    )
    const failures = results.filter((r) => r.status === 'rejected')
    expect(failures).toEqual([])
    const all = await store.tags.list(account.id, ALL)
    expect(all.total).toBe(20)
    expect(new Set(all.items.map((t) => t.name)).size).toBe(20)
    // Every call saw the one row of each name.
    const byName = new Map(all.items.map((t) => [t.name, t.id]))
    for (const r of results) {
      if (r.status === 'fulfilled') {
        for (const t of r.value as Tag[]) expect(t.id).toBe(byName.get(t.name))
      }
    }
  })
})
