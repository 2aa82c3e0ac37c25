import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http2 from 'node:http2'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** What one load run measured (the fields of autocannon's result the bench reads). */
export interface LoadResult {
  requests: number
  requestsPerSecond: number
  p99: number
  errors: number
  non2xx: number
}

export interface H2LoadOptions {
  url: string
  method: string
  path: string
  headers: Record<string, string>
  body?: string | undefined
  /** HTTP/2 sessions (connections). */
  sessions: number
  /** Streams kept in flight on each session. */
  streams: number
  seconds: number
  /**
   * Requests per second over all sessions (h2load's `--rps`, per session); undefined: as fast as
   * the generator goes. Below both servers' maximum, neither is the bottleneck, and Node's HTTP/2
   * core stays out of the garbage-collection mode a saturated server lands in (bench/README.md,
   * "Why the HTTP/2 figures are bimodal").
   */
  rate?: number | undefined
}

/** nghttp2's load generator (Debian's nghttp2-client), where installed. */
const NGHTTP2_H2LOAD = ['/usr/bin/h2load', '/usr/local/bin/h2load'].find((path) => existsSync(path))

/** Whether nghttp2's `h2load` is installed (a fixed rate needs it). */
export const hasH2load = NGHTTP2_H2LOAD !== undefined

/** Which HTTP/2 load generator `h2load` uses here, for the bench's header line. */
export const h2Generator = hasH2load ? 'nghttp2 h2load' : 'node:http2 client'

/**
 * An HTTP/2 load (autocannon speaks HTTP/1.1 only): `sessions` TLS connections, each with
 * `streams` requests in flight, for `seconds`; certificates are not verified. nghttp2's `h2load`
 * when installed: a Node client on one core tops out near 13,000 requests/s, well short of
 * what the servers answer, so they idled between requests and their CPU per request moved with
 * how many requests each wake-up found (15 % from run to run). The Node client otherwise.
 */
export async function h2load(options: H2LoadOptions): Promise<LoadResult> {
  return NGHTTP2_H2LOAD === undefined
    ? await nodeLoad(options)
    : await nghttp2Load(NGHTTP2_H2LOAD, options)
}

async function nghttp2Load(binary: string, options: H2LoadOptions): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-h2load-'))
  try {
    const log = join(dir, 'requests.tsv')
    let body: string | undefined
    if (options.body !== undefined) {
      body = join(dir, 'body')
      writeFileSync(body, options.body)
    }
    const args = h2loadArgs(options, log, body)
    const output = await new Promise<string>((resolve, reject) => {
      execFile(binary, args, { maxBuffer: 1 << 20 }, (err, stdout) =>
        err === null ? resolve(stdout) : reject(err),
      )
    })
    return { ...readH2loadSummary(output), p99: p99OfLog(readFileSync(log, 'utf8')) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * h2load's arguments for `options`, its per-request log at `log`, the body (POST only) read
 * from the file `body`. A `rate` is shared out over the sessions, rounded up.
 *
 * @example
 * h2loadArgs({ ...options, sessions: 10, rate: 15000 }, log) // [..., '--rps', '1500']
 */
export function h2loadArgs(options: H2LoadOptions, log: string, body?: string): string[] {
  const args = [
    new URL(options.path, options.url).href,
    '--clients',
    String(options.sessions),
    '--max-concurrent-streams',
    String(options.streams),
    '--duration',
    String(options.seconds),
    '--threads',
    '1',
    '--log-file',
    log,
  ]
  if (options.rate !== undefined) {
    args.push('--rps', String(Math.ceil(options.rate / options.sessions)))
  }
  for (const [name, value] of Object.entries(options.headers)) {
    args.push('--header', `${name}: ${value}`)
  }
  if (body !== undefined) {
    if (options.method !== 'POST') {
      throw new Error(`h2load sends a body with POST only, not ${options.method}`)
    }
    args.push('--data', body)
  } else if (options.method !== 'GET') {
    args.push('--header', `:method: ${options.method}`)
  }
  return args
}

/**
 * The counts of h2load's summary: requests done (the CPU per request divides by these), their
 * rate, failures and non-2xx answers.
 *
 * @example
 * readH2loadSummary('finished in 4.00s, 33000.00 req/s, ...\nrequests: ...') // { requests: 132000, ... }
 */
export function readH2loadSummary(output: string): Omit<LoadResult, 'p99'> {
  const finished = /finished in ([\d.]+)s, ([\d.]+) req\/s/.exec(output)
  const requests =
    /requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/.exec(
      output,
    )
  const codes = /status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(output)
  if (finished === null || requests === null || codes === null) {
    throw new Error(`h2load printed no summary: ${output.slice(0, 500)}`)
  }
  const n = (match: RegExpExecArray, i: number): number => Number(match[i])
  return {
    requests: n(requests, 3),
    requestsPerSecond: n(finished, 2),
    errors: n(requests, 5) + n(requests, 6) + n(requests, 7),
    non2xx: n(codes, 2) + n(codes, 3) + n(codes, 4),
  }
}

/**
 * The 99th percentile latency, in milliseconds, of an h2load `--log-file` (tab-separated: start
 * in microseconds since the epoch, status, microseconds to the end of the response).
 */
export function p99OfLog(log: string): number {
  const latencies: number[] = []
  for (const line of log.split('\n')) {
    const micros = Number(line.split('\t')[2])
    if (line !== '' && Number.isFinite(micros)) latencies.push(micros / 1000)
  }
  return percentile99(latencies)
}

function percentile99(latencies: number[]): number {
  if (latencies.length === 0) return 0
  latencies.sort((a, b) => a - b)
  return Math.round(
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] as number,
  )
}

async function nodeLoad(options: H2LoadOptions): Promise<LoadResult> {
  if (options.rate !== undefined) {
    throw new Error('a fixed HTTP/2 rate needs nghttp2 h2load (apt-get install nghttp2-client)')
  }
  const body = options.body === undefined ? null : Buffer.from(options.body)
  const requestHeaders: http2.OutgoingHttpHeaders = {
    ...options.headers,
    ':method': options.method,
    ':path': options.path,
  }
  if (body !== null) requestHeaders['content-length'] = body.length
  const latencies: number[] = []
  let errors = 0
  let non2xx = 0
  const deadline = Date.now() + options.seconds * 1000
  const started = Date.now()
  const sessions = await Promise.all(
    Array.from(
      { length: options.sessions },
      async () =>
        await new Promise<http2.ClientHttp2Session>((resolve, reject) => {
          const session = http2.connect(options.url, { rejectUnauthorized: false })
          session.once('connect', () => resolve(session))
          session.once('error', reject)
        }),
    ),
  )
  const one = async (session: http2.ClientHttp2Session): Promise<void> => {
    while (Date.now() < deadline) {
      const t0 = performance.now()
      await new Promise<void>((resolve) => {
        const stream = session.request(requestHeaders)
        stream.on('response', (headers) => {
          const status = Number(headers[':status'])
          if (status < 200 || status > 299) non2xx++
        })
        stream.on('data', () => {})
        stream.on('end', () => {
          latencies.push(performance.now() - t0)
          resolve()
        })
        stream.on('error', () => {
          errors++
          resolve()
        })
        stream.end(body ?? undefined)
      })
    }
  }
  await Promise.all(
    sessions.flatMap((session) =>
      Array.from({ length: options.streams }, async () => await one(session)),
    ),
  )
  const elapsed = (Date.now() - started) / 1000
  for (const session of sessions) session.close()
  return {
    requests: latencies.length,
    requestsPerSecond: latencies.length / elapsed,
    p99: percentile99(latencies),
    errors,
    non2xx,
  }
}
