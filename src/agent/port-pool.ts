import { createServer } from 'node:net'

/**
 * Ports of `--port-range A-B` for the mock services of this agent: the first one no other mock
 * service here holds and that is free on the interface now. Without a range, 0 (the system picks).
 *
 * @example
 * const pool = new PortPool([47000, 47009], '127.0.0.1')
 * await pool.take(new Set([47000])) // 47001, when free
 */
export class PortPool {
  readonly #range: readonly [number, number] | null
  readonly #host: string

  constructor(range: readonly [number, number] | null, host: string) {
    this.#range = range
    this.#host = host
  }

  /** A free port not in `held`; throws when the range has none left. */
  async take(held: ReadonlySet<number>): Promise<number> {
    if (this.#range === null) return 0
    const [from, to] = this.#range
    for (let port = from; port <= to; port++) {
      if (!held.has(port) && (await isFree(port, this.#host))) return port
    }
    throw new Error(`no free port left in --port-range ${from}-${to}`)
  }
}

async function isFree(port: number, host: string): Promise<boolean> {
  return await new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen({ port, host, exclusive: true }, () => {
      server.close(() => resolve(true))
    })
  })
}
