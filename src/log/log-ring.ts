/**
 * Keeps the last `capacity` log lines in memory so that a runtime can hand out a log snapshot
 * (`GET /log` on the admin listener) without files. pino writes each line through `write`.
 *
 * @example
 * const ring = new LogRing(1000)
 * ring.write('{"msg":"listening"}\n')
 * ring.snapshot(10) // ['{"msg":"listening"}']
 */
export class LogRing {
  readonly #lines: string[]
  #next = 0
  #size = 0

  constructor(readonly capacity: number) {
    this.#lines = new Array<string>(capacity)
  }

  /** Appends one line (pino passes it with its trailing newline, which is dropped). */
  write(chunk: string): boolean {
    this.#lines[this.#next] = chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk
    this.#next = (this.#next + 1) % this.capacity
    if (this.#size < this.capacity) this.#size++
    return true
  }

  /** The newest `limit` lines, oldest first. */
  snapshot(limit = this.capacity): string[] {
    const count = Math.max(0, Math.min(limit, this.#size))
    const out = new Array<string>(count)
    for (let i = 0; i < count; i++) {
      const index = (this.#next - count + i + this.capacity) % this.capacity
      out[i] = this.#lines[index] ?? ''
    }
    return out
  }
}
