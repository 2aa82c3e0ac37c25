import { createError } from '../errors/index.js'
import {
  LOCAL_LOCATION,
  type MockService,
  type Repositories,
  type Ship,
  type ShipAssignment,
} from '../store/index.js'

/** Where a mock service is deployed: the platform's own local host, or a harbor (and maybe a ship). */
type Target =
  | { kind: 'local' }
  | { kind: 'harbor'; harborId: string; shipId: string | null; fromEnvironment: boolean }

/**
 * Where a mock service record says it runs: `harborId` (and `shipId`) when they name a private
 * location, else the ship its `platformVseId` names (the virtual service environment it was put
 * in), else the platform's local host (`harbor-local`, or nothing set).
 *
 * @example
 * await targetOf(store, mock) // { kind: 'harbor', harborId: 'harbor-1a', shipId: null, fromEnvironment: false }
 */
export async function targetOf(
  repos: Pick<Repositories, 'locations'>,
  mock: MockService,
): Promise<Target> {
  if (mock.harborId !== null && mock.harborId !== '' && mock.harborId !== LOCAL_LOCATION.id) {
    return { kind: 'harbor', harborId: mock.harborId, shipId: mock.shipId, fromEnvironment: false }
  }
  if (mock.harborId === null && mock.platformVseId !== null && mock.platformVseId > 1) {
    const ship = await repos.locations.shipByEnvironment(mock.platformVseId)
    if (ship === undefined) {
      throw createError('ERR_API_NOT_FOUND', [`Environment ${mock.platformVseId}`])
    }
    return { kind: 'harbor', harborId: ship.harborId, shipId: ship.id, fromEnvironment: true }
  }
  return { kind: 'local' }
}

/**
 * The ship a deploy to `harborId` goes to. A named ship must be live (`ready`); with the harbor
 * alone the mock service stays on the live ship it is on, else goes to the live ship with the
 * fewest mock services to run (then the least memory). The harbor must be one the mock service's
 * workspace is offered: another account's, or unknown, is 404 as any unseen object; no live ship
 * is 409 naming the harbor, so that a deploy never answers "done" with nothing running.
 *
 * @example
 * const ship = await chooseShip(store, mock, { harborId: 'harbor-1a', shipId: null })
 */
export async function chooseShip(
  repos: Pick<Repositories, 'locations' | 'placements' | 'workspaces'>,
  mock: MockService,
  target: { harborId: string; shipId: string | null },
  exclude: readonly string[] = [],
): Promise<Ship> {
  const workspace = await repos.workspaces.get(mock.workspaceId)
  const harbor =
    workspace === undefined
      ? undefined
      : await repos.locations.harbor([workspace.accountId], target.harborId)
  if (harbor === undefined || !harbor.workspaceIds.includes(mock.workspaceId)) {
    throw createError('ERR_API_NOT_FOUND', [`Private location ${target.harborId}`])
  }
  const ships = await repos.locations.ships([harbor.id])
  if (target.shipId !== null && target.shipId !== '') {
    const ship = ships.find((s) => s.id === target.shipId)
    if (ship === undefined) {
      throw createError('ERR_API_NOT_FOUND', [
        `Agent ${target.shipId} of private location ${harbor.id}`,
      ])
    }
    if (ship.state !== 'ready') {
      throw notLive(
        harbor.id,
        [ship],
        ' (or set shipId to null: the platform then picks a live one)',
      )
    }
    return ship
  }
  const live = ships.filter((s) => s.state === 'ready' && !exclude.includes(s.id))
  if (live.length === 0) throw notLive(harbor.id, ships)
  const placed = await repos.placements.ofHarbor(harbor.id)
  const current = placed.find((p) => p.mockServiceId === mock.id)
  const staying = live.find((s) => s.id === current?.shipId)
  if (staying !== undefined) return staying
  return leastLoaded(live, placed)
}

/** The ship with the fewest mock services to run, then the least memory, then the oldest. */
export function leastLoaded(live: readonly Ship[], placed: readonly ShipAssignment[]): Ship {
  const load = (ship: Ship): number =>
    placed.filter((p) => p.shipId === ship.id && p.desired === 'RUNNING').length
  const sorted = [...live].sort(
    (a, b) => load(a) - load(b) || (a.memoryUsage ?? 0) - (b.memoryUsage ?? 0),
  )
  return sorted[0] as Ship
}

function notLive(harborId: string, ships: readonly Ship[], hint = ''): Error {
  const states =
    ships.length === 0
      ? 'it has no agent (create one: POST /api/v4/private-locations/{harborId}/servers)'
      : ships.map((s) => `${s.id} is ${s.state}`).join(', ')
  return createError('ERR_API_CONFLICT', [
    `No live agent in private location ${harborId} to run the mock service: ${states}. Start \`understudy agent\` for one of its ships${hint}, or deploy to harbor-local`,
  ])
}
