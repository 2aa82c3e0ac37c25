import { randomBytes } from 'node:crypto'
import http from 'node:http'
import { allRoutes, bootstrap, createApiHandler, createUiFront, type ApiDeps, type BootstrapOutcome } from '../api/index.js'
import { LocalDeployer, type Deployer } from '../deploy/index.js'
import { createError } from '../errors/index.js'
import type { Logger } from '../log/index.js'
import { AssetFiles, openSqliteStore, type Store } from '../store/index.js'

export interface PlatformOptions {
  host: string
  port: number
  dataDir: string
  /** Interface the mock services' runtimes listen on. */
  runtimeHost: string
  apiKeyId?: string
  apiKeySecret?: string
  /** Largest JSON body and upload, in bytes. */
  jsonLimit: number
  uploadLimit: number
  /** More flags for every `understudy run` the deployer starts. */
  runtimeArgs?: readonly string[]
}

/** A running control plane. */
export interface Platform {
  url: string
  store: Store
  deployer: Deployer
  bootstrap: BootstrapOutcome
  /** Stops the API, then every runtime, then closes the store. Idempotent. */
  close: () => Promise<void>
}

/**
 * Starts `understudy platform`: the SQLite store in the data dir, the bootstrap, the local
 * deployer, and every API of the specification on one port (DESIGN.md sections 1 and 5). Mock
 * services that were RUNNING when the platform last stopped are deployed again, in the background.
 *
 * @example
 * const platform = await startPlatform({ host: '127.0.0.1', port: 8080, dataDir: './data', runtimeHost: '127.0.0.1', jsonLimit: 1 << 20, uploadLimit: 64 << 20 }, log)
 */
export async function startPlatform (options: PlatformOptions, log: Logger): Promise<Platform> {
  const store = await openSqliteStore({ dataDir: options.dataDir, log })
  let outcome: BootstrapOutcome
  try {
    outcome = await bootstrap(store, {
      dataDir: options.dataDir,
      ...(options.apiKeyId === undefined ? {} : { apiKeyId: options.apiKeyId }),
      ...(options.apiKeySecret === undefined ? {} : { apiKeySecret: options.apiKeySecret }),
    })
  } catch (err) {
    await store.close()
    throw createError('ERR_CONFIG_INVALID', [(err as Error).message], { cause: err })
  }
  const files = new AssetFiles(options.dataDir)
  const deployer = new LocalDeployer({ store, dataDir: options.dataDir, log, host: options.runtimeHost, runtimeArgs: options.runtimeArgs ?? [] })
  const server = http.createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(createError('ERR_SERVE_LISTEN', [`${options.host}:${options.port}`, err.code === 'EADDRINUSE' ? 'the port is in use' : err.message], { cause: err }))
    })
    server.listen(options.port, options.host, () => resolve())
  }).catch(async (err: unknown) => {
    await deployer.shutdown()
    await store.close()
    throw err
  })
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : options.port
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`
  const deps: ApiDeps = {
    store,
    files,
    deployer,
    log,
    // Download links are signed with a key that lives as long as the process: links end with it.
    options: { baseUrl: url, jsonLimit: options.jsonLimit, uploadLimit: options.uploadLimit, signingKey: randomBytes(32) },
  }
  // The dashboard (/ui/) sits in front of the API and reaches the store only through it.
  const ui = createUiFront({ store, log, baseUrl: url }, createApiHandler(deps, allRoutes))
  server.on('request', ui.handle)
  server.on('clientError', (_err, socket) => socket.destroy())

  deployer.restore('platform').then((trackings) => {
    if (trackings.length > 0) log.info({ mockServices: trackings.map((t) => t.mockServiceId) }, 'restoring running mock services')
  }, (err: unknown) => log.error({ err }, 'restore failed'))

  let closing: Promise<void> | null = null
  return {
    url,
    store,
    deployer,
    bootstrap: outcome,
    close: () => {
      closing ??= (async () => {
        ui.close()
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeIdleConnections()
        })
        await deployer.shutdown()
        await store.close()
      })()
      return closing
    },
  }
}
