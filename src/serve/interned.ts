/**
 * One shared copy of each distinct header block of a compiled configuration. A configuration of
 * 100,000 transactions has a handful of distinct blocks (`content-type`, `content-length` of a few
 * sizes): sharing them keeps two arrays and their strings per transaction off the heap. Blocks are
 * read-only once compiled (the writers never change a response's header array), so sharing is safe.
 *
 * @example
 * const blocks = new HeaderBlocks()
 * blocks.of(['content-length', '2']) === blocks.of(['content-length', '2']) // true
 */
export class HeaderBlocks {
  readonly #blocks = new Map<string, string[]>()

  /** The shared block equal to `headers` (the given array itself the first time). */
  of(headers: string[]): string[] {
    if (headers.length === 0) return EMPTY
    // NUL is refused in header values (compile-mock's checkWritable) and names (Node's writer),
    // so the joined text tells valid blocks apart; an invalid one fails the compile anyway.
    const key = headers.join('\u0000')
    const known = this.#blocks.get(key)
    if (known !== undefined) return known
    this.#blocks.set(key, headers)
    return headers
  }
}

const EMPTY: string[] = []
