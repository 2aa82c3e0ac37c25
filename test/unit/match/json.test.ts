/* eslint-disable no-template-curly-in-string -- json-unit placeholders are literal `${...}` strings */
import { describe, expect, it } from 'vitest'
import { compileJsonPath, jsonEquals } from '../../../src/match/json.js'

describe('compileJsonPath', () => {
  const doc = { a: { b: [10, 20, { c: 'x' }] }, 'a.b': 1, list: [{ id: 1 }, { id: 2 }] }

  it.each([
    ['$', [doc]],
    ['$.a.b[1]', [20]],
    ["$['a.b']", [1]],
    ['$["a"]["b"][2].c', ['x']],
    ['$.a.b[5]', []],
    ['$.missing.deeper', []],
    ['$.a.b.c', []],
    ['$.list[*].id', [1, 2]],
    ['$..id', [1, 2]],
    ['$.list[?(@.id > 1)].id', [2]],
  ])('selects %s', (path, selected) => {
    expect(compileJsonPath(path)(doc)).toEqual(selected)
  })

  it('walks simple paths only through own members', () => {
    expect(compileJsonPath('$.toString')({})).toEqual([])
    expect(compileJsonPath('$.__proto__')({})).toEqual([])
  })

  it('applies a filter on the root to the root object itself too, as Jayway JsonPath does', () => {
    expect(compileJsonPath('$[?(@.amount > 10)]')({ amount: 20 })).toEqual([{ amount: 20 }])
    expect(compileJsonPath('$[?(@.amount > 10)]')({ amount: 5 })).toEqual([])
    expect(compileJsonPath('$[?(@.amount > 10)]')([{ amount: 20 }, { amount: 5 }])).toEqual([
      { amount: 20 },
    ])
  })

  it('selects nothing from a scalar or null document', () => {
    expect(compileJsonPath('$.a')(null)).toEqual([])
    expect(compileJsonPath('$.a')('text')).toEqual([])
    expect(compileJsonPath('$[0]')({ 0: 'x' })).toEqual([])
  })

  it.each(['a.b', '$.a[', '$.a]', "$['a", '$[?(@.a ==)]', '$.a[?(@.b == 1)'])(
    'throws on the invalid expression %s',
    (path) => {
      expect(() => compileJsonPath(path)).toThrow()
    },
  )
})

describe('jsonEquals', () => {
  it('ignores key order, not array order', () => {
    expect(jsonEquals({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(true)
    expect(jsonEquals([1, 2], [2, 1])).toBe(false)
  })

  it('distinguishes types, arrays from objects and null from a missing member', () => {
    expect(jsonEquals(1, '1')).toBe(false)
    expect(jsonEquals([], {})).toBe(false)
    expect(jsonEquals({}, [])).toBe(false)
    expect(jsonEquals({ a: null }, {})).toBe(false)
    expect(jsonEquals(null, null)).toBe(true)
    expect(jsonEquals({ a: 1 }, null)).toBe(false)
  })

  it('treats the json-unit placeholders as type wildcards', () => {
    expect(jsonEquals('${json-unit.any-string}', '')).toBe(true)
    expect(jsonEquals('${json-unit.any-string}', null)).toBe(false)
    expect(jsonEquals('${json-unit.any-number}', 0)).toBe(true)
    expect(jsonEquals('${json-unit.any-number}', '0')).toBe(false)
    expect(jsonEquals('${json-unit.any-boolean}', true)).toBe(true)
    expect(jsonEquals('${json-unit.any-boolean}', 'true')).toBe(false)
    expect(jsonEquals('${json-unit.ignore}', null)).toBe(true)
    expect(jsonEquals(['${json-unit.ignore}'], [])).toBe(false)
  })

  it('compares a placeholder-like string in the request literally', () => {
    expect(jsonEquals('x', '${json-unit.any-string}')).toBe(false)
  })
})

describe('jsonEquals with equalToJson flags', () => {
  const order = { ignoreArrayOrder: true }
  const extra = { ignoreExtraElements: true }
  const both = { ignoreArrayOrder: true, ignoreExtraElements: true }

  it.each([
    ['arrays in another order, ignoring order', [1, 2, 3], [3, 1, 2], order, true],
    ['arrays in another order, strict', [1, 2, 3], [3, 1, 2], null, false],
    ['a repeated item needs as many actual items', [1, 1], [1, 2], order, false],
    ['nested arrays in another order', { a: [{ b: [1, 2] }] }, { a: [{ b: [2, 1] }] }, order, true],
    ['extra members, ignoring extras', { a: 1 }, { a: 1, b: 2 }, extra, true],
    ['extra members, strict', { a: 1 }, { a: 1, b: 2 }, null, false],
    ['a missing member is never ignored', { a: 1, b: 2 }, { a: 1 }, extra, false],
    ['trailing array items, ignoring extras', [1, 2], [1, 2, 3], extra, true],
    ['extras in front keep order strict', [1, 2], [0, 1, 2], extra, false],
    ['extras anywhere, ignoring order too', [1, 2], [0, 2, 9, 1], both, true],
    ['a placeholder with flags', { id: '${json-unit.any-number}' }, { id: 3, x: 1 }, extra, true],
  ])('%s', (_name, expected, actual, options, result) => {
    expect(jsonEquals(expected, actual, options)).toBe(result)
  })
})
