import type { Store } from '../src/store/index.js'

/** What createBenchWorkspace made. */
export interface BenchWorkspace {
  accountId: number
  ownerId: number
  workspaceId: number
}

/**
 * An account named `bench` with one admin user and one workspace, through the store API: where
 * the store benches seed their rows.
 *
 * @example
 * const { accountId, workspaceId } = await createBenchWorkspace(store)
 */
export async function createBenchWorkspace(store: Store): Promise<BenchWorkspace> {
  const account = await store.accounts.create({ name: 'bench' })
  const owner = await store.users.create({
    accountId: account.id,
    email: 'owner@bench.test',
    firstName: 'Owner',
    lastName: 'Bench',
    enabled: true,
    accountRoles: ['admin'],
  })
  const workspace = await store.workspaces.create({
    accountId: account.id,
    name: 'bench',
    enabled: true,
    dedicatedIpsEnabled: false,
    privateLocationsEnabled: false,
    userId: owner.id,
  })
  return { accountId: account.id, ownerId: owner.id, workspaceId: workspace.id }
}
