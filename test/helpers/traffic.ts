import http from 'node:http'

/** A request to replay: a path (with query) and the fetch options. */
export type ReplayRequest = [path: string, init: RequestInit]

/**
 * Sends `requests` in order to `base` and answers each as `status content-type body`, so that
 * two servers (say, a live system and its recording) can be compared answer for answer.
 *
 * @example
 * expect(await replay(served.url, requests)).toEqual(await replay(live.url, requests))
 */
export async function replay(base: string, requests: readonly ReplayRequest[]): Promise<string[]> {
  const out: string[] = []
  for (const [path, init] of requests) {
    const res = await fetch(base + path, init)
    out.push(`${res.status} ${res.headers.get('content-type') ?? ''} ${await res.text()}`)
  }
  return out
}

/**
 * The scenario race that `burst` runs (YAML items of a `transactions:` list): the first
 * `POST /ticket` moves scenario `ticket` from Started to Claimed and answers 201 `won`; every
 * other one falls to the lower-priority 409 `taken`.
 */
export const ticketRace = `  - name: claim
    dsl:
      requestDsl: {method: POST, path: /ticket}
      scenario: {name: ticket, requiredState: Started, newState: Claimed}
      responseDsl: {status: 201, text: won}
  - name: too late
    dsl:
      priority: 20
      requestDsl: {method: POST, path: /ticket}
      responseDsl: {status: 409, text: taken}
`

/**
 * Sends `count` POSTs to `url + path` at once, each on its own socket (no keep-alive, so none
 * waits for another), and counts the answers by status: the race test of scenario transitions.
 *
 * @example
 * const counts = await burst(app.url, 1000)
 * expect(counts.get(201)).toBe(1)
 */
export async function burst(
  url: string,
  count: number,
  path = '/ticket',
): Promise<Map<number, number>> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: count })
  const statuses = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<number>((resolve, reject) => {
          const req = http.request(`${url}${path}`, { method: 'POST', agent }, (res) => {
            res.resume()
            res.on('end', () => resolve(res.statusCode ?? 0))
          })
          req.on('error', reject)
          req.end()
        }),
    ),
  )
  agent.destroy()
  const counts = new Map<number, number>()
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1)
  return counts
}
