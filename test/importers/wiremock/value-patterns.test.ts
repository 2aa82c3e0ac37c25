import { describe, expect, it } from 'vitest'
import type { MatcherInput } from '../../../src/dsl/index.js'
import { matchersOf, type Part } from '../../../importers/wiremock/patterns.js'

// WireMock value patterns one operator at a time: the DSL matchers each becomes, and the warning
// (naming the place) for what cannot be expressed, which is then left out.
function convert(
  pattern: unknown,
  part: Part = 'body',
  key?: string,
): { matchers: MatcherInput[]; notes: string[] } {
  const notes: string[] = []
  const matchers = matchersOf(pattern, {
    part,
    ...(key === undefined ? {} : { key }),
    where: 'P',
    note: (m) => notes.push(m),
  })
  return { matchers, notes }
}

describe('WireMock value patterns', () => {
  it('refuses what is not one pattern object with one operator', () => {
    expect(convert('x').notes).toEqual([
      'P: expected a pattern object such as {"equalTo": "..."}; not matched',
    ])
    expect(convert({}).notes).toEqual([
      'P: expected exactly one operator (equalTo, contains, matches, ...), found none; not matched',
    ])
    expect(convert({ equalTo: 'a', contains: 'b' }).notes).toEqual([
      'P: expected exactly one operator (equalTo, contains, matches, ...), found equalTo, contains; not matched',
    ])
    expect(convert({ weird: 1 }).notes).toEqual(['P: unknown operator weird; not matched'])
  })

  it('refuses values of the wrong type, saying whether a single value was wanted', () => {
    expect(convert({ equalTo: ['a'] }, 'headers', 'h')).toEqual({
      matchers: [],
      notes: ['P: equalTo needs a single value; not matched'],
    })
    expect(convert({ contains: {} }, 'headers', 'h').notes).toEqual([
      'P: contains needs a value of the right type; not matched',
    ])
    expect(convert({ includes: 'x' }, 'queryParams', 'q').notes).toEqual([
      'P: includes needs a value of the right type; not matched',
    ])
    expect(convert({ or: 'x' }, 'headers', 'h').notes).toEqual([
      'P: or needs a value of the right type; not matched',
    ])
    expect(convert({ after: [1] }, 'headers', 'd').notes).toEqual([
      'P: after needs a single value; not matched',
    ])
  })

  it('reads scalars as text, and the negative operators as not_matches', () => {
    expect(convert({ equalTo: true, caseInsensitive: true }, 'headers', 'h').matchers).toEqual([
      { key: 'h', matcherName: 'equals_insensitive', matchingValue: 'true' },
    ])
    expect(convert({ matches: 1 }, 'queryParams', 'q').matchers).toEqual([
      { key: 'q', matcherName: 'matches', matchingValue: '1' },
    ])
    expect(convert({ doesNotContain: 'a.b' }, 'headers', 'h').matchers).toEqual([
      { key: 'h', matcherName: 'not_matches', matchingValue: '[\\s\\S]*a\\.b[\\s\\S]*' },
    ])
    expect(convert({ doesNotMatch: 'x+' }, 'queryParams', 'q').matchers).toEqual([
      { key: 'q', matcherName: 'not_matches', matchingValue: 'x+' },
    ])
  })

  it('reads absent: false as present with any value, and refuses absent on the whole body', () => {
    expect(convert({ absent: false }, 'headers', 'h').matchers).toEqual([
      { key: 'h', matcherName: 'matches', matchingValue: '[\\s\\S]*' },
    ])
    expect(convert({ absent: true }).notes).toEqual([
      'P: "absent" on the whole body cannot be expressed; not matched',
    ])
  })

  it('compares binaryEqualTo as text only on the whole body and for UTF-8 bytes', () => {
    expect(convert({ binaryEqualTo: 'aGVsbG8=' }).matchers).toEqual([
      { matcherName: 'equals', matchingValue: 'hello' },
    ])
    const refused =
      'P: binaryEqualTo is supported only on the whole body, with bytes that are UTF-8 text; not matched'
    expect(convert({ binaryEqualTo: '/w==' }).notes).toEqual([refused])
    expect(convert({ binaryEqualTo: 'aGVsbG8=' }, 'headers', 'h').notes).toEqual([refused])
  })

  it('adds the schema version as $schema unless the schema declares one', () => {
    expect(
      convert({ matchesJsonSchema: '{"type":"object"}', schemaVersion: 'V7' }).matchers,
    ).toEqual([
      {
        matcherName: 'matches_json_schema',
        matchingValue: '{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}',
      },
    ])
    expect(
      convert({ matchesJsonSchema: { $schema: 'x' }, schemaVersion: 'V201909' }, 'body', '$.a')
        .matchers,
    ).toEqual([
      { key: '$.a', matcherName: 'matches_json_schema', matchingValue: '{"$schema":"x"}' },
    ])
  })

  it('refuses a JSON schema that is not JSON, of an unknown version, or on a header', () => {
    expect(convert({ matchesJsonSchema: '{bad' }).notes).toEqual([
      'P: matchesJsonSchema is not valid JSON; not matched',
    ])
    expect(convert({ matchesJsonSchema: {}, schemaVersion: 'V4' }).notes).toEqual([
      'P: matchesJsonSchema schemaVersion "V4" is not supported (V7, V201909, V202012); not matched',
    ])
    expect(convert({ matchesJsonSchema: {} }, 'headers', 'h').notes).toEqual([
      'P: matchesJsonSchema applies to request bodies only; not matched',
    ])
  })

  it('keeps equalToJson options and refuses JSON that does not parse or is not on the body', () => {
    expect(
      convert({ equalToJson: { a: [1] }, ignoreArrayOrder: true, ignoreExtraElements: true })
        .matchers,
    ).toEqual([
      {
        matcherName: 'equals_json',
        matchingValue: '{"a":[1]}',
        ignoreArrayOrder: true,
        ignoreExtraElements: true,
      },
    ])
    expect(convert({ equalToJson: '{bad' }).notes).toEqual([
      'P: equalToJson is not valid JSON; not matched',
    ])
    expect(convert({ equalToJson: '{}' }, 'headers', 'h').notes).toEqual([
      'P: equalToJson applies to request bodies only; not matched',
    ])
  })

  it('says which XML options it cannot honour, and keeps the comparison', () => {
    expect(convert({ equalToXml: '<a/>', enablePlaceholders: true })).toEqual({
      matchers: [{ matcherName: 'equals_xml', matchingValue: '<a/>' }],
      notes: ['P: equalToXml placeholders are not supported; the XML must be equal'],
    })
    expect(convert({ matchesXPath: '/a', xPathNamespaces: { x: 'urn:x' } })).toEqual({
      matchers: [{ matcherName: 'matches_xml', matchingValue: '/a' }],
      notes: ['P: xPathNamespaces are not supported; the XPath is evaluated without them'],
    })
  })

  it('applies an inner pattern to what an expression selects, and refuses a bad expression', () => {
    expect(convert({ matchesJsonPath: { expression: '$.a' } }).matchers).toEqual([
      { matcherName: 'matches_json', matchingValue: '$.a' },
    ])
    expect(convert({ matchesJsonPath: { expression: '$.a', equalTo: 'x' } }).matchers).toEqual([
      { key: '$.a', matcherName: 'equals', matchingValue: 'x' },
    ])
    expect(convert({ matchesXPath: { expression: 'a' } }).notes).toEqual([
      'P: matchesXPath expression "a" must start with "/" to select a value; not matched',
    ])
    expect(convert({ matchesJsonPath: 5 }).notes).toEqual([
      'P: matchesJsonPath needs an expression; not matched',
    ])
  })

  it('folds a whole-number offset from now into the date, refuses other offsets, and maps truncation', () => {
    expect(
      convert({ before: 'now', expectedOffset: -3, expectedOffsetUnit: 'DAYS' }, 'headers', 'd')
        .matchers,
    ).toEqual([{ key: 'd', matcherName: 'before_date', matchingValue: 'now -3 days' }])
    expect(
      convert({ after: 'now', expectedOffset: 2.5, expectedOffsetUnit: 'days' }, 'headers', 'd')
        .notes,
    ).toEqual([
      'P: after expectedOffset is supported as an integer with expectedOffsetUnit, on "now"; not matched',
    ])
    expect(
      convert({ equalToDateTime: '2021-01-01T00:00:00Z', truncateExpected: 'first day of month' })
        .matchers,
    ).toEqual([
      {
        matcherName: 'equals_date',
        matchingValue: '2021-01-01T00:00:00Z',
        truncateExpected: 'first_day_of_month',
      },
    ])
    expect(convert({ equalToDateTime: '2021-01-01T00:00:00Z' }).matchers).toEqual([
      { matcherName: 'equals_date', matchingValue: '2021-01-01T00:00:00Z' },
    ])
  })

  it('reads hasExactly as includes (saying so), and or of plain values as one alternation', () => {
    expect(
      convert({ hasExactly: [{ equalTo: 'a' }, { contains: 'b' }] }, 'queryParams', 'q'),
    ).toEqual({
      matchers: [
        { key: 'q', matcherName: 'equals', matchingValue: 'a' },
        { key: 'q', matcherName: 'contains', matchingValue: 'b' },
      ],
      notes: [
        'P: hasExactly is matched as includes (each listed value must be present; other values are allowed)',
      ],
    })
    expect(
      convert({ or: [{ equalTo: 'a.b' }, { matches: 'c+' }] }, 'headers', 'h').matchers,
    ).toEqual([{ key: 'h', matcherName: 'matches', matchingValue: 'a\\.b|(?:c+)' }])
    expect(
      convert({ or: [{ equalTo: 'a', caseInsensitive: true }] }, 'headers', 'h').notes,
    ).toEqual(['P: "or" can be mapped only when every branch is equalTo or matches; not matched'])
  })
})
