import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ListQuery, Page } from '../../src/store/index.js'
import { Connection } from '../../src/store/sqlite/connection.js'
import { BY, mockServiceInput, onPostgres, openTestStore, seed } from '../unit/store/fixtures.js'

// Defect: every list other than transactions (users, workspaces, members, invitations, tags,
// services, mock services, assets) ran SELECT COUNT(*) over its whole scope, and an OFFSET page,
// on every call: on SQLite that held the event loop for O(rows), 5 ms for a first page of 50,000
// workspace members and 20 ms for a far one. Their totals are now maintained (migration 23) and
// their pages keyset-paged; the statements a list prepares show no COUNT.

afterEach(() => {
  vi.restoreAllMocks()
})

describe.skipIf(onPostgres)('the lists other than transactions', () => {
  it('read their total without counting their rows: no COUNT in any statement of an unfiltered list', async () => {
    const { store } = await openTestStore()
    const world = await seed(store)
    const account = world.account.id
    const workspace = world.workspace.id
    await store.tags.create({ accountId: account, name: 'smoke', description: null, by: BY })
    await store.mockServices.create(mockServiceInput(workspace, world.service.id))
    const lists: Array<[string, (query: ListQuery) => Promise<Page<unknown>>]> = [
      ['users', (q) => store.users.listByAccount(account, q)],
      ['workspaces', (q) => store.workspaces.listByAccount(account, q)],
      ['account members', (q) => store.tenancy.members(account, q)],
      ['workspace members', (q) => store.tenancy.workspaceMembers(workspace, q)],
      ['invitations', (q) => store.tenancy.invitations(account, q)],
      ['tags', (q) => store.tags.list(account, q)],
      ['services', (q) => store.services.list(workspace, q)],
      ['mock services', (q) => store.mockServices.list(workspace, {}, q)],
      ['assets', (q) => store.assets.list(workspace, {}, q)],
    ]
    const prepared = vi.spyOn(Connection.prototype, 'statement')
    for (const [name, list] of lists) {
      prepared.mockClear()
      const page = await list({ limit: 1, skip: 0, sort: 'id' })
      await list({ limit: 1, skip: 1, sort: 'id' })
      const statements = prepared.mock.calls.map(([sql]) => sql)
      expect(statements.length, name).toBeGreaterThan(0)
      expect(
        statements.filter((sql) => /COUNT\s*\(/i.test(sql)),
        name,
      ).toEqual([])
      expect(page.total, name).toBeGreaterThanOrEqual(page.items.length)
    }
  })
})
