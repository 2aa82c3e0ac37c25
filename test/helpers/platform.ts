import { randomBytes } from 'node:crypto'
import { onTestFinished } from 'vitest'
import type { Route } from '../../src/api/index.js'
import { startPlatform } from '../../src/cli/platform.js'
import { createError } from '../../src/errors/index.js'
import type { Deployer } from '../../src/deploy/index.js'
import { createSilentLogger, type Logger } from '../../src/log/index.js'
import type { AssetBytes, Store } from '../../src/store/index.js'
import { testStoreOf } from './test-store.js'
import { tempDir } from './temp-dir.js'

/** A control plane started in this process on 127.0.0.1:0 with a fresh data dir. */
export interface TestPlatform {
  url: string
  store: Store
  files: AssetBytes
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
  deploy: async () => {
    throw createError('ERR_API_UNAVAILABLE', ['no deployer in this test'])
  },
  configure: async () => {
    throw createError('ERR_API_UNAVAILABLE', ['no deployer in this test'])
  },
  stop: async () => {
    throw createError('ERR_API_UNAVAILABLE', ['no deployer in this test'])
  },
  remove: async () => {},
  admin: async () => null,
  logsOf: () => [],
  restore: async () => [],
  settled: async () => undefined,
  environment: async () => ({
    status: 'RUNNING',
    lastHeartBeat: Date.now(),
    memoryUsage: 0,
    msRunningCount: 0,
    totalTxnCount: 0,
    runningMockServiceIds: [],
  }),
  shutdown: async () => {},
}

interface TestPlatformOptions {
  /** What runs the mock services; default `unavailableDeployer` (a test that deploys passes a LocalDeployer). */
  deployer?: (deps: { store: Store; log: Logger }, dataDir: string) => Deployer
  routes?: readonly Route[]
  /** Largest upload; default 16 MiB. */
  uploadLimit?: number
  /** Keep a loaded import thread for large uploads, as the platform does; default false (it only makes them start sooner). */
  importSpare?: boolean
  /** The monitoring API (docs/monitor-api.md) is always served, as by `understudy platform`; kept for the tests that say they need it. */
  monitoring?: boolean
  /** How long an agent may stay silent before its ship is lost (`--ship-lost-after`); default 15 s. */
  shipLostAfterMs?: number
  /** How long an admin call for a mock service on an agent waits for the agent (`--agent-call-timeout`); default 10 s. */
  agentCallTimeoutMs?: number
}

/**
 * Starts the platform in-process through the same wiring as `understudy platform` (startPlatform:
 * real SQLite store in a temporary dir, or PostgreSQL: see testStore; the bootstrap account, workspace and API key, every API and
 * the dashboard on one port, real HTTP on 127.0.0.1:0); closed when the test finishes. JSON bodies
 * are limited to 1 MiB (the command's 16 MiB would make limit tests slow).
 *
 * @example
 * const platform = await startTestPlatform()
 * const res = await platform.request(`/api/v1/workspaces/${platform.workspaceId}/services`, { method: 'POST', json: { name: 'pets' } })
 */
export async function startTestPlatform(options: TestPlatformOptions = {}): Promise<TestPlatform> {
  const dataDir = tempDir('understudy-platform-')
  const log = createSilentLogger()
  const apiKeyId = `test-${randomBytes(4).toString('hex')}`
  const apiKeySecret = randomBytes(16).toString('hex')
  const { deployer } = options
  const store = await testStoreOf(dataDir)
  const platform = await startPlatform(
    {
      host: '127.0.0.1',
      port: 0,
      dataDir,
      ...(store === undefined ? {} : { store }),
      runtimeHost: '127.0.0.1',
      apiKeyId,
      apiKeySecret,
      jsonLimit: 1024 * 1024,
      uploadLimit: options.uploadLimit ?? 16 * 1024 * 1024,
      importSpare: options.importSpare ?? false,
      deployer: (wiring) => deployer?.(wiring, wiring.dataDir) ?? unavailableDeployer,
      ...(options.routes === undefined ? {} : { routes: options.routes }),
      ...(options.shipLostAfterMs === undefined
        ? {}
        : { shipLostAfterMs: options.shipLostAfterMs }),
      ...(options.agentCallTimeoutMs === undefined
        ? {}
        : { agentCallTimeoutMs: options.agentCallTimeoutMs }),
    },
    log,
  )
  onTestFinished(platform.close)
  const auth = `Basic ${Buffer.from(`${apiKeyId}:${apiKeySecret}`).toString('base64')}`
  return {
    url: platform.url,
    store: platform.store,
    files: platform.files,
    dataDir,
    accountId: platform.bootstrap.accountId,
    workspaceId: platform.bootstrap.workspaceId,
    userId: platform.bootstrap.userId,
    auth,
    request: async (path, init = {}) => {
      const { json, headers, ...rest } = init
      const allHeaders = new Headers(headers)
      if (!allHeaders.has('authorization')) allHeaders.set('authorization', auth)
      if (json !== undefined && !allHeaders.has('content-type')) {
        allHeaders.set('content-type', 'application/json')
      }
      return fetch(platform.url + path, {
        ...rest,
        headers: allHeaders,
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      })
    },
    close: platform.close,
  }
}
