import { describe, expect, it } from 'vitest'
import { compileUserRegex, RegexRejection } from '../../../src/dsl/index.js'

/*
 * The regex policy (src/dsl/regex.ts): whole-value matches; a leading Java-style `(?i)` becomes a
 * flag; patterns V8's linear engine cannot run (lookaround, back-reference, counted repetition
 * above 16) that also nest quantifiers are refused; the rest compile, and accepted pathological
 * patterns fall back to the linear engine instead of stalling.
 */

const compiled = (source: string, whole = true): RegExp => {
  const re = compileUserRegex(source, whole)
  if (re instanceof RegexRejection) throw new Error(`refused ${source}: ${re.reason}`)
  return re
}

describe('compileUserRegex', () => {
  it('anchors a whole-value pattern at both ends', () => {
    const re = compiled('/pets/[0-9]+')
    expect(re.test('/pets/12')).toBe(true)
    expect(re.test('/pets/12/toys')).toBe(false)
    expect(re.test('/api/pets/12')).toBe(false)
  })

  it('anchors every alternative of a whole-value pattern', () => {
    const re = compiled('a|b')
    expect(re.test('a')).toBe(true)
    expect(re.test('xb')).toBe(false)
    expect(re.test('ax')).toBe(false)
  })

  it('leaves a pattern unanchored when not asked for a whole-value match', () => {
    expect(compiled('b', false).test('abc')).toBe(true)
  })

  it.each([
    ['(?i)abc', 'ABC', true],
    ['(?s)a.c', 'a\nc', true],
    ['a.c', 'a\nc', false],
    ['(?is)A.C', 'a\nc', true],
    ['(?ii)abc', 'ABC', true],
  ])('reads the leading inline flags of %s', (source, value, holds) => {
    expect(compiled(source).test(value)).toBe(holds)
  })

  it('accepts and ignores (?m): a whole-value match has one start and one end', () => {
    const re = compiled('(?m)abc')
    expect(re.test('abc')).toBe(true)
    expect(re.test('x\nabc')).toBe(false)
    expect(re.test('abc\ny')).toBe(false)
    expect(compiled('(?m)a$\\n^b').test('a\nb')).toBe(false)
  })

  it('reports an invalid pattern as invalid, with the engine message', () => {
    const re = compileUserRegex('/a(', true)
    expect(re).toBeInstanceOf(RegexRejection)
    expect(re).toMatchObject({
      kind: 'invalid',
      reason: expect.stringContaining('Unterminated group'),
    })
    expect(compileUserRegex('[', true)).toMatchObject({ kind: 'invalid' })
    expect(compileUserRegex('*a', true)).toMatchObject({ kind: 'invalid' })
  })

  it.each([
    ['a back-reference', '(a+)+\\1'],
    ['a lookahead', '(?=a)(a+)+'],
    ['a negative lookahead', '(?!b)(a*)*c'],
    ['a lookbehind', '(?<=x)(a+)+'],
    ['a counted repetition above 16', '(a{1,20})+'],
    ['a bounded repetition inside a quantifier', '(a{1,10})+'],
  ])('refuses nested quantifiers with %s as unsafe', (_label, source) => {
    const re = compileUserRegex(source, true)
    expect(re).toBeInstanceOf(RegexRejection)
    expect(re).toMatchObject({
      kind: 'unsafe',
      reason: expect.stringContaining('nests quantifiers'),
    })
  })

  it.each([
    ['a lookahead', '(?=.*\\d)\\w+'],
    ['a negative lookahead', '(?!admin)[a-z]+'],
    ['a lookbehind (fixed: safe-regex2 cannot parse lookbehinds)', '(?<=x)a+'],
    ['a negative lookbehind (fixed)', '[a-z]+(?<!\\.tmp)'],
    ['a back-reference', '(["\'])[a-z]*\\1'],
    ['a counted repetition above 16', '[0-9a-f]{32}'],
    ['named groups', '(?<year>\\d{4})-(?<month>\\d{2})'],
  ])('compiles a pattern with %s and no nested quantifiers', (_label, source) => {
    expect(compileUserRegex(source, true)).toBeInstanceOf(RegExp)
  })

  it.each([['(a+)+b'], ['(a|aa)*c'], ['(.*)*x'], ['(\\w+\\s?)+$']])(
    'compiles the nested-quantifier pattern %s that the linear engine can run',
    (source) => {
      expect(compileUserRegex(source, true)).toBeInstanceOf(RegExp)
    },
  )

  it('does not stall on an accepted pathological pattern (V8 falls back to its linear engine)', () => {
    // If the fallback were off this would backtrack for longer than the age of the universe and
    // the test would time out.
    expect(compiled('(a+)+b').test('a'.repeat(50_000))).toBe(false)
    expect(compiled('(\\w+\\s?)+$', false).test(`${'word '.repeat(10_000)}!`)).toBe(false)
    expect(compiled('(x+x+)+y').test('x'.repeat(30_000))).toBe(false)
  })

  it('matches a pathological pattern correctly when it does hold', () => {
    expect(compiled('(a+)+b').test(`${'a'.repeat(50_000)}b`)).toBe(true)
  })

  it('refuses a non-linear pattern with two unbounded repetitions outside lookarounds (polynomial)', () => {
    expect(compileUserRegex('(?!x).*a.*b', true)).toMatchObject({
      kind: 'unsafe',
      reason: expect.stringContaining('more than one unbounded repetition'),
    })
    expect(compileUserRegex('(?=.*\\d).*[a-z]', true)).toBeInstanceOf(RegExp)
  })

  it('refuses a non-linear pattern that repeats an ambiguous alternation', () => {
    expect(compileUserRegex('(?=a)(a|a)*b', true)).toBeInstanceOf(RegexRejection)
  })
})
