import { describe, expect, it } from 'vitest'
import { RepeatedStrings, TRACKED_PLACES } from '../../../src/inspect/repeated-strings.js'

/** Fresh copies of strings, as the HTTP parser makes them for every request. */
function fresh(texts: readonly string[]): string[] {
  return texts.map((t) => ` ${t}`.slice(1))
}

describe('RepeatedStrings#codeRun', () => {
  it('gives each string the code codeOf gives it at its place, and counts the characters to copy', () => {
    const run = new RepeatedStrings()
    const one = new RepeatedStrings()
    const requests = [
      ['host', 'a:1', 'x-id', 'r-1'],
      ['host', 'a:1', 'x-id', 'r-2'],
      ['host', 'a:1', 'x-id', 'r-3'],
      ['host', 'b:2', 'x-id', 'r-3'],
      ['host', 'b:2', 'x-id', 'r-3'],
    ]
    const codes = new Int32Array(4)
    for (const request of requests) {
      const copied = run.codeRun(fresh(request), request.length, 2, codes)
      const expected = request.map((text, i) => one.codeOf(i + 2, ` ${text}`.slice(1)))
      expect([...codes]).toEqual(expected)
      const copiedText = request.filter((_t, i) => (expected[i] as number) < 0).join('')
      expect(copied).toBe(copiedText.length)
    }
    // The last request: every string came twice in a row at its place.
    expect([...codes].every((c) => c >= 0)).toBe(true)
    expect(run.text(codes[3] as number)).toBe('r-3')
  })

  it('leaves the codes past `count` alone', () => {
    const strings = new RepeatedStrings()
    const codes = new Int32Array([7, 7, 7])
    expect(strings.codeRun(['a', 'bb', 'ccc'], 1, 2, codes)).toBe(1)
    expect([...codes]).toEqual([-1, 7, 7])
  })

  it('refuses places beyond those it follows', () => {
    const strings = new RepeatedStrings()
    const texts = Array.from({ length: TRACKED_PLACES }, (_v, i) => `h${i}`)
    const codes = new Int32Array(TRACKED_PLACES)
    expect(strings.codeRun(texts, TRACKED_PLACES - 2, 2, codes)).toBeGreaterThan(0)
    expect(() => strings.codeRun(texts, TRACKED_PLACES - 1, 2, codes)).toThrow(RangeError)
  })
})
