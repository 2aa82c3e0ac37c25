import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { MockServiceDocument } from '../dsl/index.js'
import { createError } from '../errors/index.js'
import type { Logger } from '../log/index.js'
import type { MockService, Repositories, RuntimeLease, Tracking } from '../store/index.js'
import type { RuntimeAdmin } from './admin-client.js'

/** How long a runtime lease lasts unless its holder renews it (a third of it apart); default 15 s. */
export const DEFAULT_RUNTIME_LEASE_MS = 15_000

/** The name of the key runtime admin tokens are derived with, in the store's shared secrets. */
const TOKEN_KEY = 'runtime-admin-tokens'

/** What the local deployer asks of the leases around every action on a runtime it runs. */
export interface RuntimeOwnership {
  /**
   * Resolves once this instance holds the mock service's lease: taken when free or expired, else
   * asked of its holder, which stops its copy and hands it over. ERR_API_UNAVAILABLE when the
   * holder neither hands it over nor lets it expire in time.
   */
  acquire: (mockServiceId: number) => Promise<void>
  /**
   * The lease for the platform's restore at start: taken when free, expired, or held by this
   * platform's previous process (same host and data dir); undefined when another instance holds it.
   */
  adopt: (mockServiceId: number) => Promise<RuntimeLease | undefined>
  /** The admin token of the process started with `startId`: any instance of the database derives it. */
  token: (mockServiceId: number, startId: string) => string
  /**
   * Records what runs now (`adminUrl` null once it stopped) and the document last deployed; a
   * failure is logged, not thrown.
   */
  record: (
    mockServiceId: number,
    facts: Partial<Pick<RuntimeLease, 'startId' | 'adminUrl' | 'pid'>> & {
      document?: MockServiceDocument
    },
  ) => Promise<void>
  /** Gives the lease up for good (the mock service is deleted). */
  forget: (mockServiceId: number) => Promise<void>
  /**
   * The admin API of a runtime another instance runs; null when none runs. A runtime whose
   * holder stopped renewing its lease is ERR_API_UNAVAILABLE until another instance takes it over.
   */
  remoteAdmin: (mockServiceId: number) => Promise<RuntimeAdmin | null>
}

/** What the leases ask of the local deployer: the runtimes it runs, giving them up, taking over. */
export interface LeasedRuntimes {
  /** True once the platform is stopping: nothing is taken over any more. */
  readonly stopping: boolean
  /** Mock services whose runtime runs here. */
  runningIds: () => number[]
  /** True while an action on the mock service is queued or its runtime runs here. */
  active: (mockServiceId: number) => boolean
  /** Stops the runtime here, after the actions queued, leaving the record to the new holder. */
  relinquish: (mockServiceId: number) => Promise<void>
  /** Deploys a runtime whose holder is gone, from the document it last deployed. */
  takeOver: (mock: MockService, document: MockServiceDocument) => Promise<Tracking>
}

type LeaseStore = Pick<Repositories, 'runtimeLeases' | 'mockServices' | 'placements'>

interface RuntimeLeasesOptions {
  store: LeaseStore
  log: Logger
  /** The platform's data dir: with the host, what makes a restarted platform the same one. */
  dataDir: string
  leaseMs?: number
}

/**
 * The leases of this platform instance on the local runtimes (docs/deploy.md "High
 * availability"): several instances sharing one database each run only the runtimes whose lease
 * they hold. Every third of the lease it renews its leases, stops a runtime whose lease it lost,
 * hands over the runtimes other instances asked for (it stops its copy first, so two copies
 * never run), and takes over the runtimes whose holder stopped renewing (its instance died): the
 * same check as the ship deployer's re-placement of a lost agent's mock services.
 *
 * @example
 * const leases = await RuntimeLeases.open({ store, log, dataDir })
 * const local = new LocalDeployer({ store, dataDir, log, leases })
 * leases.start(local)
 */
export class RuntimeLeases implements RuntimeOwnership {
  /** This process: its host and a random id, as the store's `holder` names it. */
  readonly instanceId: string
  readonly #home: string
  readonly #store: LeaseStore
  readonly #log: Logger
  readonly #leaseMs: number
  readonly #key: Buffer
  /** Handovers under way, so that a slow one is not started twice. */
  readonly #handingOver = new Set<number>()
  #runtimes: LeasedRuntimes | null = null
  #timer: NodeJS.Timeout | null = null
  #checking: Promise<void> = Promise.resolve()
  #inCheck = false
  #closed = false
  /** When the leases were last renewed: past a lease without renewal, this instance stops its runtimes. */
  #renewedAt = Date.now()

  private constructor(options: RuntimeLeasesOptions, key: Buffer) {
    const host = hostname()
    this.instanceId = `${host}/${process.pid}/${randomUUID().slice(0, 8)}`
    this.#home = `${host}:${createHash('sha256').update(options.dataDir).digest('hex').slice(0, 16)}`
    this.#store = options.store
    this.#log = options.log
    this.#leaseMs = options.leaseMs ?? DEFAULT_RUNTIME_LEASE_MS
    this.#key = key
  }

  /** Reads (or, the first instance of the database, creates) the key admin tokens derive from. */
  static async open(options: RuntimeLeasesOptions): Promise<RuntimeLeases> {
    const secret = await options.store.runtimeLeases.sharedSecret(
      TOKEN_KEY,
      randomBytes(32).toString('base64url'),
    )
    return new RuntimeLeases(options, Buffer.from(secret, 'base64url'))
  }

  get leaseMs(): number {
    return this.#leaseMs
  }

  /** Starts the periodic check over the deployer's runtimes. */
  start(runtimes: LeasedRuntimes): void {
    this.#runtimes = runtimes
    this.#timer = setInterval(
      () => {
        // A round still going (a slow database) is not queued behind: the next tick comes soon.
        if (this.#inCheck) return
        this.#inCheck = true
        this.#checking = this.check().finally(() => {
          this.#inCheck = false
        })
      },
      Math.max(100, Math.floor(this.#leaseMs / 3)),
    )
    this.#timer.unref()
  }

  /** Stops the check and releases every lease (the runtimes are stopped): another instance takes them at once. */
  async close(): Promise<void> {
    this.#closed = true
    if (this.#timer !== null) clearInterval(this.#timer)
    await this.#checking
    try {
      await this.#store.runtimeLeases.releaseAll(this.instanceId)
    } catch (err) {
      this.#log.warn({ err }, 'cannot release the runtime leases')
    }
  }

  async acquire(mockServiceId: number): Promise<void> {
    const deadline = Date.now() + 2 * this.#leaseMs + 1000
    // The holder asked last: a new holder (the old one died, another took over) is asked again.
    let asked: string | null = null
    for (;;) {
      const lease = await this.#claim(mockServiceId, false)
      if (lease.holder === this.instanceId) return
      if (Date.now() > deadline) {
        throw createError('ERR_API_UNAVAILABLE', [
          `Mock service ${mockServiceId} runs on platform instance ${lease.holder}, which did not hand it over within ${Math.round((2 * this.#leaseMs) / 1000)} s: try again`,
        ])
      }
      if (asked !== lease.holder) {
        await this.#store.runtimeLeases.requestHandover(mockServiceId, this.instanceId)
        asked = lease.holder
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(250, this.#leaseMs / 6)))
    }
  }

  async adopt(mockServiceId: number): Promise<RuntimeLease | undefined> {
    const lease = await this.#claim(mockServiceId, true)
    return lease.holder === this.instanceId ? lease : undefined
  }

  token(mockServiceId: number, startId: string): string {
    return createHmac('sha256', this.#key)
      .update(`runtime-admin\n${mockServiceId}\n${startId}`)
      .digest('base64url')
  }

  async record(
    mockServiceId: number,
    facts: Partial<Pick<RuntimeLease, 'startId' | 'adminUrl' | 'pid'>> & {
      document?: MockServiceDocument
    },
  ): Promise<void> {
    const { document, ...rest } = facts
    // The runtime runs whether or not this is recorded: a failure is logged, never thrown into
    // the start or stop under way (other instances then see the runtime as not answering).
    try {
      const held = await this.#store.runtimeLeases.record(mockServiceId, this.instanceId, {
        ...rest,
        ...(document === undefined
          ? {}
          : { document: document as unknown as Record<string, unknown> }),
      })
      if (!held) {
        this.#log.warn({ serviceMockId: mockServiceId }, 'runtime lease lost while recording it')
      }
    } catch (err) {
      this.#log.error({ err, serviceMockId: mockServiceId }, 'cannot record the runtime lease')
    }
  }

  async forget(mockServiceId: number): Promise<void> {
    await this.#store.runtimeLeases.remove(mockServiceId, this.instanceId)
  }

  async remoteAdmin(mockServiceId: number): Promise<RuntimeAdmin | null> {
    const lease = await this.#store.runtimeLeases.get(mockServiceId)
    if (lease === undefined || lease.holder === this.instanceId) return null
    if (lease.adminUrl === null || lease.startId === null) return null
    if (lease.expires < Date.now()) {
      throw createError('ERR_API_UNAVAILABLE', [
        `Mock service ${mockServiceId} runs on platform instance ${lease.holder}, which stopped renewing its lease: another instance takes it over within ${Math.ceil(this.#leaseMs / 1000)} s`,
      ])
    }
    return { url: lease.adminUrl, token: this.token(mockServiceId, lease.startId) }
  }

  /**
   * One round: renew, stop what was lost, hand over what was asked for, take over what was
   * abandoned. A failure (the database does not answer) is logged; the next round tries again.
   */
  async check(): Promise<void> {
    const runtimes = this.#runtimes
    if (this.#closed || runtimes === null) return
    try {
      const now = Date.now()
      const held = await this.#store.runtimeLeases.renew(this.instanceId, now + this.#leaseMs)
      this.#renewedAt = now
      const heldIds = new Set(held.map((l) => l.mockServiceId))
      for (const id of runtimes.runningIds()) {
        if (heldIds.has(id) || this.#handingOver.has(id)) continue
        this.#log.warn({ serviceMockId: id }, 'runtime lease lost to another instance: stopping')
        this.#background(id, runtimes.relinquish(id))
      }
      for (const lease of held) {
        if (lease.handover !== null) this.#handOver(runtimes, lease.mockServiceId, lease.handover)
      }
      if (runtimes.stopping) return
      for (const lease of await this.#store.runtimeLeases.expired(now)) {
        if (this.#closed || runtimes.stopping) return
        await this.#takeOver(runtimes, lease)
      }
    } catch (err) {
      this.#log.error({ err }, 'checking the runtime leases failed')
      if (Date.now() - this.#renewedAt > this.#leaseMs) this.#fence(runtimes)
    }
  }

  /**
   * Stops every runtime here once the leases could not be renewed for a whole lease (the
   * database is out of reach): another instance may have taken them over, and two copies must
   * not run. When the database answers again, the expired leases are taken over as any others.
   */
  #fence(runtimes: LeasedRuntimes): void {
    for (const id of runtimes.runningIds()) {
      this.#log.error({ serviceMockId: id }, 'runtime lease not renewed in time: stopping')
      this.#background(id, runtimes.relinquish(id))
    }
  }

  #handOver(runtimes: LeasedRuntimes, mockServiceId: number, to: string): void {
    if (this.#handingOver.has(mockServiceId)) return
    this.#handingOver.add(mockServiceId)
    const work = (async () => {
      await runtimes.relinquish(mockServiceId)
      const expires = Date.now() + this.#leaseMs
      if (await this.#store.runtimeLeases.handOver(mockServiceId, this.instanceId, to, expires)) {
        this.#log.info({ serviceMockId: mockServiceId, to }, 'runtime handed over')
      }
    })().finally(() => this.#handingOver.delete(mockServiceId))
    this.#background(mockServiceId, work)
  }

  /** Starts here a runtime whose holder stopped renewing its lease, if its record still wants it running. */
  async #takeOver(runtimes: LeasedRuntimes, lease: RuntimeLease): Promise<void> {
    const id = lease.mockServiceId
    if (lease.document === null || runtimes.active(id)) return
    const mock = await this.#store.mockServices.getById(id)
    if (mock === undefined || (mock.status !== 'RUNNING' && mock.status !== 'PENDING')) return
    if ((await this.#store.placements.get(id)) !== undefined) return
    const claimed = await this.#claim(id, false)
    if (claimed.holder !== this.instanceId) return
    const tracking = await runtimes.takeOver(mock, lease.document as unknown as MockServiceDocument)
    this.#log.warn(
      { serviceMockId: id, from: lease.holder, trackingId: tracking.trackingId },
      lease.expires === 0
        ? 'runtime released by a stopping instance: started here'
        : 'runtime lease expired (its instance is gone): started here',
    )
  }

  async #claim(mockServiceId: number, adopt: boolean): Promise<RuntimeLease> {
    const now = Date.now()
    return await this.#store.runtimeLeases.claim({
      mockServiceId,
      holder: this.instanceId,
      home: this.#home,
      now,
      expires: now + this.#leaseMs,
      adopt,
    })
  }

  #background(mockServiceId: number, work: Promise<unknown>): void {
    work.catch((err: unknown) =>
      this.#log.error({ err, serviceMockId: mockServiceId }, 'runtime lease handling failed'),
    )
  }
}
