import { describe, expect, it } from 'vitest'
import { multipartMatchers } from '../../../importers/wiremock/multipart.js'

// WireMock multipartPatterns: which become form-field matchers, and why the others are refused.
function convert(patterns: unknown): {
  out: ReturnType<typeof multipartMatchers>
  notes: string[]
} {
  const notes: string[] = []
  return { out: multipartMatchers(patterns, (m) => notes.push(m)), notes }
}

describe('WireMock multipart patterns', () => {
  it('refuses patterns that are not a list', () => {
    expect(convert({})).toEqual({
      out: { body: [], headers: [] },
      notes: ['request multipartPatterns must be an array; not matched'],
    })
  })

  it('refuses each pattern it cannot express, naming it and the reason', () => {
    const { out, notes } = convert([
      'x',
      { matchingType: 'ALL', name: 'a' },
      { headers: { 'X-A': { equalTo: 'a' } } },
      { name: 'a', headers: { 'Content-Disposition': { contains: 'name="b"' } } },
      {},
      { name: 'n', bodyPatterns: {} },
      { name: 'n', bodyPatterns: [{ equalToJson: '{}' }] },
      { name: 'n', bodyPatterns: ['x'] },
    ])
    // nothing is matched, so the request need not even be multipart
    expect(out).toEqual({ body: [], headers: [] })
    const also = '(equalTo, contains, doesNotContain, matches, doesNotMatch, and, or are)'
    expect(notes).toEqual([
      'request multipartPatterns[0]: expected an object with headers and bodyPatterns; not matched',
      'request multipartPatterns[1]: matchingType ALL with part headers or a part name is not supported (every part of the request would have to carry them); ALL is supported with bodyPatterns only; not matched',
      'request multipartPatterns[2]: part headers other than Content-Disposition (X-A) are not supported; not matched',
      `request multipartPatterns[3]: a Content-Disposition pattern beyond the part's name "a" is not supported; not matched`,
      'request multipartPatterns[4]: the part must be named: "name", or a Content-Disposition pattern such as {"contains": "name=\\"file\\""}; not matched',
      'request multipartPatterns[5]: bodyPatterns must be an array; not matched',
      `request multipartPatterns[6]: equalToJson on a part is not supported ${also}; not matched`,
      `request multipartPatterns[7]: a pattern on a part is not supported ${also}; not matched`,
    ])
  })

  it('names a part from its Content-Disposition, requires it, and matches the named part body', () => {
    const { out, notes } = convert([
      { headers: { 'content-disposition': { equalTo: 'form-data; name=file; filename="a"' } } },
      { name: 'info', bodyPatterns: [{ contains: 'x' }, { doesNotMatch: 'y+' }] },
    ])
    expect(notes).toEqual([])
    expect(out).toEqual({
      body: [
        { key: 'file', matcherName: 'matches', matchingValue: '[\\s\\S]*' },
        { key: 'info', matcherName: 'contains', matchingValue: 'x' },
        { key: 'info', matcherName: 'not_matches', matchingValue: 'y+' },
      ],
      headers: [{ key: 'Content-Type', matcherName: 'matches', matchingValue: '(?i)multipart/.*' }],
    })
  })
})
