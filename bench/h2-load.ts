import http2 from 'node:http2'

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
}

/**
 * An HTTP/2 load generator (autocannon speaks HTTP/1.1 only): `sessions` TLS connections, each
 * with `streams` requests in flight, for `seconds`. Certificates are not verified.
 */
export async function h2load(options: H2LoadOptions): Promise<LoadResult> {
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
  latencies.sort((a, b) => a - b)
  const p99 =
    latencies.length === 0
      ? 0
      : Math.round(
          latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] as number,
        )
  return {
    requests: latencies.length,
    requestsPerSecond: latencies.length / elapsed,
    p99,
    errors,
    non2xx,
  }
}
