import { describe, expect, it } from 'vitest'
import { canonicalComparison, type Comparison } from '../../../src/monitor/index.js'
import { compare } from '../../../src/monitor/comparisons.js'

/** [comparison, actual, target, expected pass] */
const cases: Array<[Comparison, unknown, string, boolean]> = [
  ['equal', 'abc', 'abc', true],
  ['equal', 'abc', 'abd', false],
  ['equal', true, 'true', true],
  ['equal', 200, '200', true],
  ['not_equal', 'abc', 'abd', true],
  ['not_equal', 'abc', 'abc', false],
  ['empty', '', '', true],
  ['empty', [], '', true],
  ['empty', {}, '', true],
  ['empty', undefined, '', true],
  ['empty', 'x', '', false],
  ['empty', [1], '', false],
  ['not_empty', 'x', '', true],
  ['not_empty', '', '', false],
  ['contains', 'application/json; charset=utf-8', 'json', true],
  ['contains', 'text/plain', 'json', false],
  ['contains', ['a', 'b'], 'b', true],
  ['contains', ['a', 'b'], 'c', false],
  ['does_not_contain', 'text/plain', 'json', true],
  ['does_not_contain', 'application/json', 'json', false],
  ['is_a_number', 12.5, '', true],
  ['is_a_number', '42', '', true],
  ['is_a_number', 'forty', '', false],
  ['is_a_number', true, '', false],
  ['equal_number', 200, '200', true],
  ['equal_number', '200.0', '200', true],
  ['equal_number', 201, '200', false],
  ['is_less_than', 3, '4', true],
  ['is_less_than', 4, '4', false],
  ['is_less_than_or_equal', 4, '4', true],
  ['is_less_than_or_equal', 5, '4', false],
  ['is_greater_than', 5, '4', true],
  ['is_greater_than', 4, '4', false],
  ['is_greater_than_or_equal', 4, '4', true],
  ['is_greater_than_or_equal', 3, '4', false],
  ['has_key', { id: 1 }, 'id', true],
  ['has_key', { id: 1 }, 'name', false],
  ['has_key', ['id'], 'id', false],
  ['has_value', { id: 1, name: 'x' }, 'x', true],
  ['has_value', [1, 2, 3], '2', true],
  ['has_value', { id: 1 }, 'y', false],
  ['is_null', null, '', true],
  ['is_null', 'x', '', false],
  ['matches', 'order-123', 'order-[0-9]+', true],
  ['matches', 'order-abc', 'order-[0-9]+', false],
  ['does_not_match', 'order-abc', 'order-[0-9]+', true],
]

describe('compare', () => {
  it.each(cases)('%s(%j, %j) is %s', (comparison, actual, target, expected) => {
    const outcome = compare(comparison, actual, target)
    expect(outcome.error).toBeNull()
    expect(outcome.pass).toBe(expected)
  })

  it('reports a numeric comparison whose target is not a number', () => {
    expect(compare('is_less_than', 3, 'lessThanValue')).toEqual({
      pass: false,
      error: 'the target "lessThanValue" is not a number',
    })
  })

  it('refuses invalid and unsafe regular expressions as the mock DSL does', () => {
    expect(compare('matches', 'aaaa', '(')).toMatchObject({
      pass: false,
      error: expect.stringMatching(/not a valid regular expression/) as unknown,
    })
    expect(compare('matches', 'aaaa', '(a+)+\\1')).toMatchObject({
      pass: false,
      error: expect.stringMatching(/is refused/) as unknown,
    })
  })
})

describe('canonicalComparison', () => {
  it('maps the aliases of the exports to the product comparisons', () => {
    expect(canonicalComparison('is_equal')).toBe('equal')
    expect(canonicalComparison('equals')).toBe('equal')
    expect(canonicalComparison('EQUAL_NUMBER')).toBe('equal_number')
    expect(canonicalComparison('greater_than')).toBe('is_greater_than')
    expect(canonicalComparison('no_such_thing')).toBeNull()
  })
})
