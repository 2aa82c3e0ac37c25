import { describe, expect, it } from 'vitest'
import {
  compileUserRegex,
  jsonTextDepth,
  MAX_DEFINITION_DEPTH,
  readDefinition,
  RegexRejection,
  tooDeepAt,
} from '../../../src/dsl/index.js'
import { compileValueCheck, regexInputStats } from '../../../src/match/predicates/value-check.js'
import { thrown } from '../../helpers/errors.js'

describe('refusals of unsafe regexes name the construct found', () => {
  it('blames (?i) and not lookarounds for a case-insensitive risky pattern', () => {
    const r = compileUserRegex('(?i)(a|b)*c', true)
    expect(r).toBeInstanceOf(RegexRejection)
    const reason = (r as RegexRejection).reason
    expect(reason).toContain('(?i)')
    expect(reason).not.toMatch(/lookaround|back-reference/)
  })

  it('names a lookaround, a back-reference or a large count when that is what is there', () => {
    expect((compileUserRegex('(?=x)(a|b)*', true) as RegexRejection).reason).toContain('lookaround')
    expect((compileUserRegex('(a)(b|c)*\\1', true) as RegexRejection).reason).toContain(
      'back-reference',
    )
    expect((compileUserRegex('(a|b)*x{20}', true) as RegexRejection).reason).toContain('{20}')
  })
})

describe('regex input cap', () => {
  it('fails matches and not_matches on a value over 64 KiB, and counts it', () => {
    const matches = compileValueCheck({ matcherName: 'matches', matchingValue: 'a*' })
    const not = compileValueCheck({ matcherName: 'not_matches', matchingValue: 'b' })
    if (!('check' in matches) || !('check' in not)) throw new Error('compiled')
    const before = regexInputStats.oversize
    const big = 'a'.repeat(65_537)
    expect(matches.check(big)).toBe(false)
    // not_matches is the positive check, inverted by the predicate: true here makes it fail.
    expect(not.check(big) !== not.negated).toBe(false)
    expect(regexInputStats.oversize).toBe(before + 2)
    expect(matches.check('a'.repeat(65_536))).toBe(true)
  })
})

describe('definition depth', () => {
  it('finds the first container past the limit, iteratively', () => {
    expect(tooDeepAt([[[1]]], 2)).toBe('/0/0')
    expect(tooDeepAt({ a: [1, { b: 2 }] }, 3)).toBeNull()
    let deep: unknown = 1
    for (let i = 0; i < 200_000; i++) deep = [deep]
    expect(tooDeepAt(deep)).not.toBeNull()
  })

  it('measures JSON text depth without parsing, skipping strings', () => {
    expect(jsonTextDepth('{"a":[1,"]]["]}')).toBe(2)
    expect(jsonTextDepth('['.repeat(100_000))).toBe(MAX_DEFINITION_DEPTH + 1)
  })

  it('refuses a definition nested deeper than the limit with ERR_DSL_INVALID at its pointer', () => {
    let json: unknown = 1
    for (let i = 0; i < 10_000; i++) json = [json]
    const err = thrown(() =>
      readDefinition([{ dsl: { requestDsl: { path: '/a' }, responseDsl: { json } } }]),
    )
    expect(err.code).toBe('ERR_DSL_INVALID')
    expect(err.details?.[0]?.message).toContain(`deeper than ${MAX_DEFINITION_DEPTH}`)
    expect(err.details?.[0]?.path.startsWith('/0/dsl/responseDsl/json/0')).toBe(true)
  })
})
