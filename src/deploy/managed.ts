import { createError, isUnderstudyError } from '../errors/index.js'
import { RestartSupervisor, type RestartPolicy } from '../config/index.js'
import { LogRing } from '../log/index.js'
import type { RuntimeAdmin } from './admin-client.js'
import type { RuntimeEndpoints, RuntimeProcess } from './runtime-process.js'

/** What a runtime is started with: the settings that need a new process when they change. */
export interface LaunchSpec {
  /** Requested HTTP port; 0 lets the system pick one. */
  port: number
  /** Requested HTTPS port when `https`; 0 lets the system pick one. */
  tlsPort: number | null
  https: boolean
  replicas: number
}

/** A runtime that started and answered its health check. */
export interface Running {
  readonly process: RuntimeProcess
  readonly endpoints: RuntimeEndpoints
  /** Its admin API and the token this process was started with. */
  readonly admin: RuntimeAdmin
  readonly spec: LaunchSpec
  /** The ports it got, which a restart asks for again. */
  readonly port: number
  readonly tlsPort: number | null
  /** Its mock-service document. */
  readonly file: string
}

/**
 * The deployer's state of one mock service. Every action on it (deploy, configure, stop, remove,
 * the restarts after a crash) runs through `queue`, one at a time, in call order.
 */
export interface Managed {
  readonly id: number
  queue: Promise<void>
  /** Actions queued or running; a new action finding none starts RUNNING, otherwise PENDING. */
  busy: number
  /** Bumped by every user action: a restart scheduled before it gives up. */
  generation: number
  running: Running | null
  /** The process of a start under way (not yet healthy), so that shutdown can end it. */
  starting: RuntimeProcess | null
  /** Restarts after crashes: their count (reset by a user action or a long enough life) and the one waiting. */
  readonly restarts: RestartSupervisor
  readonly logs: LogRing
}

/**
 * A mock service's fresh state: nothing running, nothing queued.
 *
 * @example
 * const entry = createManaged(7, 1000, policy)
 */
export function createManaged(id: number, logLines: number, restart: RestartPolicy): Managed {
  return {
    id,
    queue: Promise.resolve(),
    busy: 0,
    generation: 0,
    running: null,
    starting: null,
    restarts: new RestartSupervisor(restart),
    logs: new LogRing(logLines),
  }
}

/**
 * Runs `task` after every task queued before it on this mock service; a failure does not stop the queue.
 *
 * @example
 * await serialize(entry, async () => await stopRuntime(entry))
 */
export function serialize<T>(entry: Managed, task: () => Promise<T>): Promise<T> {
  const run = entry.queue.then(task)
  entry.queue = run.then(noop, noop)
  return run
}

/**
 * How a process ended, for log lines.
 *
 * @example
 * describeExit({ code: null, signal: 'SIGKILL' }) // 'was killed by SIGKILL'
 */
export function describeExit(exit: { code: number | null; signal: NodeJS.Signals | null }): string {
  return exit.signal !== null
    ? `was killed by ${exit.signal}`
    : `exited with code ${exit.code ?? '?'}`
}

/**
 * The `errors[]` entry of a failed tracking: the code and message of an UnderstudyError or of the
 * runtime's answer (ERR_DSL_INVALID...), ERR_DEPLOY_FAILED around anything else.
 *
 * @example
 * trackingErrorOf(new Error('boom')) // { code: 'ERR_DEPLOY_FAILED', message: 'Deployment failed: boom' }
 */
export function trackingErrorOf(err: unknown): { code: string; message: string } {
  // Only our own codes reach users; a Node.js ERR_* (a socket error...) is wrapped like any error.
  if (isUnderstudyError(err)) return { code: err.code, message: err.message }
  return {
    code: 'ERR_DEPLOY_FAILED',
    message: createError('ERR_DEPLOY_FAILED', [err instanceof Error ? err.message : String(err)])
      .message,
  }
}

function noop(): void {}
