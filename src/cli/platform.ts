import { randomBytes } from 'node:crypto'
import http from 'node:http'
import {
  allRoutes,
  Authenticator,
  bootstrap,
  checkBootstrapKey,
  createApiHandler,
  createUiFront,
  SpareImportWorker,
  startMonitoring,
  type ApiDeps,
  type BootstrapOutcome,
  type MonitoringOptions,
  type Route,
} from '../api/index.js'
import {
  LocalDeployer,
  RuntimeLeases,
  ShipDeployer,
  localView,
  type Deployer,
} from '../deploy/index.js'
import { createError, isUnderstudyError } from '../errors/index.js'
import { EgressPolicy, listenOn, type EgressSettings } from '../net/index.js'
import type { Logger } from '../log/index.js'
import {
  AssetFiles,
  LocalWakeups,
  openPostgresStore,
  openSqliteStore,
  PgWakeups,
  StoredAssetFiles,
  type AssetBytes,
  type Store,
} from '../store/index.js'

/** How long a stopping platform waits for requests in flight before it cuts their sockets. */
const CLOSE_GRACE_MS = 5000

export interface PlatformOptions {
  host: string
  port: number
  dataDir: string
  /** A PostgreSQL database (`postgres://...`) for the records; default SQLite in `dataDir`. */
  store?: string
  /** Interface the mock services' runtimes listen on. */
  runtimeHost: string
  /**
   * Address the local runtimes' admin APIs listen on, and other platform instances on the same
   * database reach them at (`--runtime-admin-host`); default 127.0.0.1, this machine only.
   */
  runtimeAdminHost?: string
  apiKeyId?: string
  apiKeySecret?: string
  /** Largest JSON body and upload, in bytes. */
  jsonLimit: number
  uploadLimit: number
  /** More flags for every `understudy run` the deployer starts. */
  runtimeArgs?: readonly string[]
  /**
   * Where tenants' requests may go (`--egress`, `--egress-allow`): monitoring runs and
   * notifications here, proxying and webhooks in the runtimes; default `loopback`.
   */
  egress?: Pick<EgressSettings, 'level' | 'allow'>
  /** API monitoring: SMTP server of e-mail notifications (`--smtp-url`), and test hooks. */
  monitor?: Omit<MonitoringOptions, 'store' | 'log' | 'baseUrl' | 'jsonLimit'>
  /**
   * What runs the mock services; default the local deployer (one `understudy run` per mock
   * service). Tests that deploy nothing, or stand in for a runtime, give their own.
   */
  deployer?: (wiring: { store: Store; log: Logger; dataDir: string }) => Deployer
  /**
   * How long an agent may stay silent before its ship is marked lost and its mock services are
   * placed elsewhere (`--ship-lost-after`); default 15 s.
   */
  shipLostAfterMs?: number
  /**
   * How long an admin call (inspection, verification, recording, scenarios) for a mock service
   * on an agent waits for its agent to take it before answering 503 (`--agent-call-timeout`);
   * default 10 s.
   */
  agentCallTimeoutMs?: number
  /**
   * How long this instance's lease on each local runtime lasts unless renewed (renewed every
   * third of it): another platform instance on the same database takes over the runtimes of an
   * instance silent for this long (`--runtime-lease`); default 15 s.
   */
  runtimeLeaseMs?: number
  /** The routes of the APIs; default every route (tests of one family may give fewer). */
  routes?: readonly Route[]
  /**
   * Keep one import thread loaded for the next large upload (about 40 MiB while idle); default
   * true. Tests that upload nothing large turn it off: the thread only makes uploads start sooner.
   */
  importSpare?: boolean
}

/** A running control plane. */
export interface Platform {
  url: string
  store: Store
  /** The asset files under `<data-dir>/assets/`. */
  files: AssetBytes
  deployer: Deployer
  bootstrap: BootstrapOutcome
  /** Stops the API, then every runtime, then closes the store. Idempotent. */
  close: () => Promise<void>
}

/**
 * Starts `understudy platform`: the SQLite store in the data dir (or PostgreSQL), the bootstrap, the local
 * deployer, and every API of the specification on one port (docs/architecture.md "Control plane"). Mock
 * services that were RUNNING when the platform last stopped are deployed again, in the background.
 *
 * @example
 * const platform = await startPlatform({ host: '127.0.0.1', port: 8080, dataDir: './data', runtimeHost: '127.0.0.1', jsonLimit: 1 << 20, uploadLimit: 64 << 20 }, log)
 */
export async function startPlatform(options: PlatformOptions, log: Logger): Promise<Platform> {
  // Options are checked before the data dir is touched: a refused key must not leave a migrated,
  // empty store behind.
  checkBootstrapKey(options)
  const store =
    options.store === undefined
      ? await openSqliteStore({ dataDir: options.dataDir, log })
      : await openPostgresStore({ url: options.store, log })
  let outcome: BootstrapOutcome
  try {
    outcome = await bootstrap(store, {
      dataDir: options.dataDir,
      ...(options.apiKeyId === undefined ? {} : { apiKeyId: options.apiKeyId }),
      ...(options.apiKeySecret === undefined ? {} : { apiKeySecret: options.apiKeySecret }),
    })
  } catch (err) {
    await store.close()
    // A bad key option stays ERR_CONFIG_INVALID and a store failure ERR_STORE_FAILED, as the
    // bootstrap raised them; only a foreign error (the credentials file cannot be written) is
    // labelled here, as the data dir's failure it is.
    if (isUnderstudyError(err)) throw err
    throw createError('ERR_STORE_FAILED', [(err as Error).message], { cause: err })
  }
  // One data dir per SQLite store: its files suffice. On PostgreSQL, several instances read the
  // bytes any of them received, so they are rows of the store.
  const files: AssetBytes =
    options.store === undefined
      ? new AssetFiles(options.dataDir)
      : new StoredAssetFiles(store.assetChunks)
  try {
    const removed = await files.removeOrphans(await store.assets.fileIds())
    if (removed.length > 0) {
      log.info({ files: removed.length }, 'removed temporary and orphaned asset files')
    }
  } catch (err) {
    // Only housekeeping: the platform serves without it.
    log.warn({ err }, 'could not clean the assets directory')
  }
  const egressLevel = options.egress ?? { level: 'loopback', allow: [] }
  // The local deployer keeps the ports no tenant's request may reach (its runtimes' admin APIs)
  // Which instance of the database runs each local runtime (one instance on SQLite: the same path).
  const leases =
    options.deployer === undefined
      ? await RuntimeLeases.open({
          store,
          log,
          dataDir: options.dataDir,
          ...(options.runtimeLeaseMs === undefined ? {} : { leaseMs: options.runtimeLeaseMs }),
        }).catch(async (err: unknown) => {
          await store.close()
          throw err
        })
      : null
  const local =
    leases !== null
      ? new LocalDeployer({
          store: localView(store),
          dataDir: options.dataDir,
          log,
          host: options.runtimeHost,
          ...(options.runtimeAdminHost === undefined
            ? {}
            : { adminHost: options.runtimeAdminHost }),
          runtimeArgs: options.runtimeArgs ?? [],
          egress: egressLevel,
          leases,
          // Several instances may share a PostgreSQL store: what each must read goes there.
          ...(options.store === undefined
            ? {}
            : {
                shared: { keptInspections: store.keptInspections, logLines: store.agentLogs },
              }),
        })
      : null
  // Admin calls to agents are rows of the store: with several instances on PostgreSQL, the one
  // holding an agent's poll and the one waiting for an answer hear of each other by NOTIFY.
  const wakeups =
    options.store === undefined ? new LocalWakeups() : new PgWakeups(options.store, log)
  // Mock services deployed to a private location go to its agents; the rest to the local host.
  const ships = new ShipDeployer({
    wakeups,
    store,
    local:
      local ??
      (options.deployer as NonNullable<typeof options.deployer>)({
        store,
        log,
        dataDir: options.dataDir,
      }),
    log,
    ...(options.shipLostAfterMs === undefined ? {} : { lostAfterMs: options.shipLostAfterMs }),
    ...(options.agentCallTimeoutMs === undefined
      ? {}
      : { agentCallTimeoutMs: options.agentCallTimeoutMs }),
  })
  // Admin calls for mock services on agents go through the relay from the first request on.
  await ships.ready()
  const deployer: Deployer = ships
  const server = http.createServer()
  await listenOn(server, options.host, options.port).catch(async (err: unknown) => {
    await deployer.shutdown()
    await wakeups.close()
    await leases?.close()
    await store.close()
    throw err
  })
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : options.port
  // No tenant's request reaches the platform's own port, nor a runtime's admin API: the deployer
  // keeps both in the file that this policy and every runtime's read.
  local?.protect(port)
  const egress = new EgressPolicy({
    ...egressLevel,
    protectedPorts: [port],
    protectedPortsFile: local?.protectedPortsFile ?? null,
  })
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`
  // One checker of secrets for every surface: wrong secrets on the APIs, the dashboard sign-in and
  // the OAuth consent and token endpoints count against one throttle (docs/security.md).
  const authenticator = new Authenticator(store)
  const deps: ApiDeps = {
    store,
    files,
    deployer,
    log,
    options: {
      baseUrl: url,
      jsonLimit: options.jsonLimit,
      uploadLimit: options.uploadLimit,
      signingKey: await linkSigningKey(store, options.store !== undefined),
    },
    ...(options.importSpare === false ? {} : { importSpare: new SpareImportWorker() }),
    authenticator,
  }
  const api = createApiHandler(deps, options.routes ?? allRoutes)
  // The monitoring API (docs/monitor-api.md) shares the port: `/buckets`, `/account`, `/radar`, `/signin`...
  const monitoring = await startMonitoring({
    store,
    log,
    baseUrl: url,
    jsonLimit: options.jsonLimit,
    authenticator,
    egress,
    ...options.monitor,
  })
  // The dashboard (/ui/) sits in front of the APIs and reaches the store only through them.
  const ui = createUiFront(
    {
      store,
      log,
      baseUrl: url,
      authenticator,
      isMonitoringRequest: (req) => monitoring.api.handles(req),
    },
    (req, res) => {
      if (monitoring.api.handles(req)) monitoring.api.handle(req, res)
      else api(req, res)
    },
  )
  server.on('request', ui.handle)
  server.on('clientError', (_err, socket) => socket.destroy())

  if (local !== null) leases?.start(local)
  deployer.restore('platform').then(
    (trackings) => {
      if (trackings.length > 0) {
        log.info(
          { mockServices: trackings.map((t) => t.mockServiceId) },
          'restoring running mock services',
        )
      }
    },
    (err: unknown) => log.error({ err }, 'restore failed'),
  )

  let closing: Promise<void> | null = null
  return {
    url,
    store,
    files,
    deployer,
    bootstrap: outcome,
    close: () => {
      closing ??= (async () => {
        ui.close()
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeIdleConnections()
          // A socket still busy after this grace (a long poll, a stream a client reopened) is cut
          // rather than waited for without end.
          setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref()
        })
        deps.importSpare?.close()
        await monitoring.close()
        await deployer.shutdown()
        await wakeups.close()
        await leases?.close()
        await store.close()
      })()
      return closing
    },
  }
}

/**
 * The key download links are signed with. One instance (SQLite): a key that lives as long as the
 * process, so links end with it. Instances sharing a PostgreSQL store: one key of the store, so a
 * link made by one instance is honoured by any other (links still end after their 15 minutes).
 */
async function linkSigningKey(store: Store, shared: boolean): Promise<Buffer> {
  if (!shared) return randomBytes(32)
  const secret = await store.runtimeLeases.sharedSecret(
    'asset-link-key',
    randomBytes(32).toString('base64url'),
  )
  return Buffer.from(secret, 'base64url')
}
