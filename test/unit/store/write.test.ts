import { describe, expect, it } from 'vitest'
import { isUnderstudyError } from '../../../src/errors/index.js'
import { isConstraintViolation, type Repositories } from '../../../src/store/index.js'
import { ALL, BY, openTestStore, seed } from './fixtures.js'

/* store.write: one transaction per call, serialized, invisible to readers until committed. */

const tick = async () => await new Promise<void>((resolve) => setImmediate(resolve))

describe('store.write', () => {
  it('returns what fn returns and commits every change', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const made = await store.write(async (tx) => {
      const a = await tx.services.create({
        workspaceId: world.workspace.id,
        name: 'a',
        description: null,
        by: BY,
      })
      const b = await tx.services.create({
        workspaceId: world.workspace.id,
        name: 'b',
        description: null,
        by: BY,
      })
      return [a.id, b.id]
    })
    expect((await store.services.list(world.workspace.id, ALL)).items.map((s) => s.id)).toEqual([
      world.service.id,
      ...made,
    ])
  })

  it('leaves nothing behind when fn throws after two inserts, and rethrows its error', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const boom = new Error('boom')
    await expect(
      store.write(async (tx) => {
        await tx.services.create({
          workspaceId: world.workspace.id,
          name: 'a',
          description: null,
          by: BY,
        })
        await tick()
        await tx.tags.create({ accountId: world.account.id, name: 't', description: null, by: BY })
        throw boom
      }),
    ).rejects.toBe(boom)
    expect((await store.services.list(world.workspace.id, ALL)).total).toBe(1)
    expect((await store.tags.list(world.account.id, ALL)).total).toBe(0)
    // The writer is usable afterwards.
    await store.tags.create({ accountId: world.account.id, name: 't', description: null, by: BY })
    expect((await store.tags.list(world.account.id, ALL)).total).toBe(1)
  })

  it('rolls back everything when a statement fails half-way (a constraint), not just that statement', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    await expect(
      store.write(async (tx) => {
        await tx.services.create({
          workspaceId: world.workspace.id,
          name: 'fresh',
          description: null,
          by: BY,
        })
        await tx.services.create({
          workspaceId: world.workspace.id,
          name: 'pets',
          description: null,
          by: BY,
        })
      }),
    ).rejects.toSatisfy((err) => isConstraintViolation(err, 'unique'))
    expect(await store.services.getByName(world.workspace.id, 'fresh')).toBeUndefined()
  })

  it('hides uncommitted rows from reads made while the write is between awaits', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    // The write waits, its row inserted and not committed, until the outside reads are done.
    let inserted = (): void => {}
    const insertedYet = new Promise<void>((resolve) => {
      inserted = resolve
    })
    let readsDone = (): void => {}
    const readsDoneYet = new Promise<void>((resolve) => {
      readsDone = resolve
    })
    let seenInside: unknown
    const write = store.write(async (tx) => {
      const created = await tx.services.create({
        workspaceId: world.workspace.id,
        name: 'draft',
        description: null,
        by: BY,
      })
      inserted()
      await readsDoneYet
      seenInside = await tx.services.get(world.workspace.id, created.id)
      return created
    })
    await insertedYet
    const seenDuring = await store.services.getByName(world.workspace.id, 'draft')
    const totalDuring = (await store.services.list(world.workspace.id, ALL)).total
    readsDone()
    const created = await write
    expect(seenDuring).toBeUndefined()
    expect(totalDuring).toBe(1)
    expect(seenInside).toEqual(created)
    expect(await store.services.getByName(world.workspace.id, 'draft')).toEqual(created)
  })

  it('runs two concurrent writes one after the other, and both commit', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const events: string[] = []
    const run = async (name: string) =>
      await store.write(async (tx) => {
        events.push(`${name} start`)
        await tick()
        await tx.services.create({
          workspaceId: world.workspace.id,
          name,
          description: null,
          by: BY,
        })
        await tick()
        events.push(`${name} end`)
      })
    await Promise.all([run('one'), run('two')])
    expect(events).toEqual(['one start', 'one end', 'two start', 'two end'])
    expect((await store.services.list(world.workspace.id, ALL)).items.map((s) => s.name)).toEqual([
      'pets',
      'one',
      'two',
    ])
  })

  it('a failed write does not disturb the one queued behind it', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const failing = store.write(async (tx) => {
      await tx.services.create({
        workspaceId: world.workspace.id,
        name: 'lost',
        description: null,
        by: BY,
      })
      await tick()
      throw new Error('no')
    })
    const next = store.write(
      async (tx) =>
        await tx.services.create({
          workspaceId: world.workspace.id,
          name: 'kept',
          description: null,
          by: BY,
        }),
    )
    await expect(failing).rejects.toThrow('no')
    await next
    expect((await store.services.list(world.workspace.id, ALL)).items.map((s) => s.name)).toEqual([
      'pets',
      'kept',
    ])
  })

  it('changes made through the store outside write are committed one by one', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const results = await Promise.all(
      ['a', 'b', 'c'].map(
        async (name) =>
          await store.services.create({
            workspaceId: world.workspace.id,
            name,
            description: null,
            by: BY,
          }),
      ),
    )
    expect(results.map((s) => s.name)).toEqual(['a', 'b', 'c'])
    expect((await store.services.list(world.workspace.id, ALL)).total).toBe(4)
  })

  it('refuses a write started inside a write (it would wait for itself) with a clear error', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const nested = store.write(async () => {
      await store.services.create({
        workspaceId: world.workspace.id,
        name: 'x',
        description: null,
        by: BY,
      })
    })
    await expect(nested).rejects.toSatisfy(
      (err) => isUnderstudyError(err, 'ERR_STORE_FAILED') && /inside a write/.test(err.message),
    )
    expect(await store.services.getByName(world.workspace.id, 'x')).toBeUndefined()
  })

  it('allows a write from work that a finished write had started', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    let later: Promise<unknown> = Promise.resolve()
    await store.write(async () => {
      later = (async () => {
        await new Promise((resolve) => setTimeout(resolve, 10))
        return await store.services.create({
          workspaceId: world.workspace.id,
          name: 'later',
          description: null,
          by: BY,
        })
      })()
    })
    await expect(later).resolves.toMatchObject({ name: 'later' })
  })

  it('refuses the repositories of a write once it has ended', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    let leaked: Repositories | undefined
    await store.write(async (tx) => {
      leaked = tx
    })
    await expect(
      leaked!.services.create({
        workspaceId: world.workspace.id,
        name: 'x',
        description: null,
        by: BY,
      }),
    ).rejects.toSatisfy((err) => isUnderstudyError(err, 'ERR_STORE_FAILED'))
    expect(await store.services.getByName(world.workspace.id, 'x')).toBeUndefined()
  })
})

describe('close', () => {
  it('rejects every call afterwards with a clear error', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    await store.close()
    await store.close()
    const closed = (err: unknown) =>
      isUnderstudyError(err, 'ERR_STORE_FAILED') && /closed/.test(err.message)
    await expect(store.services.get(world.workspace.id, world.service.id)).rejects.toSatisfy(closed)
    await expect(store.accounts.count()).rejects.toSatisfy(closed)
    await expect(store.tags.ensure(world.account.id, ['x'], BY)).rejects.toSatisfy(closed)
    await expect(store.write(async () => 1)).rejects.toSatisfy(closed)
    await expect(store.schemaVersion()).rejects.toSatisfy(closed)
  })

  it('lets a write in progress finish before closing', async () => {
    const { store, reopen } = await openTestStore()
    const world = await seed(store)
    const write = store.write(async (tx) => {
      await tick()
      return await tx.services.create({
        workspaceId: world.workspace.id,
        name: 'last',
        description: null,
        by: BY,
      })
    })
    await store.close()
    await expect(write).resolves.toMatchObject({ name: 'last' })
    const reopened = await reopen()
    expect(await reopened.services.getByName(world.workspace.id, 'last')).toBeDefined()
  })
})
