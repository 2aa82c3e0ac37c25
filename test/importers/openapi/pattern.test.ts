import { describe, expect, it } from 'vitest'
import { stringForPattern } from '../../../importers/openapi/pattern.js'

describe('stringForPattern', () => {
  it.each([
    ['^[A-Z]{2}-\\d{3}$', 'AA-000'],
    ['^[0-9a-f]{8}$', 'aaaaaaaa'],
    ['^(?:GET|POST)$', 'GET'],
    ['^\\w+@\\w+\\.com$', 'a@a.com'],
    ['^[^a-z]+$', 'A'],
    ['^v\\d+(\\.\\d+){0,2}$', 'v0.0'],
    ['^(?=.*x)x+$', 'x'],
    ['^\\u0041\\x42$', 'AB'],
  ])('builds a string that %s accepts', (pattern, expected) => {
    const out = stringForPattern(pattern)
    expect(out).toBe(expected)
    expect(new RegExp(pattern, 'u').test(out ?? '')).toBe(true)
  })

  it('gives up, rather than return a wrong string, on what it cannot build', () => {
    expect(stringForPattern('^(a)\\1$')).toBeUndefined() // back-reference
    expect(stringForPattern('^[a-z')).toBeUndefined() // not a regex
    expect(stringForPattern('^(?!abc)abc$')).toBeUndefined() // contradicts itself
  })
})
