/**
 * Strings the inspection journal keeps once, for records to refer to by number: header names and
 * values, methods and paths that arrive with every request of a client (`host`, `content-type:
 * application/json`, the same user agent, the same URL under load).
 *
 * Why: copying a request's strings into the journal's buffer a character at a time was the
 * journal's whole cost, about 5,000 instructions for an 85-character POST, more than the bare
 * server's JSON answer. Comparing a string with the one at the same place in the previous request
 * is one native comparison, and a string that repeats is then written as a four-byte reference.
 *
 * A string is kept only when it arrives twice in a row at the same place, so that one-off values
 * (request ids, timestamps, signatures) never take a place. The table holds at most MAX_ENTRIES
 * strings of at most MAX_ENTRY_LENGTH characters (256 KiB of characters in all, on top of the
 * journal's byte bound); once full it takes no more, and strings are written out as before.
 * Entries are never removed while records may refer to them: only `clear` empties the table.
 *
 * @example
 * const strings = new RepeatedStrings()
 * strings.codeOf(2, 'host') // -1: first seen, copied
 * strings.codeOf(2, 'host') // 0: seen twice in a row, kept as entry 0
 * strings.text(0) // 'host'
 */
export class RepeatedStrings {
  private entries: string[] = []
  private numbers = new Map<string, number>()
  // Per place: the entry given out there last (with its number), and the string copied out there
  // last. Strings only, '' when none: a comparison of two strings compiles to a length check and a
  // compare of characters, where a mix with null calls the generic equality.
  private readonly lastEntry: string[] = new Array<string>(TRACKED_PLACES).fill('')
  private readonly lastCode = new Int32Array(TRACKED_PLACES).fill(-1)
  private readonly lastCopied: string[] = new Array<string>(TRACKED_PLACES).fill('')

  /**
   * The entry number of `text`, seen at `place` (the index of the string in its request), or -1
   * when it is to be copied out.
   */
  // HOT PATH: once per string of a recorded request.
  codeOf(place: number, text: string): number {
    if (place >= TRACKED_PLACES || text.length > MAX_ENTRY_LENGTH) return -1
    if (text === this.lastEntry[place]) return this.lastCode[place] as number
    let code = this.numbers.get(text)
    if (code === undefined) {
      if (text !== this.lastCopied[place] || this.entries.length === MAX_ENTRIES) {
        this.lastCopied[place] = text
        return -1
      }
      code = this.entries.length
      this.entries.push(text)
      this.numbers.set(text, code)
      this.lastCopied[place] = ''
    }
    this.lastEntry[place] = text
    this.lastCode[place] = code
    return code
  }

  /**
   * `codeOf` for `count` strings of `texts`, seen at places `firstPlace`, `firstPlace + 1`...: their
   * codes go to `codes` from index 0. Returns how many characters the strings to copy out have.
   * One loop with the tables at hand: a string equal to the last one at its place (every header of
   * a client's requests but the changing ones) costs one comparison.
   */
  // HOT PATH: once per recorded request, for its header strings.
  codeRun(texts: readonly string[], count: number, firstPlace: number, codes: Int32Array): number {
    if (firstPlace + count > TRACKED_PLACES) {
      throw new RangeError(
        `places ${firstPlace}+${count} are beyond the ${TRACKED_PLACES} followed`,
      )
    }
    const lastEntry = this.lastEntry
    const lastCode = this.lastCode
    let copied = 0
    for (let i = 0; i < count; i++) {
      const text = texts[i] as string
      const place = firstPlace + i
      const code =
        text === lastEntry[place] ? (lastCode[place] as number) : this.codeOf(place, text)
      codes[i] = code
      if (code < 0) copied += text.length
    }
    return copied
  }

  /** The string of entry `code`. */
  text(code: number): string {
    const text = this.entries[code]
    if (text === undefined) throw new RangeError(`no repeated string number ${code}`)
    return text
  }

  /** Strings kept now. */
  get size(): number {
    return this.entries.length
  }

  /** Forgets every entry: only once no record refers to one. */
  clear(): void {
    this.entries = []
    this.numbers = new Map()
    this.lastEntry.fill('')
    this.lastCode.fill(-1)
    this.lastCopied.fill('')
  }
}

/** Places followed in a request: the method, the URL and the first 62 header strings. */
export const TRACKED_PLACES = 64
/** Longest string kept: a long value (a cookie, a token) costs a copy, as before. */
export const MAX_ENTRY_LENGTH = 256
/** Strings kept at most. */
export const MAX_ENTRIES = 1024
