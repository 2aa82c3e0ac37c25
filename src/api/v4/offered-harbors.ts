import type { Harbor, Repositories, Ship, Workspace } from '../../store/index.js'

/**
 * The private locations (harbors) offered to a workspace, by name, each with its ships: what its
 * `locations` and `platformvses` show, and where its mock services may be deployed.
 *
 * @example
 * for (const { harbor, ships } of await offeredHarbors(store, workspace)) console.log(harbor.id, ships.length)
 */
export async function offeredHarbors(
  repos: Pick<Repositories, 'locations'>,
  workspace: Workspace,
): Promise<Array<{ harbor: Harbor; ships: Ship[] }>> {
  const harbors = await repos.locations.harbors(
    { accountId: workspace.accountId, workspaceIds: [workspace.id] },
    { limit: -1, skip: 0, sort: 'name' },
  )
  const ships = await repos.locations.ships(harbors.items.map((h) => h.id))
  return harbors.items.map((harbor) => ({
    harbor,
    ships: ships.filter((s) => s.harborId === harbor.id),
  }))
}
