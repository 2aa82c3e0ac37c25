import type { Harbor, Ship } from '../../store/index.js'
import { epochSeconds, epochSecondsOrNull, isoDate } from '../format.js'

/*
 * The shapes of the product's private locations API (a harbor and its "servers", the ships),
 * and of a harbor among a workspace's `locations` (the administration specification's Location).
 */

/** A ship (agent) as `/private-locations/{harborId}/servers` shows it; `ts` is its last heartbeat. */
export function shipView(ship: Ship) {
  return {
    id: ship.id,
    harborId: ship.harborId,
    name: ship.name,
    address: ship.address,
    state: ship.state,
    hasJetlag: false,
    created: epochSeconds(ship.created),
    updated: epochSeconds(ship.updated),
    ts: epochSecondsOrNull(ship.lastHeartbeat),
    // What its agent's last heartbeat said (null before the first).
    lastHeartBeat: ship.lastHeartbeat === null ? null : isoDate(ship.lastHeartbeat),
    memoryUsage: ship.memoryUsage,
    msRunningCount: ship.msRunningCount,
    transactionsCount: ship.transactionsCount,
    version: ship.agentVersion,
    advertiseHost: ship.advertiseHost,
    regions: ship.regions ?? [],
    platformVseId: ship.environmentId,
  }
}

/**
 * A harbor as `/private-locations` shows it. Only mock services run on this platform's agents,
 * so `funcIds` is `mockServices` alone and the load-engine sizing fields are absent.
 */
export function harborView(harbor: Harbor, ships: readonly Ship[]) {
  return {
    id: harbor.id,
    name: harbor.name,
    userId: harbor.userId,
    accountId: harbor.accountId,
    workspacesId: harbor.workspaceIds,
    type: 'small',
    funcIds: ['mockServices'],
    hidden: false,
    disabled: false,
    created: epochSeconds(harbor.created),
    updated: epochSeconds(harbor.updated),
    ships: ships.map(shipView),
  }
}

/** A harbor among a workspace's `locations` (the administration specification's Location), beside the local one. */
export function harborLocationView(harbor: Harbor, ships: readonly Ship[]) {
  return {
    id: harbor.id,
    title: harbor.name,
    name: harbor.name,
    provider: 'Private Locations',
    limits: { threadsPerEngine: 0, concurrency: -1, engines: ships.length, duration: -1 },
    capabilities: { dedicatedIps: false, isPrivileged: false },
    sandbox: false,
    purposes: { load: false, functional: false, grid: false, serviceMock: true },
    ships: ships.map(shipView),
  }
}

/**
 * A harbor among `GET /api/v1/workspaces/{ws}/locations`, in the local location's shape: a
 * deploy naming `harborId` (and no `shipId`) goes to its least-loaded live ship.
 */
export function harborV1LocationView(harbor: Harbor, ships: readonly Ship[]) {
  return {
    id: harbor.id,
    harborId: harbor.id,
    shipId: null,
    shipName: null,
    title: harbor.name,
    name: harbor.name,
    provider: 'Private Locations',
    kubernetes: false,
    sandbox: false,
    limits: { threadsPerEngine: 0, concurrency: -1, engines: ships.length, duration: -1 },
    capabilities: { dedicatedIps: false, isPrivileged: false },
    purposes: { load: false, functional: false, grid: false, serviceMock: true },
    ships: ships.map(shipView),
  }
}
