import { randomBytes } from 'node:crypto'
import http from 'node:http'
import { onTestFinished } from 'vitest'
import { allRoutes, Authenticator, bootstrap, createApiHandler, startMonitoring, type ApiDeps, type Monitoring, type Route } from '../../src/api/index.js'
import { createError } from '../../src/errors/index.js'
import type { Deployer } from '../../src/deploy/index.js'
import { createSilentLogger } from '../../src/log/index.js'
import { AssetFiles, openSqliteStore, type Store } from '../../src/store/index.js'
import { tempDir } from './temp-dir.js'

/** A control plane started in this process on 127.0.0.1:0 with a fresh data dir. */
export interface TestPlatform {
  url: string
  store: Store
  files: AssetFiles
  dataDir: string
  accountId: number
  workspaceId: number
  userId: number
  /** `Authorization` header value of the bootstrap API key. */
  auth: string
  /** fetch against the platform with the bootstrap key (override `authorization` to test auth). */
  request: (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>
  close: () => Promise<void>
}

/** A deployer for tests that do not deploy: every call fails with 503 ERR_API_UNAVAILABLE. */
export const unavailableDeployer: Deployer = {
  deploy: async () => { throw createError('ERR_API_UNAVAILABLE', ['no deployer in this test']) },
  configure: async () => { throw createError('ERR_API_UNAVAILABLE', ['no deployer in this test']) },
  stop: async () => { throw createError('ERR_API_UNAVAILABLE', ['no deployer in this test']) },
  remove: async () => {},
  admin: () => null,
  logsOf: () => [],
  restore: async () => [],
  settled: async () => undefined,
  environment: async () => ({ status: 'RUNNING', lastHeartBeat: Date.now(), memoryUsage: 0, msRunningCount: 0, totalTxnCount: 0, runningMockServiceIds: [] }),
  shutdown: async () => {},
}

/**
 * Starts the API in-process (real SQLite store in a temporary dir, real HTTP on port 0), with the
 * bootstrap account, workspace and API key; closed when the test finishes.
 *
 * @example
 * const platform = await startTestPlatform()
 * const res = await platform.request(`/api/v1/workspaces/${platform.workspaceId}/services`, { method: 'POST', json: { name: 'pets' } })
 */
export async function startTestPlatform (options: { deployer?: (deps: Omit<ApiDeps, 'deployer'>, dataDir: string) => Deployer; routes?: readonly Route[]; uploadLimit?: number; /** Serve the monitoring API (spec/000) too. */ monitoring?: boolean } = {}): Promise<TestPlatform> {
  const dataDir = tempDir('understudy-platform-')
  const log = createSilentLogger()
  const store = await openSqliteStore({ dataDir, log })
  const apiKeyId = `test-${randomBytes(4).toString('hex')}`
  const apiKeySecret = randomBytes(16).toString('hex')
  const outcome = await bootstrap(store, { dataDir, apiKeyId, apiKeySecret })
  const files = new AssetFiles(dataDir)
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`
  const base = {
    store,
    authenticator: new Authenticator(store),
    files,
    log,
    options: { baseUrl: url, jsonLimit: 1024 * 1024, uploadLimit: options.uploadLimit ?? 16 * 1024 * 1024, signingKey: randomBytes(32) },
  }
  const deployer = options.deployer?.(base, dataDir) ?? unavailableDeployer
  const api = createApiHandler({ ...base, deployer }, options.routes ?? allRoutes)
  const monitoring: Monitoring | undefined = options.monitoring === true ? await startMonitoring({ store, log, baseUrl: url, jsonLimit: 1024 * 1024, authenticator: base.authenticator }) : undefined
  server.on('request', (req, res) => { if (monitoring?.api.handles(req) === true) monitoring.api.handle(req, res); else api(req, res) })
  const auth = `Basic ${Buffer.from(`${apiKeyId}:${apiKeySecret}`).toString('base64')}`
  let closed = false
  const close = async (): Promise<void> => {
    if (closed) return
    closed = true
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await deployer.shutdown()
    await monitoring?.close()
    await store.close()
  }
  onTestFinished(close)
  return {
    url,
    store,
    files,
    dataDir,
    accountId: outcome.accountId,
    workspaceId: outcome.workspaceId,
    userId: outcome.userId,
    auth,
    request: async (path, init = {}) => {
      const { json, headers, ...rest } = init
      const allHeaders = new Headers(headers)
      if (!allHeaders.has('authorization')) allHeaders.set('authorization', auth)
      if (json !== undefined && !allHeaders.has('content-type')) allHeaders.set('content-type', 'application/json')
      return fetch(url + path, { ...rest, headers: allHeaders, ...(json === undefined ? {} : { body: JSON.stringify(json) }) })
    },
    close,
  }
}
