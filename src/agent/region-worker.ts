import type { Logger } from '../log/index.js'
import {
  resolveEnvironment,
  runTest,
  type EnvironmentDoc,
  type RunnableTest,
  type Step,
  type TestRunResult,
} from '../monitor/index.js'

/*
 * The monitoring side of an agent (`understudy agent --monitor --region R`): it claims the queued
 * runs of its region from the platform under a lease, runs each with the platform's own runner,
 * renews the lease while the run lasts, and posts the result. The agent makes every connection,
 * so it works behind NAT and firewalls. docs/monitor-api.md#regions-and-leases
 */

export interface RegionWorkerOptions {
  /** The platform's base URL (`https://understudy.example.com`). */
  platform: string
  harborId: string
  shipId: string
  /** The ship's token (shown once when the ship was created). */
  token: string
  region: string
  /** The agent's data directory (the worker keeps nothing there: a run lives only under its lease). */
  dataDir: string
  log: Logger
}

/** How long an idle worker waits before asking again; errors back off up to MAX_BACKOFF_MS. */
const POLL_MS = 1000
const MAX_BACKOFF_MS = 15_000
/** A lease is renewed this many times per its length, so that one late renewal does not lose it. */
const RENEWALS_PER_LEASE = 3

interface Lease {
  id: string
  expiresAt: number
  durationMs: number
}

/** A claimed run as the platform hands it over (src/api/v4/agent-runs.ts). */
interface ClaimedRun {
  id: string
  test: { id: string; name: string; bucket_key: string; steps: unknown[] }
  environments: EnvironmentDoc[]
  variables: Record<string, string>
  subtests: Array<{
    test_uuid: string
    environment_uuid: string | null
    test: ClaimedRun['test']
    environments: EnvironmentDoc[]
  }>
  lease: Lease
}

class PlatformError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

function runnable(test: ClaimedRun['test']): RunnableTest {
  // Steps travel as the platform stored them: in the runner's Step shape.
  return { id: test.id, name: test.name, steps: test.steps as Step[], bucket_key: test.bucket_key }
}

function isClaimedRun(value: unknown): value is ClaimedRun {
  if (typeof value !== 'object' || value === null) return false
  const v = value as Partial<ClaimedRun>
  return (
    typeof v.id === 'string' &&
    typeof v.test === 'object' &&
    Array.isArray(v.test.steps) &&
    Array.isArray(v.environments) &&
    Array.isArray(v.subtests) &&
    typeof v.lease?.id === 'string' &&
    typeof v.lease.durationMs === 'number'
  )
}

/** Resolves after `ms`, or at once when `signal` aborts. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
    function done(): void {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
  })
}

/**
 * Starts claiming and running the monitoring runs of one region for a ship. `stop()` stops at
 * once, as a killed agent would: no further claim, the run under way is abandoned and its result
 * never sent, so that the platform hands it to another agent of the region once its lease ends.
 *
 * @example
 * const worker = await startRegionWorker({ platform, harborId, shipId, token, region: 'eu', dataDir, log })
 * await worker.stop()
 */
export async function startRegionWorker(
  options: RegionWorkerOptions,
): Promise<{ stop(): Promise<void> }> {
  const base =
    `${options.platform.replace(/\/+$/, '')}/api/v4/private-locations/` +
    `${encodeURIComponent(options.harborId)}/servers/${encodeURIComponent(options.shipId)}/runs`
  const log = options.log
  const stopping = new AbortController()

  /** A POST to the platform; the v4 envelope's `result`, or undefined for 204. */
  async function post(path: string, body: unknown, signal: AbortSignal): Promise<unknown> {
    const res = await fetch(base + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    })
    if (res.status === 204) return undefined
    const envelope = (await res.json().catch(() => ({}))) as {
      result?: unknown
      error?: { message?: string } | null
    }
    if (!res.ok) {
      throw new PlatformError(res.status, envelope.error?.message ?? `HTTP ${res.status}`)
    }
    return envelope.result
  }

  async function claim(): Promise<ClaimedRun | undefined> {
    const result = await post('/claim', { region: options.region }, stopping.signal)
    if (result === undefined) return undefined
    if (!isClaimedRun(result)) {
      throw new Error('the platform answered a claim this agent cannot read')
    }
    return result
  }

  async function execute(run: ClaimedRun): Promise<void> {
    const context = { runId: run.id, region: options.region }
    // Aborted by stop() or by the loss of the lease: either way another agent runs it now.
    const abort = new AbortController()
    const onStop = (): void => abort.abort()
    stopping.signal.addEventListener('abort', onStop, { once: true })
    const renewal = setInterval(
      () => {
        post(`/${encodeURIComponent(run.id)}/lease`, { leaseId: run.lease.id }, abort.signal).then(
          () => undefined,
          (err: unknown) => {
            if (err instanceof PlatformError && err.status === 409) {
              log.warn(context, 'monitoring run lease lost: another agent runs it')
              abort.abort()
            } else if (!abort.signal.aborted) {
              log.warn({ ...context, err }, 'cannot renew a monitoring run lease')
            }
          },
        )
      },
      Math.max(100, run.lease.durationMs / RENEWALS_PER_LEASE),
    )
    try {
      const subtests = new Map(
        run.subtests.map((s) => [
          `${s.test_uuid}\n${s.environment_uuid ?? ''}`,
          { test: runnable(s.test), environment: resolveEnvironment(s.environments) },
        ]),
      )
      log.info(context, 'monitoring run claimed')
      const result: TestRunResult = await runTest({
        test: runnable(run.test),
        environment: resolveEnvironment(run.environments),
        initialVariables: run.variables,
        testRunId: run.id,
        signal: abort.signal,
        resolveSubtest: async (ref) =>
          subtests.get(`${ref.test_uuid}\n${ref.environment_uuid ?? ''}`) ?? null,
      })
      if (abort.signal.aborted) return
      clearInterval(renewal)
      await post(
        `/${encodeURIComponent(run.id)}/result`,
        { leaseId: run.lease.id, result },
        stopping.signal,
      )
      log.info({ ...context, result: result.result }, 'monitoring run reported')
    } catch (err) {
      if (err instanceof PlatformError && err.status === 409) {
        log.warn(context, 'monitoring run result refused: another agent took the run')
      } else if (!stopping.signal.aborted) {
        log.warn({ ...context, err }, 'monitoring run not reported')
      }
    } finally {
      clearInterval(renewal)
      stopping.signal.removeEventListener('abort', onStop)
    }
  }

  const loop = (async () => {
    let backoff = 0
    while (!stopping.signal.aborted) {
      try {
        const run = await claim()
        backoff = 0
        if (run === undefined) await pause(POLL_MS, stopping.signal)
        else await execute(run)
      } catch (err) {
        if (stopping.signal.aborted) break
        backoff = Math.min(MAX_BACKOFF_MS, backoff === 0 ? POLL_MS : backoff * 2)
        log.warn(
          { err, region: options.region, retryInMs: backoff },
          'cannot claim monitoring runs',
        )
        await pause(backoff, stopping.signal)
      }
    }
  })()
  log.info({ region: options.region }, 'monitoring runs of the region claimed here')

  return {
    async stop() {
      stopping.abort()
      await loop
    },
  }
}
