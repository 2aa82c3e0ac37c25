import { describe, expect, it } from 'vitest'
import { matchName, onPart, request, thrown } from '../fixtures/match.js'

// matches_json_schema (WireMock's matchesJsonSchema): the JSON body, or what a JSONPath key
// selects, validates against a JSON Schema compiled once at load.

const order = JSON.stringify({
  type: 'object',
  required: ['id', 'items'],
  properties: {
    id: { type: 'integer', minimum: 1 },
    items: {
      type: 'array',
      minItems: 1,
      items: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4}$' },
    },
  },
  additionalProperties: false,
})
const json = (value: unknown): ReturnType<typeof request> =>
  request('POST', '/', { 'content-type': 'application/json' }, JSON.stringify(value))

describe('matches_json_schema', () => {
  it('holds for a body that validates and not for one that does not', () => {
    const m = onPart('body', { matcherName: 'matches_json_schema', matchingValue: order })
    expect(matchName(m, json({ id: 3, items: ['ABC-1234'] }))).toBe('it')
    expect(matchName(m, json({ id: 0, items: ['ABC-1234'] }))).toBeUndefined()
    expect(matchName(m, json({ id: 3, items: ['abc'] }))).toBeUndefined()
    expect(matchName(m, json({ id: 3, items: ['ABC-1234'], extra: true }))).toBeUndefined()
    expect(matchName(m, request('POST', '/', {}, 'not json'))).toBeUndefined()
    expect(matchName(m, request('POST', '/', {}, ''))).toBeUndefined()
  })

  it('applies to what a JSONPath key selects, and optional lets a missing one pass', () => {
    const m = onPart('body', {
      key: '$.order',
      matcherName: 'matches_json_schema',
      matchingValue: order,
    })
    expect(matchName(m, json({ order: { id: 1, items: ['XYZ-0001'] } }))).toBe('it')
    expect(matchName(m, json({ order: { id: 'one', items: [] } }))).toBeUndefined()
    expect(matchName(m, json({ other: 1 }))).toBeUndefined()
    const optional = onPart('body', {
      key: '$.order',
      matcherName: 'matches_json_schema',
      matchingValue: order,
      optional: true,
    })
    expect(matchName(optional, json({ other: 1 }))).toBe('it')
  })

  it('reads the draft from $schema: 2020-12 by default, draft-07 and 2019-09 when declared', () => {
    // prefixItems is 2020-12; in draft-07 it is an unknown keyword and so ignored.
    const tuple = { type: 'array', prefixItems: [{ type: 'integer' }] }
    const latest = onPart('body', {
      matcherName: 'matches_json_schema',
      matchingValue: JSON.stringify(tuple),
    })
    expect(matchName(latest, json(['x']))).toBeUndefined()
    const draft7 = onPart('body', {
      matcherName: 'matches_json_schema',
      matchingValue: JSON.stringify({
        $schema: 'http://json-schema.org/draft-07/schema#',
        ...tuple,
      }),
    })
    expect(matchName(draft7, json(['x']))).toBe('it')
    const draft2019 = onPart('body', {
      matcherName: 'matches_json_schema',
      matchingValue: JSON.stringify({
        $schema: 'https://json-schema.org/draft/2019-09/schema',
        type: 'array',
        items: [{ type: 'integer' }],
      }),
    })
    expect(matchName(draft2019, json(['x']))).toBeUndefined()
    expect(matchName(draft2019, json([1]))).toBe('it')
  })

  it('lets two transactions use schemas with the same $id', () => {
    const a = onPart('body', {
      matcherName: 'matches_json_schema',
      matchingValue: JSON.stringify({ $id: 'https://example.com/same.json', type: 'string' }),
    })
    const b = onPart('body', {
      matcherName: 'matches_json_schema',
      matchingValue: JSON.stringify({ $id: 'https://example.com/same.json', type: 'number' }),
    })
    expect(matchName(a, json('x'))).toBe('it')
    expect(matchName(b, json(2))).toBe('it')
  })

  it('refuses at load a schema that is not JSON, is invalid, names an unknown draft or has an unsafe pattern', () => {
    const cases: Array<[string, RegExp]> = [
      ['{not json', /must be a JSON Schema/],
      ['[1]', /an object or a boolean/],
      [JSON.stringify({ type: 'nonsense' }), /not a valid JSON Schema/],
      [
        JSON.stringify({ $schema: 'http://json-schema.org/draft-04/schema#' }),
        /not a supported draft/,
      ],
      // A lookahead keeps it off V8's linear-time engine, and it nests quantifiers: refused (docs/regex.md).
      [JSON.stringify({ type: 'string', pattern: '(?=(a+)+$)a' }), /is unsafe/],
    ]
    for (const [schema, message] of cases) {
      const error = thrown(() =>
        onPart('body', { matcherName: 'matches_json_schema', matchingValue: schema }),
      )
      expect(error.code).toBe('ERR_DSL_INVALID')
      expect(JSON.stringify(error.details)).toMatch(message)
      expect(JSON.stringify(error.details)).toContain('matchingValue')
    }
    const onHeader = thrown(() =>
      onPart('headers', { key: 'x', matcherName: 'matches_json_schema', matchingValue: '{}' }),
    )
    expect(onHeader.code).toBe('ERR_DSL_INVALID')
  })
})
