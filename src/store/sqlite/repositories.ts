import type { Repositories, Store } from '../repositories.js'
import {
  accountRepository,
  apiKeyRepository,
  userRepository,
  workspaceRepository,
} from './admin-repositories.js'
import { assetRepository } from './asset-repository.js'
import { serviceRepository, tagRepository } from './catalog-repositories.js'
import { sqlRunner, type RepoContext } from './context.js'
import { mockServiceRepository } from './mock-service-repository.js'
import { mockSettingRepository } from './mock-setting-repository.js'
import {
  monitoringRepository,
  oauthRepository,
  routeMonitoringWrites,
} from './monitoring-repository.js'
import {
  cloneTrackingRepository,
  logSnapshotRepository,
  trackingRepository,
} from './tracking-repositories.js'
import { transactionRepository } from './transaction-repository.js'
import { tenancyRepository } from './tenancy-repository.js'
import { sandboxRepository } from './sandbox-repository.js'
import { locationRepository } from './location-repository.js'
import { placementRepository } from './placement-repository.js'
import { runtimeLeaseRepository } from './runtime-lease-repository.js'
import { searchRepository } from './search-repository.js'
import { sharedRepositories, transactionServices } from '../shared/index.js'

/**
 * Every repository over one context.
 *
 * @example
 * const tx = createRepositories({ conn: writer, check, now: Date.now })
 */
export function createRepositories(ctx: RepoContext): Repositories {
  const run = sqlRunner(ctx)
  return {
    accounts: accountRepository(ctx),
    users: userRepository(ctx),
    apiKeys: apiKeyRepository(ctx),
    workspaces: workspaceRepository(ctx),
    services: serviceRepository(ctx),
    tags: tagRepository(ctx),
    transactions: { ...transactionRepository(ctx), ...transactionServices(run) },
    mockServices: mockServiceRepository(ctx),
    assets: assetRepository(ctx),
    trackings: trackingRepository(ctx),
    cloneTrackings: cloneTrackingRepository(ctx),
    logs: logSnapshotRepository(ctx),
    sandboxes: sandboxRepository(ctx),
    locations: locationRepository(ctx),
    placements: placementRepository(ctx),
    runtimeLeases: runtimeLeaseRepository(ctx),
    mockSettings: mockSettingRepository(ctx),
    tenancy: tenancyRepository(ctx),
    search: searchRepository(ctx),
    monitoring: monitoringRepository(ctx),
    oauth: oauthRepository(ctx),
    ...sharedRepositories(run, ctx.now),
  }
}

/**
 * The store's own repositories: reads from the read-only connection (the last committed state,
 * never a write in progress), and every change sent through `write`, so that a change made
 * outside `write` (the deployer moving a tracking along) is still one serialized transaction.
 * A change method forgotten here would fail loudly: the read connection cannot write.
 *
 * @example
 * const top = routeWrites(createRepositories(readerContext), store.write, () => mutex.locked)
 */
export function routeWrites(
  reads: Repositories,
  write: Store['write'],
  writerBusy: () => boolean,
): Repositories {
  const {
    accounts,
    users,
    apiKeys,
    workspaces,
    services,
    tags,
    transactions,
    mockServices,
    assets,
    trackings,
    cloneTrackings,
    logs,
    sandboxes,
    locations,
    placements,
    runtimeLeases,
    mockSettings,
    tenancy,
    search,
    uiSessions,
    authFailures,
    agentLogs,
    adminCalls,
    assetChunks,
    keptInspections,
  } = reads
  return {
    accounts: {
      ...accounts,
      create: async (input) => await write(async (tx) => await tx.accounts.create(input)),
    },
    users: {
      ...users,
      create: async (input) => await write(async (tx) => await tx.users.create(input)),
      update: async (id, patch) => await write(async (tx) => await tx.users.update(id, patch)),
    },
    apiKeys: {
      ...apiKeys,
      create: async (input) => await write(async (tx) => await tx.apiKeys.create(input)),
      // The contract lets a touch be skipped under load: an authentication never waits behind writes for it.
      touch: async (id, when) => {
        if (writerBusy()) return
        await write(async (tx) => {
          await tx.apiKeys.touch(id, when)
        })
      },
    },
    workspaces: {
      ...workspaces,
      create: async (input) => await write(async (tx) => await tx.workspaces.create(input)),
      update: async (id, patch) => await write(async (tx) => await tx.workspaces.update(id, patch)),
    },
    services: {
      ...services,
      create: async (input) => await write(async (tx) => await tx.services.create(input)),
      update: async (ws, id, patch) =>
        await write(async (tx) => await tx.services.update(ws, id, patch)),
      delete: async (ws, id) => await write(async (tx) => await tx.services.delete(ws, id)),
    },
    tags: {
      ...tags,
      create: async (input) => await write(async (tx) => await tx.tags.create(input)),
      update: async (account, id, patch) =>
        await write(async (tx) => await tx.tags.update(account, id, patch)),
      delete: async (account, id) => await write(async (tx) => await tx.tags.delete(account, id)),
      ensure: async (account, names, by) =>
        await write(async (tx) => await tx.tags.ensure(account, names, by)),
    },
    transactions: {
      ...transactions,
      create: async (input) => await write(async (tx) => await tx.transactions.create(input)),
      createEncodedMany: async (into, rows) =>
        await write(async (tx) => await tx.transactions.createEncodedMany(into, rows)),
      rewriteEncoded: async (ws, id, row) =>
        await write(async (tx) => await tx.transactions.rewriteEncoded(ws, id, row)),
      update: async (ws, id, patch) =>
        await write(async (tx) => await tx.transactions.update(ws, id, patch)),
      delete: async (ws, id) => await write(async (tx) => await tx.transactions.delete(ws, id)),
      deleteMany: async (ws, ids) =>
        await write(async (tx) => await tx.transactions.deleteMany(ws, ids)),
      changeTags: async (ws, ids, change, by) =>
        await write(async (tx) => await tx.transactions.changeTags(ws, ids, change, by)),
    },
    mockServices: {
      ...mockServices,
      create: async (input) => await write(async (tx) => await tx.mockServices.create(input)),
      update: async (id, patch) =>
        await write(async (tx) => await tx.mockServices.update(id, patch)),
      delete: async (ws, id) => await write(async (tx) => await tx.mockServices.delete(ws, id)),
    },
    assets: {
      ...assets,
      create: async (input) => await write(async (tx) => await tx.assets.create(input)),
      update: async (ws, id, patch) =>
        await write(async (tx) => await tx.assets.update(ws, id, patch)),
      delete: async (ws, id) => await write(async (tx) => await tx.assets.delete(ws, id)),
    },
    trackings: {
      ...trackings,
      create: async (input) => await write(async (tx) => await tx.trackings.create(input)),
      update: async (id, patch) => await write(async (tx) => await tx.trackings.update(id, patch)),
    },
    cloneTrackings: {
      ...cloneTrackings,
      create: async (input) => await write(async (tx) => await tx.cloneTrackings.create(input)),
    },
    logs: {
      ...logs,
      create: async (input) => await write(async (tx) => await tx.logs.create(input)),
    },
    sandboxes: {
      ...sandboxes,
      open: async (input) => await write(async (tx) => await tx.sandboxes.open(input)),
    },
    locations: {
      ...locations,
      createHarbor: async (input) =>
        await write(async (tx) => await tx.locations.createHarbor(input)),
      createShip: async (input) => await write(async (tx) => await tx.locations.createShip(input)),
      deleteShip: async (harbor, id) =>
        await write(async (tx) => await tx.locations.deleteShip(harbor, id)),
      heartbeat: async (harbor, id, figures) =>
        await write(async (tx) => await tx.locations.heartbeat(harbor, id, figures)),
      markLost: async (cutoff) => await write(async (tx) => await tx.locations.markLost(cutoff)),
    },
    placements: {
      ...placements,
      assign: async (input) => await write(async (tx) => await tx.placements.assign(input)),
      remove: async (id) => await write(async (tx) => await tx.placements.remove(id)),
    },
    runtimeLeases: routeRuntimeLeaseWrites(runtimeLeases, write),
    mockSettings: {
      ...mockSettings,
      create: async (input) => await write(async (tx) => await tx.mockSettings.create(input)),
      update: async (ws, kind, id, patch) =>
        await write(async (tx) => await tx.mockSettings.update(ws, kind, id, patch)),
      setConfiguration: async (mockId, configId) =>
        await write(async (tx) => {
          await tx.mockSettings.setConfiguration(mockId, configId)
        }),
    },
    tenancy: routeTenancyWrites(tenancy, write),
    search,
    ...routeMonitoringWrites(reads, write),
    uiSessions: {
      ...uiSessions,
      create: async (session, max) =>
        await write(async (tx) => await tx.uiSessions.create(session, max)),
      touch: async (idHash, lastSeen) =>
        await write(async (tx) => {
          await tx.uiSessions.touch(idHash, lastSeen)
        }),
      delete: async (idHash) => await write(async (tx) => await tx.uiSessions.delete(idHash)),
      sweep: async (idle, created) =>
        await write(async (tx) => await tx.uiSessions.sweep(idle, created)),
    },
    authFailures: {
      ...authFailures,
      bump: async (counters, now, windowMs) =>
        await write(async (tx) => await tx.authFailures.bump(counters, now, windowMs)),
      sweep: async (now, max) => await write(async (tx) => await tx.authFailures.sweep(now, max)),
    },
    agentLogs: {
      ...agentLogs,
      put: async (id, lines) =>
        await write(async (tx) => {
          await tx.agentLogs.put(id, lines)
        }),
      delete: async (id) =>
        await write(async (tx) => {
          await tx.agentLogs.delete(id)
        }),
    },
    localRuns: {
      takeOver: async (input) => await write(async (tx) => await tx.localRuns.takeOver(input)),
    },
    adminCalls: routeAdminCallWrites(adminCalls, write),
    assetChunks: {
      ...assetChunks,
      put: async (fileId, seq, bytes, created) =>
        await write(async (tx) => await tx.assetChunks.put(fileId, seq, bytes, created)),
      delete: async (fileId) => await write(async (tx) => await tx.assetChunks.delete(fileId)),
    },
    keptInspections: {
      ...keptInspections,
      put: async (id, entries, details) =>
        await write(async (tx) => await tx.keptInspections.put(id, entries, details)),
      delete: async (id) => await write(async (tx) => await tx.keptInspections.delete(id)),
    },
  }
}

/** The admin-call mailbox's changes, sent through `write` (see routeWrites). */
function routeAdminCallWrites(
  calls: Repositories['adminCalls'],
  write: Store['write'],
): Repositories['adminCalls'] {
  return {
    ...calls,
    queue: async (call) =>
      await write(async (tx) => {
        await tx.adminCalls.queue(call)
      }),
    take: async (shipId, max, now) =>
      await write(async (tx) => await tx.adminCalls.take(shipId, max, now)),
    answer: async (shipId, callId, answer, now) =>
      await write(async (tx) => await tx.adminCalls.answer(shipId, callId, answer, now)),
    collect: async (callId) => await write(async (tx) => await tx.adminCalls.collect(callId)),
    withdrawQueued: async (callId) =>
      await write(async (tx) => await tx.adminCalls.withdrawQueued(callId)),
    withdraw: async (callId) => await write(async (tx) => await tx.adminCalls.withdraw(callId)),
    sweep: async (before) => await write(async (tx) => await tx.adminCalls.sweep(before)),
  }
}

/** The runtime lease repository's changes, sent through `write` (see routeWrites). */
function routeRuntimeLeaseWrites(
  leases: Repositories['runtimeLeases'],
  write: Store['write'],
): Repositories['runtimeLeases'] {
  return {
    ...leases,
    claim: async (input) => await write(async (tx) => await tx.runtimeLeases.claim(input)),
    renew: async (holder, expires) =>
      await write(async (tx) => await tx.runtimeLeases.renew(holder, expires)),
    requestHandover: async (id, requester) =>
      await write(async (tx) => {
        await tx.runtimeLeases.requestHandover(id, requester)
      }),
    handOver: async (id, from, to, expires) =>
      await write(async (tx) => await tx.runtimeLeases.handOver(id, from, to, expires)),
    record: async (id, holder, facts) =>
      await write(async (tx) => await tx.runtimeLeases.record(id, holder, facts)),
    releaseAll: async (holder) =>
      await write(async (tx) => await tx.runtimeLeases.releaseAll(holder)),
    remove: async (id, holder) =>
      await write(async (tx) => await tx.runtimeLeases.remove(id, holder)),
    sharedSecret: async (name, candidate) =>
      await write(async (tx) => await tx.runtimeLeases.sharedSecret(name, candidate)),
  }
}

/** The tenancy repository's changes, sent through `write` (see routeWrites). */
function routeTenancyWrites(
  tenancy: Repositories['tenancy'],
  write: Store['write'],
): Repositories['tenancy'] {
  return {
    ...tenancy,
    setMember: async (input) => await write(async (tx) => await tx.tenancy.setMember(input)),
    updateProfile: async (id, patch) =>
      await write(async (tx) => await tx.tenancy.updateProfile(id, patch)),
    renameAccount: async (id, name) =>
      await write(async (tx) => await tx.tenancy.renameAccount(id, name)),
    setWorkspaceMember: async (input) =>
      await write(async (tx) => await tx.tenancy.setWorkspaceMember(input)),
    removeWorkspaceMember: async (ws, user) =>
      await write(async (tx) => await tx.tenancy.removeWorkspaceMember(ws, user)),
    createInvitation: async (input) =>
      await write(async (tx) => await tx.tenancy.createInvitation(input)),
    setInvitationStatus: async (id, status, user) =>
      await write(async (tx) => await tx.tenancy.setInvitationStatus(id, status, user)),
    createProject: async (input) =>
      await write(async (tx) => await tx.tenancy.createProject(input)),
    revokeApiKey: async (user, id) =>
      await write(async (tx) => await tx.tenancy.revokeApiKey(user, id)),
    setActiveWorkspace: async (user, ws) =>
      await write(async (tx) => {
        await tx.tenancy.setActiveWorkspace(user, ws)
      }),
  }
}
