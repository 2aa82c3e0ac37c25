import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'
import { cliPath } from './cli.js'
import type { TestPlatform } from './platform.js'
import { waitFor } from './wait.js'

/** An `understudy agent` (or other long-lived command) started in its own process group. */
export interface AgentProcess {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  /** SIGKILL to the whole process group: the agent and every runtime it started, as a machine lost. */
  killGroup: () => Promise<void>
}

/**
 * Starts `understudy <args>` in a process group of its own, waits until its output (stdout, then
 * stderr) matches `ready`, and kills the group when the test finishes.
 *
 * @example
 * const agent = await startGroup(['agent', '--platform', url, ...], /agent ready/)
 */
export async function startGroup(
  args: string[],
  ready: RegExp,
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<AgentProcess> {
  const child = spawn(process.execPath, [cliPath, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
    detached: true,
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString()
  })
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString()
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const killGroup = async (): Promise<void> => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL')
    } catch {
      // already gone
    }
    await exited
  }
  onTestFinished(killGroup)
  try {
    await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`exited (${child.exitCode})`)
        return ready.test(`${stdout}\n${stderr}`)
      },
      String(ready),
      { timeoutMs: options.timeoutMs ?? 20_000, intervalMs: 50 },
    )
  } catch (err) {
    throw new Error(`${(err as Error).message}\nstdout: ${stdout}\nstderr: ${stderr}`)
  }
  return { child, stdout: () => stdout, stderr: () => stderr, killGroup }
}

/**
 * A port of 21000-29999 free now, with the `span` ports after it free too (for --port-range). Below
 * Linux's ephemeral range (32768-60999): there, the outgoing connections of a busy test run (and
 * their thousands of TIME-WAIT sockets after a load test) hold ports a block would need.
 */
export async function freePortBlock(span = 1): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 21000 + Math.floor(Math.random() * (9000 - span))
    let free = true
    for (let port = base; port < base + span && free; port++) free = await isFree(port)
    if (free) return base
  }
  throw new Error('no free block of ports in 21000-29999')
}

async function isFree(port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () =>
      server.close(() => resolve(true)),
    )
  })
}

/** The runtime process an agent's data dir says runs a mock service, with its start time (/proc). */
export function runtimeOf(
  dataDir: string,
  mockServiceId: number,
): { pid: number; startTicks: string } | null {
  const state = JSON.parse(readFileSync(join(dataDir, 'agent-state.json'), 'utf8')) as {
    applied: Record<string, { pid: number | null }>
  }
  const pid = state.applied[String(mockServiceId)]?.pid ?? null
  if (pid === null) return null
  try {
    // Field 22 of /proc/<pid>/stat: the start time in clock ticks since boot.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { pid, startTicks: fields[19] ?? '' }
  } catch {
    return null
  }
}

/** The API key a platform started by `startPlatformProcess` takes (Basic auth, or a UI login). */
export const PLATFORM_KEY = { id: 'agent-test-key', secret: 'agent-test-secret-0123456789abcdef' }
const PLATFORM_AUTH = `Basic ${Buffer.from(`${PLATFORM_KEY.id}:${PLATFORM_KEY.secret}`).toString('base64')}`

/** The platform API's envelope. */
export interface PlatformEnvelope<T> {
  result: T
  error: { code: string; message: string } | null
  total?: number
}

/** A platform process's REST API, called with its key. */
export interface PlatformProcessApi {
  readonly base: string
  /** The status and envelope of any call, for tests that assert a refusal. */
  call: <T>(
    method: string,
    path: string,
    json?: unknown,
  ) => Promise<{ status: number; body: PlatformEnvelope<T> }>
  /** The result of a call that must succeed; a failing status throws with its error. */
  api: <T>(method: string, path: string, json?: unknown) => Promise<T>
}

/**
 * The API of the platform at `base` (`http://127.0.0.1:<port>`), with the key of
 * `startPlatformProcess`.
 *
 * @example
 * const { api } = platformProcessApi(base)
 * const user = await api<{ accountId: number }>('GET', '/api/v4/user')
 */
export function platformProcessApi(base: string): PlatformProcessApi {
  const call = async <T>(
    method: string,
    path: string,
    json?: unknown,
  ): Promise<{ status: number; body: PlatformEnvelope<T> }> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: PLATFORM_AUTH,
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    })
    return { status: res.status, body: (await res.json()) as PlatformEnvelope<T> }
  }
  return {
    base,
    call,
    async api<T>(method: string, path: string, json?: unknown): Promise<T> {
      const { status, body } = await call<T>(method, path, json)
      if (status >= 300) {
        throw new Error(`${method} ${path}: ${status} ${JSON.stringify(body.error)}`)
      }
      return body.result
    },
  }
}

/**
 * `understudy platform` on loopback `port` with its own data dir, in a process group of its own
 * (a test kills it as a crash), taking the key of `platformProcessApi`.
 *
 * @example
 * const platform = await startPlatformProcess(block, tempDir('understudy-agent-platform-'), ['--ship-lost-after', '3'])
 */
export async function startPlatformProcess(
  port: number,
  dataDir: string,
  extraArgs: readonly string[] = [],
): Promise<AgentProcess> {
  return await startGroup(
    ['platform', '--port', String(port), '--data-dir', dataDir, ...extraArgs],
    /listening on http:\/\//,
    {
      env: {
        UNDERSTUDY_API_KEY_ID: PLATFORM_KEY.id,
        UNDERSTUDY_API_KEY_SECRET: PLATFORM_KEY.secret,
      },
    },
  )
}

/** A ship of a harbor as the administration API creates it, with the token its agent uses. */
export interface HarborShip {
  id: string
  token: string
}

/**
 * The default workspace of the key's user, and a harbor ('lab') of it with one ship per name.
 *
 * @example
 * const { ws, harbor, ships } = await harborWithShips(platformProcessApi(base), ['lab-1', 'lab-2'])
 */
export async function harborWithShips(
  { api }: PlatformProcessApi,
  shipNames: readonly string[],
): Promise<{ ws: number; harbor: { id: string }; ships: HarborShip[] }> {
  const user = await api<{ accountId: number; defaultProject: { workspaceId: number } }>(
    'GET',
    '/api/v4/user',
  )
  const ws = user.defaultProject.workspaceId
  const harbor = await api<{ id: string }>('POST', '/api/v4/private-locations', {
    name: 'lab',
    accountId: user.accountId,
    workspacesId: [ws],
  })
  const ships: HarborShip[] = []
  for (const name of shipNames) {
    ships.push(await api('POST', `/api/v4/private-locations/${harbor.id}/servers`, { name }))
  }
  return { ws, harbor, ships }
}

/** How an agent is started: its platform, ship and token, ports, data dir and further flags. */
export interface AgentOptions {
  platform: string
  harborId: string
  ship: HarborShip
  /** The first and last port of its runtimes (--port-range). */
  ports: readonly [number, number]
  dataDir: string
  /** The token as `--token` or in UNDERSTUDY_AGENT_TOKEN (the default). */
  tokenVia?: 'flag' | 'env'
  extraArgs?: readonly string[]
}

/**
 * The command line and environment of `understudy agent` for `options`, heartbeating every
 * second on loopback; for a test that starts the same agent again.
 */
export function agentCommand(options: AgentOptions): {
  args: string[]
  env: Record<string, string>
} {
  const viaFlag = options.tokenVia === 'flag'
  return {
    args: [
      'agent',
      '--platform',
      options.platform,
      '--harbor',
      options.harborId,
      '--ship',
      options.ship.id,
      ...(viaFlag ? ['--token', options.ship.token] : []),
      '--advertise-host',
      '127.0.0.1',
      '--port-range',
      `${options.ports[0]}-${options.ports[1]}`,
      '--data-dir',
      options.dataDir,
      '--heartbeat',
      '1',
      ...(options.extraArgs ?? []),
    ],
    env: viaFlag ? {} : { UNDERSTUDY_AGENT_TOKEN: options.ship.token },
  }
}

/**
 * Starts `understudy agent` (agentCommand) and waits until it is ready.
 *
 * @example
 * const agent = await startAgent({ platform: base, harborId: harbor.id, ship, ports: [block + 1, block + 5], dataDir })
 */
export async function startAgent(
  options: AgentOptions,
  ready: RegExp = /^agent ready$/m,
): Promise<AgentProcess> {
  const { args, env } = agentCommand(options)
  return await startGroup(args, ready, { env })
}

/**
 * A harbor of the in-process test platform's workspace with one ship per name, made through the
 * administration API with the platform's key; a refusal fails the test's set-up with its status.
 *
 * @example
 * const { harborId, ships } = await testHarbor(platform, 'lab', ['lab-1'])
 */
export async function testHarbor(
  platform: TestPlatform,
  name: string,
  shipNames: readonly string[],
): Promise<{ harborId: string; ships: HarborShip[] }> {
  const created = async <T>(path: string, json: unknown): Promise<T> => {
    const res = await platform.request(path, {
      method: 'POST',
      headers: { authorization: platform.auth },
      json,
    })
    const body = (await res.json()) as PlatformEnvelope<T>
    if (res.status !== 201) {
      throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(body.error)}`)
    }
    return body.result
  }
  const harbor = await created<{ id: string }>('/api/v4/private-locations', {
    name,
    accountId: platform.accountId,
    workspacesId: [platform.workspaceId],
  })
  const ships: HarborShip[] = []
  for (const shipName of shipNames) {
    ships.push(
      await created<HarborShip>(`/api/v4/private-locations/${harbor.id}/servers`, {
        name: shipName,
      }),
    )
  }
  return { harborId: harbor.id, ships }
}
