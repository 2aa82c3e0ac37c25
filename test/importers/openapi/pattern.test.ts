import { describe, expect, it } from 'vitest'
import { stringForPattern } from '../../../importers/openapi/pattern.js'

describe('stringForPattern', () => {
  // The contract is "a string the pattern accepts", not one particular string: the generator may
  // choose differently tomorrow. Only where the pattern allows a single string is it named.
  it.each([
    '^[A-Z]{2}-\\d{3}$',
    '^[0-9a-f]{8}$',
    '^(?:GET|POST)$',
    '^\\w+@\\w+\\.com$',
    '^[^a-z]+$',
    '^v\\d+(\\.\\d+){0,2}$',
    '^(?=.*x)x+$',
  ])('builds a string that %s accepts', (pattern) => {
    const out = stringForPattern(pattern)
    expect(out).toBeTypeOf('string')
    expect(new RegExp(pattern, 'u').test(out ?? '')).toBe(true)
  })

  it('builds the only string a pattern of escapes allows', () => {
    expect(stringForPattern('^\\u0041\\x42$')).toBe('AB')
  })

  it('gives up, rather than return a wrong string, on what it cannot build', () => {
    expect(stringForPattern('^(a)\\1$')).toBeUndefined() // back-reference
    expect(stringForPattern('^[a-z')).toBeUndefined() // not a regex
    expect(stringForPattern('^(?!abc)abc$')).toBeUndefined() // contradicts itself
  })
})
