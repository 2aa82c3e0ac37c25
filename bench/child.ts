import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'

/** A server started in a child process for a benchmark. */
export interface ChildServer {
  url: string
  pid: number
  /** Everything the server printed up to its ready line(s). */
  banner: string
  /** Milliseconds from spawn to the `listening on` line. */
  startupMs: number
  /** Resident memory now, in bytes (Linux /proc), or null where unavailable. */
  rss: () => number | null
  /** Peak resident memory so far (VmHWM), in bytes (Linux /proc), or null where unavailable. */
  peakRss: () => number | null
  /** CPU time used so far (user + system), in microseconds (Linux /proc), or null. */
  cpuMicros: () => number | null
  stop: () => Promise<void>
}

/** taskset pins the server to one core and the load generator to the other, where available. */
export const canPin = existsSync('/usr/bin/taskset') || existsSync('/bin/taskset')

/**
 * Pins this process, every thread of it, to `cpu` (where taskset is available): the bench process
 * is the load generator. `taskset -p` alone pins only the main thread: V8's garbage-collection
 * and compiler threads, started before, kept running on the server's core, taking it from the
 * server and cooling its caches in the middle of a measurement.
 *
 * @example
 * pinThisProcess(0) // the servers run on CPU 1
 */
export function pinThisProcess(cpu: number): void {
  if (!canPin) return
  execFileSync('taskset', ['-a', '-cp', String(cpu), String(process.pid)], { stdio: 'ignore' })
}

/**
 * Spawns `command args`, pinned to `cpu` when possible (null: not pinned), and waits for its
 * `listening on` line. The child is killed if it does not come up within 30 s.
 */
export async function startChild(
  command: string,
  args: string[],
  env: Record<string, string> = {},
  cpu: number | null = 1,
): Promise<ChildServer> {
  const [file, argv] =
    canPin && cpu !== null ? ['taskset', ['-c', String(cpu), command, ...args]] : [command, args]
  const spawned = performance.now()
  const child: ChildProcess = spawn(file, argv, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  })
  let buffered = ''
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${command} did not start within 30 s`))
    }, 30_000)
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8')
      const match = /listening on (https?:\/\/[^\s]+)/.exec(buffered)
      if (match?.[1] !== undefined) {
        clearTimeout(timer)
        resolve(match[1])
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${command} exited with ${code ?? 'a signal'} before listening`))
    })
  })
  const startupMs = performance.now() - spawned
  const pid = child.pid ?? 0
  return {
    url,
    pid,
    banner: buffered,
    startupMs,
    rss: () => statusBytes(pid, 'VmRSS'),
    peakRss: () => statusBytes(pid, 'VmHWM'),
    cpuMicros: () => {
      try {
        // Fields 14 and 15 of /proc/<pid>/stat (utime, stime) are in clock ticks, 100 per second
        // on Linux (sysconf(_SC_CLK_TCK)); the command name (field 2) may hold spaces.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        return (Number(fields[11]) + Number(fields[12])) * 10_000
      } catch {
        return null
      }
    },
    stop: async () => {
      if (child.exitCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
    },
  }
}

/** A memory figure of /proc/<pid>/status, in bytes. */
function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]
    return kb === undefined ? null : Number(kb) * 1024
  } catch {
    return null
  }
}
