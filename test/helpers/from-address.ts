import http from 'node:http'

/** An HTTP answer read whole. */
export interface AddressedResponse {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

/**
 * One HTTP request sent from a chosen loopback address (`127.0.0.2`, `127.0.0.3`...: on Linux the
 * whole 127.0.0.0/8 is local), so that a test can play several clients the server tells apart by
 * their peer address, as a throttle does. A fresh connection each time, never a pooled one.
 *
 * @example
 * const res = await requestFrom('127.0.0.2', `${platform.url}/api/v4/user`, { headers: { authorization } })
 */
export async function requestFrom(
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<AddressedResponse> {
  const target = new URL(url)
  return await new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: init.method ?? 'GET',
        headers: {
          ...init.headers,
          ...(init.body === undefined ? {} : { 'content-length': Buffer.byteLength(init.body) }),
        },
        localAddress,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(init.body)
  })
}
