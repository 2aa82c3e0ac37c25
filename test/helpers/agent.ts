import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'
import { cliPath } from './cli.js'
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
