import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { onTestFinished } from 'vitest'
import { onTestStore } from './test-store.js'
import { waitFor as waitForCondition } from './wait.js'

/** The built command line (`npm test` builds before testing). */
export const cliPath = resolve(import.meta.dirname, '../../dist/src/cli/main.js')

if (!existsSync(cliPath)) {
  throw new Error(`${cliPath} is missing: run "npm run build" first (npm test does)`)
}

/** A finished command. */
interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Runs `understudy <args>` to completion (killed after `timeoutMs`); `bin` as in startCli. */
export async function runCli(
  args: string[],
  options: { cwd?: string; timeoutMs?: number; env?: Record<string, string>; bin?: string } = {},
): Promise<CliResult> {
  const child = spawn(
    process.execPath,
    [options.bin ?? cliPath, ...(await onTestStore(args, options))],
    {
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env },
    },
  )
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString()
  })
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString()
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000)
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('exit', (c, s) => resolve([c, s])),
  )
  clearTimeout(timer)
  return { code, signal, stdout, stderr }
}

/** A server started through the command line. */
export interface CliServer {
  /** The URL of the `listening on` line. */
  url: string
  child: ChildProcess
  /** Everything written to stdout and stderr so far. */
  stdout: () => string
  stderr: () => string
  /** Waits until stdout or stderr contains `text` (or times out). */
  waitFor: (stream: 'stdout' | 'stderr', text: string | RegExp, timeoutMs?: number) => Promise<void>
  /** Sends SIGTERM and waits for the exit. */
  stop: (signal?: NodeJS.Signals) => Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/**
 * Starts `understudy <args>` (a server), waits for its `listening on http://...` line, and kills
 * it when the test finishes if it is still running. `bin` runs another copy of the command (an
 * installed package) instead of this repository's build.
 */
export async function startCli(
  args: string[],
  options: { cwd?: string; timeoutMs?: number; env?: Record<string, string>; bin?: string } = {},
): Promise<CliServer> {
  const child = spawn(
    process.execPath,
    [options.bin ?? cliPath, ...(await onTestStore(args, options))],
    {
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env },
    },
  )
  let stdout = ''
  let stderr = ''
  const waiters: Array<() => void> = []
  const notify = (): void => {
    for (const w of waiters.splice(0)) w()
  }
  child.stdout?.on('data', (c: Buffer) => {
    stdout += c.toString()
    notify()
  })
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString()
    notify()
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      notify()
      resolve({ code, signal })
    }),
  )
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })

  const waitFor = async (
    stream: 'stdout' | 'stderr',
    text: string | RegExp,
    timeoutMs = options.timeoutMs ?? 15_000,
  ): Promise<void> => {
    const seen = (): boolean => {
      const content = stream === 'stdout' ? stdout : stderr
      return typeof text === 'string' ? content.includes(text) : text.test(content)
    }
    try {
      await waitForCondition(
        async () => {
          if (seen()) return true
          if (child.exitCode !== null || child.signalCode !== null) {
            throw new Error(`exited before printing ${String(text)}`)
          }
          // woken by the next output or exit, else re-checked after 100 ms
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 100)
            waiters.push(() => {
              clearTimeout(timer)
              resolve()
            })
          })
          return seen()
        },
        String(text),
        { timeoutMs, intervalMs: 0 },
      )
    } catch (err) {
      throw new Error(`${(err as Error).message}\nstdout: ${stdout}\nstderr: ${stderr}`)
    }
  }
  await waitFor('stdout', /listening on http:\/\/\S+/)
  const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1] as string
  return {
    url,
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}
