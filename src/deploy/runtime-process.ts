import { spawn, type ChildProcess } from 'node:child_process'
import { createError, type UnderstudyError } from '../errors/index.js'
import type { RuntimeCommand } from './runtime-command.js'

/** Where a started runtime answers, read from its ready lines. */
export interface RuntimeEndpoints {
  http: string
  https: string | null
  admin: string
}

/** How a process ended. */
interface ProcessExit {
  code: number | null
  signal: NodeJS.Signals | null
}

/** Children still running, killed if the platform process exits without stopping them. */
const live = new Set<ChildProcess>()
let exitHookInstalled = false

function track(child: ChildProcess): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true
    process.once('exit', () => {
      for (const c of live) c.kill('SIGKILL')
    })
  }
  live.add(child)
  child.once('exit', () => live.delete(child))
}

/**
 * One `understudy run` child process: spawned with its standard output read for the ready lines
 * (`listening on ...`, `https (h2, http/1.1) on ...`, `admin on ...`) and its standard error split
 * into lines for the platform's log; never inheriting the platform's own stdout.
 *
 * @example
 * const child = RuntimeProcess.spawn(defaultRuntimeCommand(), ['run', '--mock', file, '--port', '0', '--admin-port', '0'], (line) => {})
 * const endpoints = await child.ready(15_000)
 * await child.stop(15_000)
 */
export class RuntimeProcess {
  readonly exited: Promise<ProcessExit>
  readonly startedAt = Date.now()
  readonly #child: ChildProcess
  #stdout = ''
  #lastError: string | null = null
  #exit: ProcessExit | null = null

  private constructor(child: ChildProcess, onLine: (line: string) => void) {
    this.#child = child
    track(child)
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.#exit = { code, signal }
        resolve(this.#exit)
      })
    })
    // A spawn failure (no such executable) is reported as an exit.
    child.once('error', (err) => {
      this.#lastError = err.message
      if (this.#exit === null && child.pid === undefined) {
        this.#exit = { code: null, signal: null }
        child.emit('exit', null, null)
      }
    })
    child.stdout?.setEncoding('utf8')
    child.stdout?.on('data', (chunk: string) => {
      // Only the ready lines matter; later output is dropped.
      if (this.#stdout.length < 64 * 1024) this.#stdout += chunk
    })
    let partial = ''
    child.stderr?.setEncoding('utf8')
    child.stderr?.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n')
      partial = lines.pop() ?? ''
      for (const line of lines) this.#onStderr(line, onLine)
    })
    child.stderr?.on('end', () => {
      if (partial !== '') this.#onStderr(partial, onLine)
      partial = ''
    })
  }

  /**
   * Starts the process with `env` added to the platform's environment: secrets (the admin token)
   * go there, never into the arguments that `ps` shows every user of the machine. An admin token
   * in the platform's own environment never reaches a runtime: each gets its own.
   */
  static spawn(
    command: RuntimeCommand,
    args: readonly string[],
    onLine: (line: string) => void,
    env: Record<string, string> = {},
  ): RuntimeProcess {
    const { UNDERSTUDY_ADMIN_TOKEN: _token, ...inherited } = process.env
    const child = spawn(command.executable, [...command.args, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...inherited, ...env },
    })
    return new RuntimeProcess(child, onLine)
  }

  get pid(): number | null {
    return this.#child.pid ?? null
  }

  /** True until the process has exited. */
  get alive(): boolean {
    return this.#exit === null
  }

  /**
   * Resolves with the endpoints once the ready lines are out; rejects with ERR_DEPLOY_FAILED
   * naming the reason (the runtime's one-line error, such as a port in use) when it exits first
   * or takes longer than `timeoutMs`.
   */
  async ready(timeoutMs: number): Promise<RuntimeEndpoints> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const endpoints = endpointsOf(this.#stdout)
      if (endpoints !== null) return endpoints
      if (this.#exit !== null) {
        // Let the last lines of standard error arrive.
        await new Promise((resolve) => setTimeout(resolve, 20))
        throw this.failure()
      }
      if (Date.now() > deadline) {
        throw createError('ERR_DEPLOY_FAILED', [`the runtime did not start within ${timeoutMs} ms`])
      }
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }

  /** Why the process ended, as an error to report. */
  failure(): UnderstudyError {
    const exit = this.#exit
    const how =
      exit === null
        ? 'is running'
        : exit.signal !== null
          ? `was killed by ${exit.signal}`
          : `exited with code ${exit.code ?? '?'}`
    return createError('ERR_DEPLOY_FAILED', [
      this.#lastError === null ? `the runtime ${how}` : `${this.#lastError} (the runtime ${how})`,
    ])
  }

  /** SIGTERM (the runtime drains its requests in flight), then SIGKILL after `graceMs`; resolves on exit. */
  async stop(graceMs: number): Promise<ProcessExit> {
    if (this.#exit !== null) return this.#exit
    this.#child.kill('SIGTERM')
    const killer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs)
    const exit = await this.exited
    clearTimeout(killer)
    return exit
  }

  /** Ends the process at once; resolves on exit. */
  async kill(): Promise<ProcessExit> {
    if (this.#exit === null) this.#child.kill('SIGKILL')
    return await this.exited
  }

  #onStderr(line: string, onLine: (line: string) => void): void {
    if (line === '') return
    // The command line's one-line reason: `understudy run: Cannot listen on ...: the port is in use`.
    const reason = /^understudy run: (.*)$/.exec(line)
    if (reason !== null) this.#lastError = reason[1] ?? line
    onLine(line)
  }
}

/** The endpoints in the ready lines, once the admin line (written last, in the same write) is there. */
function endpointsOf(stdout: string): RuntimeEndpoints | null {
  const admin = /^admin on (http:\/\/\S+)$/m.exec(stdout)?.[1]
  const http = /^listening on (http:\/\/\S+)$/m.exec(stdout)?.[1]
  if (admin === undefined || http === undefined) return null
  return {
    http,
    https: /^https \(h2, http\/1\.1\) on (https:\/\/\S+)$/m.exec(stdout)?.[1] ?? null,
    admin,
  }
}
