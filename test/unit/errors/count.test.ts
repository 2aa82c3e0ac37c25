import { describe, expect, it } from 'vitest'
import { formatCount } from '../../../src/errors/index.js'

describe('formatCount', () => {
  it("writes integers as toLocaleString('en-US') does", () => {
    const samples = [0, 7, 999, 1_000, 10_000, 65_536, 999_999, 1_000_000, 10_485_760]
    for (let n = 1; n < Number.MAX_SAFE_INTEGER / 7; n = n * 7 + 3) samples.push(n, -n)
    samples.push(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER)
    for (const n of samples) expect(formatCount(n), String(n)).toBe(n.toLocaleString('en-US'))
  })

  it('writes what is not a safe integer as String does', () => {
    expect(formatCount(1.5)).toBe('1.5')
    expect(formatCount(Infinity)).toBe('Infinity')
    expect(formatCount(2 ** 60)).toBe(String(2 ** 60))
  })
})
