import { randomUUID } from 'node:crypto'
import type { MockServiceDocument } from '../dsl/index.js'
import { createError } from '../errors/index.js'
import type { Logger } from '../log/index.js'
import type {
  MockService,
  MockServiceStatus,
  Repositories,
  Ship,
  ShipAssignment,
  Store,
  Tracking,
  TrackingAction,
  Wakeups,
} from '../store/index.js'
import { LocalWakeups } from '../store/index.js'
import type { RuntimeAdmin } from './admin-client.js'
import { AdminRelay, type ShipRef } from './admin-relay.js'
import type { DeployerStore } from './local-deployer.js'
import { documentHash } from './kubernetes/document-hash.js'
import { chooseShip, leastLoaded, targetOf } from './ship-placement.js'
import type { Deployer, EnvironmentFigures } from './types.js'

/** The part of the store the ship deployer uses (a full Store is one). */
type ShipStore = Repositories & Pick<Store, 'write'>

interface ShipDeployerOptions {
  store: ShipStore
  /** What runs mock services deployed to `harbor-local` (or to no harbor): the local deployer. */
  local: Deployer
  log: Logger
  /** A ship whose agent sent no heartbeat for this long is `lost`; default 15 s. */
  lostAfterMs?: number
  /** Log lines kept per mock service from its agent's reports; default 1,000. */
  logLines?: number
  /**
   * How long an admin call for a mock service on an agent waits for the agent to take it
   * (`--agent-call-timeout`); default 10 s.
   */
  agentCallTimeoutMs?: number
  /**
   * How the instances on the store wake each other for admin calls (PostgreSQL's LISTEN/NOTIFY
   * with several instances); in process by default.
   */
  wakeups?: Wakeups
}

/** A mock service placed on a ship, as this instance knows it: where, and whether it serves. */
interface Placed extends ShipRef {
  /** Its agent reported it RUNNING, and it is meant to run: its admin calls go to the agent. */
  running: boolean
}

/** What an agent reports about one mock service it runs (`POST .../servers/{shipId}/reports`). */
export interface ShipReport {
  mockServiceId: number
  status: MockServiceStatus
  endpoints: { http?: string | null; https?: string | null }
  /** Trackings of the platform the agent finished (or failed) with this state. */
  trackings?: Array<{
    trackingId: string
    status: 'FINISHED' | 'FAILED'
    errors?: Array<{ code: string; message: string }>
    warnings?: Array<{ code: string; message: string }>
  }>
  /** The newest lines of the runtime's log the agent keeps (they replace those of its last report). */
  logs?: string[]
  error?: { code: string; message: string } | null
}

const DEFAULT_LOST_AFTER_MS = 15_000
const PLATFORM = 'platform'

/**
 * The platform's deployer (docs/deploy.md#agents-and-locations): a mock service deployed to a
 * private location is placed on a ship of it (recorded as that ship's desired state, which its
 * agent pulls), everything else goes to the local deployer as before. A remote action answers
 * its tracking at once; the agent's report finishes it and sets the record's status and
 * endpoints. Ships that stop sending heartbeats are marked lost and their mock services placed
 * on another live ship of the same harbor, or shown FAILED with the reason.
 *
 * @example
 * const deployer = new ShipDeployer({ store, local: new LocalDeployer({ store, dataDir, log }), log })
 */
export class ShipDeployer implements Deployer {
  readonly #store: ShipStore
  readonly #local: Deployer
  readonly #log: Logger
  readonly #lostAfterMs: number
  readonly #logLines: number
  readonly #startedAt = Date.now()
  readonly #timer: NodeJS.Timeout
  #checking: Promise<void> = Promise.resolve()
  /** The admin calls of mock services on ships, which their agents take and answer. */
  readonly relay: AdminRelay
  /**
   * The mock services placed on ships as this instance last saw them: read from the store when
   * the platform starts, then kept by this instance's placements and by the agents' reports it
   * receives. The store has the last word (`#placedNow`); this says only whether a runtime that
   * is being given a new document on its ship still serves meanwhile.
   */
  readonly #placed = new Map<number, Placed>()
  readonly #loaded: Promise<void>

  constructor(options: ShipDeployerOptions) {
    this.#store = options.store
    this.#local = options.local
    this.#log = options.log
    this.#lostAfterMs = options.lostAfterMs ?? DEFAULT_LOST_AFTER_MS
    this.#logLines = options.logLines ?? 1000
    this.relay = new AdminRelay({
      calls: options.store.adminCalls,
      wakeups: options.wakeups ?? new LocalWakeups(),
      ...(options.agentCallTimeoutMs === undefined
        ? {}
        : { takeWithinMs: options.agentCallTimeoutMs }),
    })
    this.#loaded = this.#loadPlaced().catch((err: unknown) => {
      this.#log.error({ err }, 'could not read which mock services run on agents')
    })
    const every = Math.max(100, Math.min(1000, Math.floor(this.#lostAfterMs / 3)))
    this.#timer = setInterval(() => {
      this.#checking = this.#checking.then(async () => await this.checkShips())
    }, every)
    this.#timer.unref()
  }

  /**
   * The inspection records kept across stops, on the platform's data dir: those of local mock
   * services, and those of mock services on agents, read through the relay before a stop.
   */
  get history(): Deployer['history'] {
    return this.#local.history
  }

  async deploy(mock: MockService, document: MockServiceDocument, by: string): Promise<Tracking> {
    const target = await targetOf(this.#store, mock)
    if (target.kind === 'local') {
      await this.#keepHistory(mock.id)
      await this.#leaveShip(mock.id)
      return await this.#local.deploy(mock, document, by)
    }
    const ship = await chooseShip(this.#store, mock, target)
    await this.#leaveLocal(mock.id)
    await this.#keepHistoryIfLeaving(mock.id, ship)
    return await this.#place(mock, ship, 'RUNNING', 'deploy', by, document)
  }

  async configure(mock: MockService, document: MockServiceDocument, by: string): Promise<Tracking> {
    const target = await targetOf(this.#store, mock)
    if (target.kind === 'local') {
      await this.#keepHistory(mock.id)
      await this.#leaveShip(mock.id)
      return await this.#local.configure(mock, document, by)
    }
    const ship = await chooseShip(this.#store, mock, target)
    await this.#leaveLocal(mock.id)
    await this.#keepHistoryIfLeaving(mock.id, ship)
    return await this.#place(mock, ship, 'RUNNING', 'configure', by, document)
  }

  async stop(mock: MockService, by: string): Promise<Tracking> {
    const placed = await this.#store.placements.get(mock.id)
    if (placed === undefined) return await this.#local.stop(mock, by)
    const ship = await this.#store.locations.ship(placed.harborId, placed.shipId)
    const live = ship?.state === 'ready'
    // What its runtime recorded is read before its agent stops it, as the local deployer does.
    if (live) await this.#keepHistory(mock.id)
    const known = this.#placed.get(mock.id)
    if (known !== undefined) known.running = false
    return await this.#store.write(async (tx) => {
      const tracking = await this.#newTracking(tx, mock, 'stop', by, 'RUNNING')
      await tx.placements.assign({
        ...fieldsOf(placed),
        desired: 'STOPPED',
        trackingId: tracking.trackingId,
      })
      if (live) {
        await tx.mockServices.update(mock.id, { status: 'PENDING', by })
        return tracking
      }
      // Its agent is gone: nothing serves the mock service now, and the agent stops it when it
      // comes back (its desired state says so). The stop is done, not left waiting.
      await tx.mockServices.update(mock.id, {
        status: 'STOPPED',
        httpEndpoint: null,
        httpsEndpoint: null,
        by,
      })
      const warning = {
        code: 'AGENT_NOT_LIVE',
        message: `agent ${placed.shipId} of private location ${placed.harborId} is ${ship?.state ?? 'deleted'}: it stops the mock service if it comes back`,
      }
      return (
        (await tx.trackings.update(tracking.trackingId, {
          status: 'FINISHED',
          warnings: [warning],
          ended: Date.now(),
        })) ?? tracking
      )
    })
  }

  async remove(mockServiceId: number): Promise<void> {
    await this.#leaveShip(mockServiceId)
    await this.#store.agentLogs.delete(mockServiceId)
    await this.#local.remove(mockServiceId)
  }

  /**
   * The admin of a running mock service: the local runtime's, or, for one running on an agent's
   * ship, one whose calls go through the relay to that agent.
   */
  async admin(mockServiceId: number): Promise<RuntimeAdmin | null> {
    const placed = await this.#placedNow(mockServiceId)
    if (placed === undefined) return await this.#local.admin(mockServiceId)
    return placed.running ? this.relay.admin(placed, mockServiceId) : null
  }

  /**
   * The lines of a runtime this instance runs come from its memory (the newest included); the
   * others' from the store, where agents' reports and other platform instances put them, so that
   * every instance answers with them.
   */
  async logsOf(mockServiceId: number, limit?: number): Promise<string[]> {
    if (!this.#placed.has(mockServiceId)) {
      const own = await this.#local.logsOf(mockServiceId, limit)
      if (own.length > 0) return own
    }
    const stored = await this.#store.agentLogs.get(mockServiceId)
    if (stored === undefined) return await this.#local.logsOf(mockServiceId, limit)
    return stored.slice(Math.max(0, stored.length - (limit ?? stored.length)))
  }

  /** Resolves once it knows which mock services run on ships (read from the store at its start). */
  async ready(): Promise<void> {
    await this.#loaded
  }

  /** Only mock services of the local host come back here: agents restore their own. */
  async restore(by: string): Promise<Tracking[]> {
    await this.#loaded
    return await this.#local.restore(by)
  }

  async settled(trackingId: string): Promise<Tracking | undefined> {
    const local = await this.#local.settled(trackingId)
    if (local === undefined || local.status === 'FINISHED' || local.status === 'FAILED') {
      return local
    }
    // A remote action ends with its agent's report.
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      const tracking = await this.#store.trackings.get(trackingId)
      if (tracking === undefined || tracking.ended !== null) return tracking
    }
  }

  async environment(): Promise<EnvironmentFigures> {
    return await this.#local.environment()
  }

  async shutdown(): Promise<void> {
    clearInterval(this.#timer)
    await this.relay.close()
    await this.#checking
    await this.#local.shutdown()
  }

  /**
   * Applies an agent's report about a mock service placed on its ship: the record's status and
   * endpoints, the trackings it ended, its log lines. A mock service not placed on that ship is
   * 404: an agent reads and reports only its own work.
   */
  async applyReport(ship: Ship, report: ShipReport): Promise<void> {
    const placed = await this.#store.placements.get(report.mockServiceId)
    if (placed === undefined || placed.shipId !== ship.id) {
      throw createError('ERR_API_NOT_FOUND', [
        `Mock service ${report.mockServiceId} on agent ${ship.id}`,
      ])
    }
    this.#placed.set(report.mockServiceId, {
      harborId: placed.harborId,
      shipId: placed.shipId,
      running: report.status === 'RUNNING' && placed.desired === 'RUNNING',
    })
    await this.#store.write(async (tx) => {
      if (report.logs !== undefined && report.logs.length > 0) {
        // The agent sends the newest lines it keeps: they replace the ones it sent before.
        await tx.agentLogs.put(
          report.mockServiceId,
          report.logs.slice(-this.#logLines).map((line) => line.replace(/\n$/, '')),
        )
      }
      const running = report.status === 'RUNNING'
      const mock = await tx.mockServices.getById(report.mockServiceId)
      await tx.mockServices.update(report.mockServiceId, {
        status: report.status,
        httpEndpoint: running ? (report.endpoints.http ?? null) : null,
        httpsEndpoint: running ? (report.endpoints.https ?? null) : null,
        ...(running ? { pendingUpdate: false } : {}),
        // The deploy date is when it started on its ship: a report that it still runs keeps it.
        ...(running && (mock?.status !== 'RUNNING' || mock.deployDate === null)
          ? { deployDate: Date.now() }
          : {}),
      })
      for (const t of report.trackings ?? []) {
        const tracking = await tx.trackings.get(t.trackingId)
        if (tracking?.mockServiceId !== report.mockServiceId || tracking.ended !== null) continue
        await tx.trackings.update(t.trackingId, {
          status: t.status,
          errors: t.errors ?? [],
          warnings: t.warnings ?? [],
          ended: Date.now(),
        })
      }
    })
  }

  /**
   * Marks lost the ships silent for longer than the limit, and moves their mock services. After
   * the platform starts, ships get the limit's time to send a heartbeat before any is judged.
   */
  async checkShips(): Promise<void> {
    const now = Date.now()
    if (now - this.#startedAt < this.#lostAfterMs) return
    try {
      const cutoff = now - this.#lostAfterMs
      // A read first: most checks find every ship on time, and need no write.
      if ((await this.#store.locations.countSilent(cutoff)) === 0) return
      const lost = await this.#store.locations.markLost(cutoff)
      for (const ship of lost) {
        this.#log.warn(
          { harborId: ship.harborId, shipId: ship.id, lastHeartbeat: ship.lastHeartbeat },
          'agent lost: no heartbeat',
        )
        for (const placed of await this.#store.placements.ofShip(ship.id)) {
          const known = this.#placed.get(placed.mockServiceId)
          if (known !== undefined) known.running = false
          if (placed.desired === 'RUNNING') await this.#replace(ship, placed)
        }
      }
    } catch (err) {
      this.#log.error({ err }, 'checking the agents failed')
    }
  }

  /** Places a mock service of a lost ship on another live ship of its harbor, or fails it. */
  async #replace(lost: Ship, placed: ShipAssignment): Promise<void> {
    const mock = await this.#store.mockServices.getById(placed.mockServiceId)
    if (mock === undefined) return
    const reason = `agent ${lost.id} of private location ${lost.harborId} sent no heartbeat for ${Math.round(this.#lostAfterMs / 1000)} s`
    const ships = await this.#store.locations.ships([lost.harborId])
    const live = ships.filter((s) => s.state === 'ready' && s.id !== lost.id)
    if (live.length === 0) {
      await this.#store.write(async (tx) => {
        const tracking = await this.#newTracking(tx, mock, 'deploy', PLATFORM, 'FAILED')
        await tx.trackings.update(tracking.trackingId, {
          errors: [
            { code: 'ERR_DEPLOY_FAILED', message: `${reason}, and no other agent of it is live` },
          ],
          ended: Date.now(),
        })
        await tx.mockServices.update(mock.id, {
          status: 'FAILED',
          httpEndpoint: null,
          httpsEndpoint: null,
        })
      })
      this.#log.warn(
        { serviceMockId: mock.id, shipId: lost.id },
        'mock service failed with its agent',
      )
      return
    }
    const ship = leastLoaded(live, await this.#store.placements.ofHarbor(lost.harborId))
    const tracking = await this.#place(
      mock,
      ship,
      'RUNNING',
      'deploy',
      PLATFORM,
      placed.document as unknown as MockServiceDocument,
    )
    this.#log.warn(
      { serviceMockId: mock.id, from: lost.id, to: ship.id, trackingId: tracking.trackingId },
      `${reason}: mock service placed on another agent`,
    )
  }

  /** Records the mock service on the ship (its agent's next poll sees it) and answers the tracking. */
  async #place(
    mock: MockService,
    ship: Ship,
    desired: 'RUNNING',
    action: TrackingAction,
    by: string,
    document: MockServiceDocument,
  ): Promise<Tracking> {
    const stamped = { ...document, id: mock.id, name: document.name ?? mock.name }
    const before = this.#placed.get(mock.id)
    // On the same ship a new document is pushed to the running runtime; on another it starts anew.
    this.#placed.set(mock.id, {
      harborId: ship.harborId,
      shipId: ship.id,
      running: before?.shipId === ship.id && before.running,
    })
    return await this.#store.write(async (tx) => {
      const tracking = await this.#newTracking(tx, mock, action, by, 'RUNNING')
      await tx.placements.assign({
        mockServiceId: mock.id,
        harborId: ship.harborId,
        shipId: ship.id,
        desired,
        document: stamped as unknown as Record<string, unknown>,
        documentHash: documentHash(stamped),
        trackingId: tracking.trackingId,
      })
      const moved = mock.shipId !== ship.id || mock.harborId !== ship.harborId
      await tx.mockServices.update(mock.id, {
        status: 'PENDING',
        harborId: ship.harborId,
        shipId: ship.id,
        ...(moved ? { httpEndpoint: null, httpsEndpoint: null } : {}),
        ...(by === PLATFORM ? {} : { by }),
      })
      return tracking
    })
  }

  /**
   * Stops and forgets the local runtime of a mock service that goes to a ship. One already on a
   * ship has none, and the local deployer's forgetting would take the inspection history its
   * agent's runs left.
   */
  async #leaveLocal(mockServiceId: number): Promise<void> {
    if ((await this.#store.placements.get(mockServiceId)) !== undefined) return
    await this.#local.remove(mockServiceId)
  }

  /**
   * Keeps what the runtime on the agent recorded (through the relay) when the mock service
   * leaves its ship for another: the new runtime starts with an empty inspection ring.
   */
  async #keepHistoryIfLeaving(mockServiceId: number, to: Ship): Promise<void> {
    const placed = await this.#placedNow(mockServiceId)
    if (placed === undefined || placed.shipId === to.id) return
    await this.#keepHistory(mockServiceId)
  }

  /**
   * Keeps what the runtime of a mock service on an agent recorded, read through the relay (a
   * mock service not running on an agent has nothing to read there). Never throws: a runtime that
   * cannot be read leaves the history as it was (logged).
   */
  async #keepHistory(mockServiceId: number): Promise<void> {
    const history = this.#local.history
    if (history === undefined) return
    const placed = await this.#placedNow(mockServiceId)
    if (placed?.running !== true) return
    const admin = this.relay.admin(placed, mockServiceId)
    await history.keep(mockServiceId, admin)
  }

  /**
   * Where a mock service placed on a ship runs, and whether it serves, as the store says now:
   * another platform instance on the same database may have placed it, stopped it, or received
   * its agent's report. A new document this instance sent to the ship it already ran on keeps it
   * serving (the agent pushes it to the running runtime) until the agent reports back.
   */
  async #placedNow(mockServiceId: number): Promise<Placed | undefined> {
    const placed = await this.#store.placements.get(mockServiceId)
    if (placed === undefined) return undefined
    const mock = await this.#store.mockServices.getById(mockServiceId)
    const meant = placed.desired === 'RUNNING'
    const known = this.#placed.get(mockServiceId)
    const stillServing =
      mock?.status === 'PENDING' && known?.running === true && known.shipId === placed.shipId
    return {
      harborId: placed.harborId,
      shipId: placed.shipId,
      running: meant && (mock?.status === 'RUNNING' || stillServing),
    }
  }

  /** The mock services placed on ships, from the store (the platform starts). */
  async #loadPlaced(): Promise<void> {
    for (const mock of await this.#store.mockServices.listByStatus(['RUNNING', 'PENDING'])) {
      const placed = await this.#store.placements.get(mock.id)
      if (placed === undefined || this.#placed.has(mock.id)) continue
      this.#placed.set(mock.id, {
        harborId: placed.harborId,
        shipId: placed.shipId,
        running: mock.status === 'RUNNING' && placed.desired === 'RUNNING',
      })
    }
  }

  async #newTracking(
    tx: Repositories,
    mock: MockService,
    action: TrackingAction,
    by: string,
    status: 'RUNNING' | 'FAILED',
  ): Promise<Tracking> {
    return await tx.trackings.create({
      trackingId: randomUUID(),
      workspaceId: mock.workspaceId,
      mockServiceId: mock.id,
      action,
      status,
      errors: [],
      warnings: [],
      createdBy: by,
    })
  }

  /** Takes a mock service off its ship, if it was on one (its agent stops and forgets it). */
  async #leaveShip(mockServiceId: number): Promise<void> {
    this.#placed.delete(mockServiceId)
    if ((await this.#store.placements.get(mockServiceId)) === undefined) return
    await this.#store.placements.remove(mockServiceId)
    // Lines of the agent that ran it no longer describe it: the local runtime's are shown.
    await this.#store.agentLogs.delete(mockServiceId)
  }
}

function fieldsOf(placed: ShipAssignment): Omit<ShipAssignment, 'placed' | 'updated'> {
  const { placed: _placed, updated: _updated, ...fields } = placed
  return fields
}

/**
 * The store as the local deployer sees it under a ship deployer: mock services placed on ships
 * are not its own, so that its restore at start never runs them here too.
 *
 * @example
 * new LocalDeployer({ store: localView(store), dataDir, log })
 */
export function localView(store: ShipStore): DeployerStore {
  return {
    trackings: store.trackings,
    write: store.write,
    mockServices: {
      ...store.mockServices,
      listByStatus: async (statuses) => {
        const mocks = await store.mockServices.listByStatus(statuses)
        const out: MockService[] = []
        for (const mock of mocks) {
          if ((await store.placements.get(mock.id)) === undefined) out.push(mock)
        }
        return out
      },
    },
  }
}
