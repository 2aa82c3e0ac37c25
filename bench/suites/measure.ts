import autocannon from 'autocannon'
import type { ChildServer } from '../child.js'
import { h2load, type LoadResult } from '../h2-load.js'

/** The request a comparison sends, and how (autocannon for HTTP/1.1, bench/h2-load.ts for h2). */
export interface LoadRequest {
  method: 'GET' | 'POST'
  path: string
  headers?: Record<string, string>
  body?: string
  protocol?: 'http1' | 'h2'
}

/** One server of a comparison: how to start it (in a child process) and what to call it. */
export interface Contender {
  name: string
  start: () => Promise<ChildServer>
}

export interface Measured {
  requestsPerSecond: number
  p99: number
  errors: number
  non2xx: number
  /** Server CPU time per request, microseconds (user + system). */
  cpuMicrosPerRequest: number | null
  /** Resident memory after start-up (before any request) and after the load, bytes. */
  rssIdle: number | null
  rss: number | null
  startupMs: number
}

export interface LoadSettings {
  duration: number
  connections: number
  /** HTTP/2 only: requests per second over all sessions; undefined: as fast as the generator goes. */
  h2Rate?: number | undefined
}

export async function load(
  server: ChildServer,
  request: LoadRequest,
  seconds: number,
  settings: LoadSettings,
): Promise<Omit<Measured, 'rssIdle' | 'rss' | 'startupMs'>> {
  const cpuBefore = server.cpuMicros()
  let result: LoadResult
  if (request.protocol === 'h2') {
    // 50 streams in flight, as autocannon's 50 connections: 10 sessions of 5.
    const sessions = Math.max(1, Math.round(settings.connections / 5))
    result = await h2load({
      url: server.url,
      method: request.method,
      path: request.path,
      headers: request.headers ?? {},
      body: request.body,
      sessions,
      streams: 5,
      seconds,
      rate: settings.h2Rate,
    })
  } else {
    const out = await autocannon({
      url: server.url + request.path,
      method: request.method,
      headers: request.headers ?? {},
      ...(request.body === undefined ? {} : { body: request.body }),
      connections: settings.connections,
      pipelining: 1,
      duration: seconds,
    })
    result = {
      requests: out.requests.total,
      requestsPerSecond: out.requests.average,
      p99: out.latency.p99,
      errors: out.errors + out.timeouts,
      non2xx: out.non2xx,
    }
  }
  const cpuAfter = server.cpuMicros()
  const cpu =
    cpuBefore === null || cpuAfter === null || result.requests === 0
      ? null
      : (cpuAfter - cpuBefore) / result.requests
  return {
    requestsPerSecond: result.requestsPerSecond,
    p99: result.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    cpuMicrosPerRequest: cpu,
  }
}

/** Starts a server, warms it up (JIT, connections), measures once, stops it. */
export async function measureOnce(
  contender: Contender,
  request: LoadRequest,
  settings: LoadSettings,
): Promise<Measured> {
  const server = await contender.start()
  try {
    const rssIdle = server.rss()
    await load(server, request, Math.min(3, settings.duration), settings)
    const measured = await load(server, request, settings.duration, settings)
    return { ...measured, rssIdle, rss: server.rss(), startupMs: server.startupMs }
  } finally {
    await server.stop()
  }
}

/**
 * Measures every contender once per round, alternating them so that drift of the machine affects
 * them alike; returns each contender's runs, in the contenders' order.
 */
export async function measureRounds(
  contenders: readonly Contender[],
  request: LoadRequest,
  settings: LoadSettings,
  rounds: number,
): Promise<Measured[][]> {
  const runs: Measured[][] = contenders.map(() => [])
  for (let round = 0; round < rounds; round++) {
    for (const [i, contender] of contenders.entries()) {
      ;(runs[i] as Measured[]).push(await measureOnce(contender, request, settings))
    }
  }
  return runs
}

/**
 * The median of per-round CPU ratios (`ours[i] / reference[i]`): each round runs the contenders
 * one after the other, so a ratio within a round cancels the machine's slow drift (on a shared
 * VM its speed moves by more than the 5 % a goal asks), which a ratio of two medians does not.
 *
 * @example
 * pairedCpuRatio(ourRuns, bareRuns) // 1.043
 */
export function pairedCpuRatio(ours: readonly Measured[], reference: readonly Measured[]): number {
  return median(roundCpuRatios(ours, reference))
}

/** `ours[i] / reference[i]` of CPU per request, round by round. */
export function roundCpuRatios(
  ours: readonly Measured[],
  reference: readonly Measured[],
): number[] {
  return ours.map(
    (run, i) =>
      (run.cpuMicrosPerRequest ?? Number.NaN) / (reference[i]?.cpuMicrosPerRequest ?? Number.NaN),
  )
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/** The medians of a contender's runs (CPU per request, req/s, p99, RSS) and its error counts. */
export function summarize(runs: Measured[]): {
  rps: number
  cpu: number
  p99: number
  rssIdleMiB: number
  rssMiB: number
  startupMs: number
  errors: number
  non2xx: number
} {
  const mib = (bytes: number | null): number => (bytes ?? 0) / 1024 / 1024
  return {
    rps: median(runs.map((r) => r.requestsPerSecond)),
    cpu: median(runs.map((r) => r.cpuMicrosPerRequest ?? Number.NaN)),
    p99: median(runs.map((r) => r.p99)),
    rssIdleMiB: Number(median(runs.map((r) => mib(r.rssIdle))).toFixed(1)),
    rssMiB: Number(Math.max(...runs.map((r) => mib(r.rss))).toFixed(1)),
    startupMs: Math.round(median(runs.map((r) => r.startupMs))),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
  }
}
