import { describe, expect, it } from 'vitest'
import { stringForPattern } from '../../../importers/openapi/pattern.js'

// More of the regex syntax schemas use in `pattern`: each built string must be one the pattern
// accepts, and what the generator cannot satisfy is given up, never answered wrongly.
describe('stringForPattern over the regex syntax', () => {
  it.each([
    '^(?<=^)a$', // lookbehind
    '^(?<!x)b$', // negative lookbehind
    '^(?<year>\\d{4})-(?<m>\\d{2})$', // named groups
    '^[a-\\x7a]{3}$', // a class range ending in an escape
    '^\\s\\D\\W\\S$', // the other class escapes
    '\\bword\\b', // word boundaries at the ends
    '^a\\Bb$', // a non-boundary
    '^x\\n\\t\\r$', // control escapes
    '^\\p{L}\\P{L}$', // Unicode properties
    '^\\u{1F600}$', // a code point escape
    '^a{2,}b{1,3}?c*?$', // open and lazy quantifiers
    '^[\\d-]$', // a class escape before a dash
    '^[\\]]$', // an escaped bracket in a class
    '^[a-]$', // a trailing dash in a class
    '^\\.$',
    '^.{3}$',
    '^(?:ab|cd)+$',
    '^[\\w.]+$',
    '^\\/$',
    '^[\\b]$', // backspace inside a class
    '^[\\n]$',
    'abc', // unanchored
  ])('builds a string that %s accepts', (pattern) => {
    const out = stringForPattern(pattern)
    expect(out).toBeTypeOf('string')
    expect(new RegExp(pattern, 'u').test(out ?? '')).toBe(true)
  })

  it.each([
    '^[^\\x00-\\x7f]$', // only characters outside ASCII
    '^[^\\s\\S]$', // an empty class
    '^a\\bb$', // a boundary between two word characters
    '^\\p{Lu}+$', // a property its stand-in character does not have
    '^(a$', // an unbalanced group
    '^\\cJ$', // an escape it does not know
  ])('gives up on %s', (pattern) => {
    expect(stringForPattern(pattern)).toBeUndefined()
  })
})
