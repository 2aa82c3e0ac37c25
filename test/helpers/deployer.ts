import { onTestFinished } from 'vitest'
import { LocalDeployer, type LocalDeployerOptions } from '../../src/deploy/index.js'
import { readDefinition, type MockServiceDocument } from '../../src/dsl/index.js'
import { createSilentLogger } from '../../src/log/index.js'
import type { Tracking } from '../../src/store/index.js'
import { FakeStore } from './fake-store.js'
import { tempDir } from './temp-dir.js'
import { waitFor } from './wait.js'

/** A deployer on a fake store and a fresh data dir; shut down (every runtime stopped) when the test finishes. */
interface TestDeployer {
  deployer: LocalDeployer
  store: FakeStore
  dataDir: string
}

/**
 * Creates a LocalDeployer for a test: silent, runtimes draining for at most 2 s.
 *
 * @example
 * const { deployer, store } = startDeployer()
 */
export function startDeployer(options: Partial<LocalDeployerOptions> = {}): TestDeployer {
  const dataDir = tempDir('understudy-deploy-')
  const store = new FakeStore()
  const deployer = new LocalDeployer({
    store,
    dataDir,
    log: createSilentLogger(),
    readyTimeoutMs: 15_000,
    stopTimeoutMs: 5_000,
    runtimeArgs: ['--drain-timeout', '2000', '--log-level', 'info'],
    ...options,
  })
  onTestFinished(async () => await deployer.shutdown())
  return { deployer, store, dataDir }
}

/** A mock-service document answering `GET <path>` with `text`, for each pair. */
export function textDocument(
  answers: Record<string, string>,
  extra: Record<string, unknown> = {},
): MockServiceDocument {
  return readDefinition({
    ...extra,
    transactions: Object.entries(answers).map(([path, text], i) => ({
      id: i + 1,
      name: `get ${path}`,
      dsl: { requestDsl: { method: 'GET', path }, responseDsl: { text } },
    })),
  })
}

/** Waits for a tracking to end and returns it, failing loudly when it is unknown. */
export async function settle(deployer: LocalDeployer, tracking: Tracking): Promise<Tracking> {
  const ended = await deployer.settled(tracking.trackingId)
  if (ended === undefined) throw new Error(`tracking ${tracking.trackingId} is unknown`)
  return ended
}

/** Polls `check` every 50 ms until it returns true (or fails after `timeoutMs`). */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  await waitFor(check, what, { timeoutMs, intervalMs: 50 })
}
