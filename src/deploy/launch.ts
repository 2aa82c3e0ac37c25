import { randomBytes } from 'node:crypto'
import { createError, isUnderstudyError } from '../errors/index.js'
import { fetchHealth, type RuntimeAdmin } from './admin-client.js'
import type { LaunchSpec, Running } from './managed.js'
import type { RuntimeCommand } from './runtime-command.js'
import { RuntimeProcess } from './runtime-process.js'

interface LaunchParams {
  command: RuntimeCommand
  /** `--host` of the runtime. */
  host: string
  /**
   * `--admin-host` of the runtime: 127.0.0.1 by default, where only this machine reaches it; an
   * address of this machine that other platform instances on the same database reach it at.
   */
  adminHost?: string
  /** Flags appended to every `run`. */
  runtimeArgs: readonly string[]
  /** Environment variables added to the runtime's (never secrets in flags: `ps` shows those). */
  env?: Record<string, string>
  spec: LaunchSpec
  /** The mock-service document. */
  file: string
  /** How long the ready lines and the first UP health may take together. */
  readyTimeoutMs: number
  /** Each line of the runtime's standard error. */
  onLine: (line: string) => void
  /**
   * The admin token (default a new random one): platform instances sharing a database derive it
   * from the process's start id, so that each can reach a runtime another one started.
   */
  token?: string
  /** Called with the child as soon as it is spawned (so that a shutdown can end a start under way). */
  onSpawn: (child: RuntimeProcess) => void
}

/**
 * Starts `understudy run --mock <file> --host H --port P --admin-port 0 --admin-host 127.0.0.1
 * --replicas N [--tls-port T]` with a new admin token in its environment
 * (`UNDERSTUDY_ADMIN_TOKEN`, random, or derived from a new start id: never stored), waits for its ready lines and
 * for `GET /health` to say UP, and gives the running runtime. On any failure (it exits, a port is
 * in use, it is too slow) the child is killed and ERR_DEPLOY_FAILED names the reason.
 *
 * @example
 * const running = await launchRuntime({ command, host: '127.0.0.1', runtimeArgs: [], spec, file, readyTimeoutMs: 20_000, onLine, onSpawn })
 * running.endpoints.http // 'http://127.0.0.1:41234'
 */
export async function launchRuntime(params: LaunchParams): Promise<Running> {
  const { spec } = params
  // With a token the admin API would follow --host: it stays on loopback, where only this machine
  // reaches it, unless the platform names the address its other instances reach it at.
  const args = [
    'run',
    '--mock',
    params.file,
    '--host',
    params.host,
    '--port',
    String(spec.port),
    '--admin-port',
    '0',
    '--admin-host',
    params.adminHost ?? '127.0.0.1',
    '--replicas',
    String(spec.replicas),
  ]
  if (spec.https) args.push('--tls-port', String(spec.tlsPort ?? 0))
  args.push(...params.runtimeArgs)
  // 256 bits: one per process, so a restart (or a redeploy) ends every token handed out before.
  const token = params.token ?? randomBytes(32).toString('base64url')
  const child = RuntimeProcess.spawn(params.command, args, params.onLine, {
    ...params.env,
    UNDERSTUDY_ADMIN_TOKEN: token,
  })
  params.onSpawn(child)
  const deadline = Date.now() + params.readyTimeoutMs
  try {
    const endpoints = await child.ready(params.readyTimeoutMs)
    const admin: RuntimeAdmin = { url: endpoints.admin, token }
    await waitHealthy(admin, child, deadline, params.readyTimeoutMs)
    return {
      process: child,
      endpoints,
      admin,
      spec,
      port: portOf(endpoints.http),
      tlsPort: endpoints.https === null ? null : portOf(endpoints.https),
      file: params.file,
    }
  } catch (err) {
    await child.kill()
    throw err
  }
}

/** Polls `GET /health` until it says UP (a cluster says so once every replica listens). */
async function waitHealthy(
  admin: RuntimeAdmin,
  child: RuntimeProcess,
  deadline: number,
  timeoutMs: number,
): Promise<void> {
  let last: unknown = null
  while (Date.now() < deadline) {
    if (!child.alive) throw child.failure()
    try {
      const health = await fetchHealth(admin, Math.max(100, Math.min(2000, deadline - Date.now())))
      if (health.status === 'UP') return
      last = `health is ${health.status}`
    } catch (err) {
      // A poll cut short by the deadline tells nothing new: the reason stays the last answer's
      // (`health is DOWN`), not the timeout of a machine too busy to answer in the time left.
      if (last === null || Date.now() < deadline) last = isUnderstudyError(err) ? err.message : err
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw createError('ERR_DEPLOY_FAILED', [
    `the runtime did not report UP within ${timeoutMs} ms (${String(last)})`,
  ])
}

function portOf(url: string): number {
  return Number(new URL(url).port)
}
