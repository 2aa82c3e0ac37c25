import { describe, expect, it } from 'vitest'
import { JsonPathScanner } from '../../src/match/json-scan.js'
import { matchName, onPart, request } from '../unit/fixtures/match.js'

// Defect: a JSONPath member name with a lone surrogate (`$["\ud800"]`, which a JSON mock file can
// spell) was compared with the body's bytes as the bytes Buffer.from writes for it, which are
// U+FFFD's. A body member named U+FFFD was then selected, and a body member spelled `"\ud800"`
// was not: the opposite of what JSON.parse and the walk of the parsed body answer.
describe('a JSONPath name with a lone surrogate selects what JSON.parse and the walk select', () => {
  const path = '$["\uD800"]'
  const matcher = onPart('body', { key: path, matcherName: 'equals', matchingValue: 'x' })
  const post = (body: string) => request('POST', '/', {}, body)

  it('matches the member spelled with the escape', () => {
    expect(matchName(matcher, post('{"\\ud800":"x"}'))).toBe('it')
  })

  it('does not match the member named U+FFFD', () => {
    expect(matchName(matcher, post('{"\uFFFD":"x"}'))).toBeUndefined()
  })

  it('leaves such a path to the parser, and scans one with a surrogate pair', () => {
    expect(JsonPathScanner.compile(path)).toBeNull()
    expect(JsonPathScanner.compile('$["\uDC00"].a')).toBeNull()
    const pair = JsonPathScanner.compile('$["\uD83D\uDE00"]') as JsonPathScanner
    expect(pair.scan(Buffer.from('{"\uD83D\uDE00":"x"}'))).toBe('x')
    expect(pair.scan(Buffer.from('{"\\ud83d\\ude00":"x"}'))).toBe('x')
  })
})
