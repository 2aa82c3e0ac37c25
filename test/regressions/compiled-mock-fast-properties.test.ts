import v8 from 'node:v8'
import { describe, expect, it } from 'vitest'
import { readDefinition } from '../../src/dsl/index.js'
import { compileMock } from '../../src/serve/compile-mock.js'

// Defect: the compiled mock was an object literal with a getter and a spread, which V8 keeps in
// dictionary mode, so every `mock.matcher`, `mock.cors`... read of every request was a hash
// lookup through V8's generic load stub (about 80 instructions each; bench/README.md).

v8.setFlagsFromString('--allow-natives-syntax')
// eslint-disable-next-line no-new-func -- V8's intrinsic needs its own syntax, read by the parser
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (
  o: object,
) => boolean
// eslint-disable-next-line no-new-func -- as above
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (
  a: object,
  b: object,
) => boolean

describe('the compiled mock a request reads', () => {
  const document = readDefinition({
    thinkTime: 5,
    capacity: 10,
    cors: true,
    transactions: [
      { dsl: { requestDsl: { path: '/a' }, responseDsl: { text: 'hello' } } },
      { dsl: { requestDsl: { path: '/b' }, responseDsl: { json: { b: 1 } } } },
    ],
  })

  it('keeps fast properties, and still reads its document', () => {
    const mock = compileMock(document, { proxyTimeout: 1000, journalBodyBytes: 64 })
    expect(hasFastProperties(mock)).toBe(true)
    // One hidden class for every compiled mock: a swap leaves the request path's loads monomorphic.
    const again = compileMock(document, { proxyTimeout: 1000, journalBodyBytes: 64 })
    expect(haveSameMap(mock, again)).toBe(true)
    expect(mock.document.transactions).toHaveLength(2)
    expect(mock.matcher.active).toHaveLength(2)
    expect(mock.cors).not.toBeNull()
  })

  it('gives the responses it serves fast properties too', () => {
    const mock = compileMock(document, { proxyTimeout: 1000, journalBodyBytes: 64 })
    for (const txn of mock.matcher.active) {
      expect(hasFastProperties(txn)).toBe(true)
      expect(hasFastProperties(txn.payload)).toBe(true)
    }
  })
})
