import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createError } from '../errors/index.js'
import type { Logger } from '../log/index.js'
import { answerAdminCall } from './admin-calls.js'
import { loadState, saveState, type AgentState, type Applied } from './agent-state.js'
import { PlatformClient, PlatformRefusal, type ReportBody } from './platform-client.js'
import type { PortPool } from './port-pool.js'
import type { MockRunner, Outcome, WorkItem, WorkState } from './work.js'

interface AgentOptions {
  platform: string
  harborId: string
  shipId: string
  token: string
  dataDir: string
  /** Host name clients reach the mock services at, sent with every heartbeat. */
  advertiseHost: string | null
  /** The agent's version, sent with every heartbeat. */
  version: string
  runner: MockRunner
  ports: PortPool
  log: Logger
  /** Milliseconds between heartbeats; default 5 s. */
  heartbeatMs?: number
  /** Monitoring regions served, told to the platform in heartbeats. */
  regions?: string[]
}

/** A running agent. */
export interface Agent {
  /** Resolves at the first heartbeat the platform accepts; rejects when it refuses the ship's token. */
  readonly ready: Promise<void>
  /** Stops the loops and every runtime (they start again from the data dir when the agent does). */
  stop: () => Promise<void>
}

/** Longest long poll asked of the platform, in seconds. */
const WORK_WAIT_S = 25
/** Log lines of a mock service sent with each report. */
const REPORT_LOG_LINES = 200
/** Relayed admin calls the agent makes at once; more wait on the platform for its next poll. */
const ADMIN_CALLS_AT_ONCE = 4

/**
 * Starts the agent of a ship (docs/deploy.md#agents-and-locations): it runs at once what its data
 * dir says it last ran (the platform may be down), heartbeats every few seconds with its figures,
 * long-polls its desired state and applies each change (deploy, configure without restart, stop,
 * remove), and reports every mock service's status, endpoints, trackings and logs. The agent
 * opens every connection. When the platform is unreachable the mock services keep serving and
 * reports wait; once it answers, the agent compares the desired state with what it runs and only
 * what changed is touched.
 *
 * @example
 * const agent = startAgent({ platform, harborId, shipId, token, dataDir, advertiseHost: '10.0.0.5', version: '0.1.0', runner, ports, log })
 * await agent.ready
 */
export function startAgent(options: AgentOptions): Agent {
  const client = new PlatformClient(options)
  const { runner, log } = options
  let state: AgentState = { version: null, mockServices: [], applied: {} }
  /* Read by the loops, set by stop(). */
  const life = { stopped: false }
  let queue: Promise<void> = Promise.resolve()
  const dirty = new Set<number>()
  const finished = new Map<number, NonNullable<ReportBody['trackings']>>()
  let flushing: Promise<void> | null = null
  let platformDown = false
  let markReady: () => void = () => {}
  let refuse: (err: Error) => void = () => {}
  let isReady = false
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve
    refuse = reject
  })
  // A caller that awaits `ready` sees the refusal; nobody else needs to.
  ready.catch(() => {})
  const timers = new Set<NodeJS.Timeout>()
  const sleep = async (ms: number): Promise<void> => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer)
        resolve()
      }, ms)
      timers.add(timer)
    })
  }

  runner.onChange((id) => {
    dirty.add(id)
    scheduleFlush()
  })

  const save = async (): Promise<void> => {
    await saveState(options.dataDir, state)
  }

  /** One mock service towards its desired state: only what differs from what was applied. */
  const apply = async (item: WorkItem): Promise<void> => {
    const key = String(item.mockServiceId)
    const before = state.applied[key]
    let outcome: Outcome | null = null
    let ports = { port: before?.port ?? 0, tlsPort: before?.tlsPort ?? null }
    if (item.desired === 'RUNNING') {
      const running = runner.isRunning(item.mockServiceId)
      if (!running || before === undefined || before.desired !== 'RUNNING') {
        ports = await portsFor(item, ports)
        outcome = await runner.deploy(item, ports)
      } else if (
        before.documentHash !== item.documentHash ||
        before.replicas !== item.replicas ||
        before.endpointPreference !== item.endpointPreference
      ) {
        outcome = await runner.configure(item, ports)
      }
    } else if (runner.isRunning(item.mockServiceId)) {
      outcome = await runner.stop(item)
    }
    const view = runner.view(item.mockServiceId)
    const next: Applied = {
      desired: item.desired,
      documentHash: item.documentHash,
      replicas: item.replicas,
      endpointPreference: item.endpointPreference,
      trackingId: item.trackingId,
      port: view?.port ?? ports.port,
      tlsPort: ports.tlsPort,
      pid: view?.pid ?? before?.pid ?? null,
    }
    state.applied[key] = next
    if (outcome !== null || before?.trackingId !== item.trackingId || view !== undefined) {
      if (item.trackingId !== null && before?.trackingId !== item.trackingId) {
        const ok = outcome?.ok ?? true
        const list = finished.get(item.mockServiceId) ?? []
        list.push({
          trackingId: item.trackingId,
          status: ok ? 'FINISHED' : 'FAILED',
          errors: outcome?.errors ?? [],
          warnings: outcome?.warnings ?? [],
        })
        finished.set(item.mockServiceId, list)
      }
      dirty.add(item.mockServiceId)
    }
    if (outcome !== null) {
      log.info(
        { serviceMockId: item.mockServiceId, desired: item.desired, ok: outcome.ok },
        'mock service applied',
      )
    }
  }

  /** Ports from `--port-range` for a mock service that has none yet (or lost them). */
  const portsFor = async (
    item: WorkItem,
    current: { port: number; tlsPort: number | null },
  ): Promise<{ port: number; tlsPort: number | null }> => {
    const held = new Set<number>()
    for (const [id, a] of Object.entries(state.applied)) {
      if (Number(id) === item.mockServiceId) continue
      if (a.port !== 0) held.add(a.port)
      if (a.tlsPort !== null && a.tlsPort !== 0) held.add(a.tlsPort)
    }
    const port =
      current.port !== 0 && !held.has(current.port) ? current.port : await options.ports.take(held)
    if (item.endpointPreference !== 'HTTPS') return { port, tlsPort: null }
    held.add(port)
    const tlsPort =
      current.tlsPort !== null && current.tlsPort !== 0 && !held.has(current.tlsPort)
        ? current.tlsPort
        : await options.ports.take(held)
    return { port, tlsPort }
  }

  const reconcile = async (work: WorkState): Promise<void> => {
    state.version = work.version
    state.mockServices = work.mockServices
    await save()
    const wanted = new Set(work.mockServices.map((m) => m.mockServiceId))
    for (const id of Object.keys(state.applied).map(Number)) {
      if (wanted.has(id)) continue
      await runner.remove(id)
      delete state.applied[String(id)]
      dirty.delete(id)
      finished.delete(id)
      log.info({ serviceMockId: id }, 'mock service removed from this ship')
    }
    for (const item of work.mockServices) {
      try {
        await apply(item)
      } catch (err) {
        log.error({ err, serviceMockId: item.mockServiceId }, 'could not apply the mock service')
        const list = finished.get(item.mockServiceId) ?? []
        if (item.trackingId !== null) {
          list.push({
            trackingId: item.trackingId,
            status: 'FAILED',
            errors: [{ code: 'ERR_DEPLOY_FAILED', message: (err as Error).message }],
            warnings: [],
          })
        }
        finished.set(item.mockServiceId, list)
        dirty.add(item.mockServiceId)
      }
    }
    await save()
    scheduleFlush()
  }

  const enqueue = (work: WorkState): Promise<void> => {
    // A failed round (the data dir unwritable) is logged; the next one still runs.
    queue = queue.then(async () => {
      if (life.stopped) return
      await reconcile(work).catch((err: unknown) => {
        log.error({ err }, 'could not apply the desired state')
      })
    })
    return queue
  }

  const scheduleFlush = (): void => {
    if (flushing !== null || life.stopped) return
    flushing = flush().finally(() => {
      flushing = null
      // Changes that came during the flush go out with the next one.
      if (dirty.size > 0 && !platformDown) setTimeout(scheduleFlush, 50).unref()
    })
  }

  /** Sends a report for every mock service whose state changed; what fails waits for the next heartbeat. */
  const flush = async (): Promise<void> => {
    for (const id of [...dirty]) {
      const view = runner.view(id)
      if (view === undefined && !finished.has(id)) {
        dirty.delete(id)
        continue
      }
      const trackings = finished.get(id) ?? []
      const body: ReportBody = {
        mockServiceId: id,
        // Never run here: stopped if that is what was asked, else it failed to start.
        status:
          view?.status ?? (state.applied[String(id)]?.desired === 'STOPPED' ? 'STOPPED' : 'FAILED'),
        endpoints: view?.endpoints ?? { http: null, https: null },
        trackings,
        logs: runner.logs(id, REPORT_LOG_LINES),
        error: trackings.find((t) => t.errors.length > 0)?.errors[0] ?? null,
      }
      dirty.delete(id)
      finished.delete(id)
      try {
        await client.report(body)
      } catch (err) {
        if (err instanceof PlatformRefusal && err.status === 404) continue
        // Kept for the next try, with anything that came meanwhile.
        dirty.add(id)
        finished.set(id, [...trackings, ...(finished.get(id) ?? [])])
        if (!(err instanceof PlatformRefusal)) platformDown = true
        return
      }
    }
  }

  const heartbeatLoop = async (): Promise<void> => {
    while (!life.stopped) {
      try {
        const figures = await runner.figures()
        const running = Object.entries(state.applied).map(([id, a]) => ({
          mockServiceId: Number(id),
          documentHash: a.documentHash,
          port: a.port === 0 ? null : a.port,
          status: runner.view(Number(id))?.status ?? 'STOPPED',
        }))
        await client.heartbeat({
          memoryUsage: figures.memoryUsage,
          msRunningCount: running.filter((r) => r.status === 'RUNNING').length,
          transactionsCount: figures.transactionsCount,
          version: options.version,
          advertiseHost: options.advertiseHost,
          ...(options.regions === undefined ? {} : { regions: options.regions }),
          running,
        })
        if (platformDown) log.info('the platform answers again')
        platformDown = false
        if (!isReady) {
          isReady = true
          markReady()
        }
        scheduleFlush()
      } catch (err) {
        if (err instanceof PlatformRefusal && err.status === 401 && !isReady) {
          refuse(
            createError('ERR_CONFIG_INVALID', [
              `the platform refused the token of ship ${options.shipId} of harbor ${options.harborId} (401 ${err.message}): check --harbor, --ship and --token`,
            ]),
          )
          return
        }
        if (!platformDown) log.warn({ err: (err as Error).message }, 'heartbeat failed')
        platformDown = !(err instanceof PlatformRefusal)
      }
      await sleep(options.heartbeatMs ?? 5000)
    }
  }

  const workLoop = async (): Promise<void> => {
    let failures = 0
    while (!life.stopped) {
      try {
        const known = state.version
        const work = await client.work(known, WORK_WAIT_S)
        failures = 0
        if (work.version !== known || known === null) {
          await enqueue(work)
        } else if (dirty.size > 0) {
          scheduleFlush()
        }
      } catch (err) {
        if (life.stopped) return
        failures++
        if (failures === 1) {
          log.warn({ err: (err as Error).message }, 'cannot read the desired state')
        }
        await sleep(Math.min(5000, 500 * failures))
      }
    }
  }

  /**
   * Takes the admin calls the platform relays for the mock services of this ship (inspection,
   * verification, recordings, scenarios: the platform never connects to the agent), makes each on
   * its runtime and posts the answer back, a few at a time.
   */
  const adminCallLoop = async (): Promise<void> => {
    const inFlight = new Set<Promise<void>>()
    let failures = 0
    const meantToRun = (id: number): boolean => state.applied[String(id)]?.desired === 'RUNNING'
    while (!life.stopped) {
      if (inFlight.size >= ADMIN_CALLS_AT_ONCE) {
        await Promise.race(inFlight)
        continue
      }
      try {
        const asked = Date.now()
        const calls = await client.adminCalls(ADMIN_CALLS_AT_ONCE - inFlight.size, WORK_WAIT_S)
        failures = 0
        // A poll that ends at once with nothing (a platform stopping) is not repeated at once.
        if (calls.length === 0 && Date.now() - asked < 1000) await sleep(1000)
        for (const call of calls) {
          const done: Promise<void> = answerAdminCall(runner, meantToRun, options.shipId, call)
            .then(async (answer) => await client.answerAdminCall(call.callId, answer))
            .catch((err: unknown) => {
              // The platform has given up on it, or is unreachable: its caller was told so.
              log.warn(
                { err: (err as Error).message, callId: call.callId },
                'admin call not answered',
              )
            })
            .finally(() => inFlight.delete(done))
          inFlight.add(done)
        }
      } catch (err) {
        if (life.stopped) return
        failures++
        if (failures === 1) {
          log.warn({ err: (err as Error).message }, 'cannot read the admin calls')
        }
        await sleep(Math.min(5000, 500 * failures))
      }
    }
  }

  const start = async (): Promise<void> => {
    state = await loadState(options.dataDir)
    if (state.mockServices.length > 0) {
      await endLeftovers(options.dataDir, state, log)
      // What ran before the agent stopped runs again now, platform or not; the desired state
      // read next says whether anything changed meanwhile.
      const restored = Object.fromEntries(
        Object.entries(state.applied).map(([id, a]) => [id, { ...a, pid: null }]),
      )
      state.applied = restored
      log.info({ mockServices: state.mockServices.length }, 'restoring the last desired state')
      // Not awaited: heartbeats start meanwhile, so that the platform does not judge the ship
      // lost while its runtimes start.
      enqueue({ version: state.version ?? 0, mockServices: state.mockServices }).catch(() => {})
    }
  }

  const started = start().catch((err: unknown) => {
    log.error({ err }, 'could not restore the last desired state')
  })
  started
    .then(async () => await Promise.all([heartbeatLoop(), workLoop(), adminCallLoop()]))
    .catch((err: unknown) => log.error({ err }, 'the agent stopped working'))

  return {
    ready,
    stop: async () => {
      life.stopped = true
      client.close()
      for (const timer of timers) clearTimeout(timer)
      await queue.catch(() => {})
      await runner.shutdown()
    },
  }
}

/**
 * Ends the runtimes a killed agent left behind (they hold the ports its mock services come back
 * on): only processes whose command line is `run --mock` on a document of this data dir.
 */
async function endLeftovers(dataDir: string, state: AgentState, log: Logger): Promise<void> {
  const documents = join(dataDir, 'mocks')
  for (const [id, applied] of Object.entries(state.applied)) {
    const pid = applied.pid
    if (pid === null) continue
    let commandLine: string
    try {
      commandLine = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ')
    } catch {
      continue
    }
    if (!commandLine.includes(' run ') || !commandLine.includes(documents)) continue
    try {
      process.kill(pid, 'SIGKILL')
      log.info({ serviceMockId: Number(id), pid }, 'ended a runtime left by the previous agent')
    } catch {
      continue
    }
    // Its ports are free once it is gone.
    for (let i = 0; i < 100; i++) {
      try {
        process.kill(pid, 0)
      } catch {
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}
