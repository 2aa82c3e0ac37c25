import { describe, expect, it } from 'vitest'
import {
  documentOf,
  loadDefinitionText,
  normalizeTransaction,
  readDefinition,
  type DslInput,
} from '../../../src/dsl/index.js'
import { compileMatcher } from '../../../src/match/index.js'
import { thrown, txn } from '../fixtures/match.js'

/*
 * compileMatcher compiles every matcher once and reports every problem at once as ERR_DSL_INVALID,
 * each detail with the JSON pointer of the offending member (and file:line:column when the
 * transactions came from a file).
 */

/** 1-based line and column of the first occurrence of `token` in `text`. */
function positionOf(text: string, token: string): { line: number; column: number } {
  const offset = text.indexOf(token)
  const before = text.slice(0, offset)
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') }
}

const compile = (value: unknown) => compileMatcher(readDefinition(value), (t) => t.name)

/** A document built without validation, for inputs readDefinition would already refuse. */
const unvalidated = (...dsls: DslInput[]) =>
  documentOf(dsls.map((d, i) => normalizeTransaction(d, i)))

describe('compile errors', () => {
  it('report an invalid regex at its matchingValue', () => {
    const err = thrown(() =>
      compile([txn('a', { url: { matcherName: 'matches', matchingValue: '/a(' } })]),
    )
    expect(err).toMatchObject({
      code: 'ERR_DSL_INVALID',
      statusCode: 400,
      details: [
        {
          path: '/0/dsl/requestDsl/url/matchingValue',
          message: expect.stringMatching(/^is not a valid regular expression/),
        },
      ],
    })
  })

  it('refuse a regex that cannot run in linear time and nests quantifiers, saying so', () => {
    const err = thrown(() =>
      compile([
        txn('a', { headers: [{ key: 'x', matcherName: 'matches', matchingValue: '(a+)+\\1' }] }),
      ]),
    )
    expect(err).toMatchObject({
      code: 'ERR_DSL_INVALID',
      details: [
        {
          path: '/0/dsl/requestDsl/headers/0/matchingValue',
          message: expect.stringMatching(/^is refused: .*nests quantifiers/),
        },
      ],
    })
  })

  it('report an invalid JSONPath key, an invalid JSONPath in matches_json and an invalid XPath', () => {
    const err = thrown(() =>
      compile([
        txn('a', {
          body: [
            { key: '$.a[', matcherName: 'equals', matchingValue: 'x' },
            { matcherName: 'matches_json', matchingValue: '$.a[?(@.b ==' },
            { matcherName: 'matches_json', matchingValue: 'a.b' },
            { key: '/a[', matcherName: 'equals', matchingValue: 'x' },
            { matcherName: 'matches_xml', matchingValue: '//[' },
          ],
        }),
      ]),
    )
    expect(err).toMatchObject({
      code: 'ERR_DSL_INVALID',
      message: expect.stringContaining('5 errors'),
    })
    expect(
      (err.details as Array<{ path: string; message: string }>).map((d) => [
        d.path,
        d.message.split(':')[0],
      ]),
    ).toEqual([
      ['/0/dsl/requestDsl/body/0/key', 'is not a valid JSONPath'],
      ['/0/dsl/requestDsl/body/1/matchingValue', 'is not a valid JSONPath'],
      ['/0/dsl/requestDsl/body/2/matchingValue', 'is not a valid JSONPath'],
      ['/0/dsl/requestDsl/body/3/key', 'is not a valid XPath'],
      ['/0/dsl/requestDsl/body/4/matchingValue', 'is not a valid XPath'],
    ])
  })

  it('report equals_json with a matchingValue that is not JSON', () => {
    const doc = unvalidated({
      requestDsl: { body: [{ matcherName: 'equals_json', matchingValue: '{"a": ' }] },
    })
    const err = thrown(() => compileMatcher(doc, () => null))
    expect(err).toMatchObject({
      code: 'ERR_DSL_INVALID',
      details: [
        {
          path: '/transactions/0/dsl/requestDsl/body/0/matchingValue',
          message: expect.stringMatching(/^must be JSON/),
        },
      ],
    })
  })

  it('report equals_xml with a matchingValue that is not well-formed XML', () => {
    const err = thrown(() =>
      compile([txn('a', { body: [{ matcherName: 'equals_xml', matchingValue: '<a><b></a>' }] })]),
    )
    expect(err).toMatchObject({
      details: [
        { path: '/0/dsl/requestDsl/body/0/matchingValue', message: 'must be well-formed XML' },
      ],
    })
  })

  it('report structured matchers whose key names the wrong kind of body', () => {
    const err = thrown(() =>
      compile([
        txn('a', {
          body: [
            { key: '/a', matcherName: 'matches_json', matchingValue: '$' },
            { key: 'field', matcherName: 'equals_json', matchingValue: '1' },
            { key: '$.a', matcherName: 'equals_xml', matchingValue: '<a/>' },
            { key: 'field', matcherName: 'matches_xml', matchingValue: '/a' },
          ],
        }),
      ]),
    )
    expect((err.details as Array<{ path: string }>).map((d) => d.path)).toEqual([
      '/0/dsl/requestDsl/body/0/matcherName',
      '/0/dsl/requestDsl/body/1/matcherName',
      '/0/dsl/requestDsl/body/2/matcherName',
      '/0/dsl/requestDsl/body/3/matcherName',
    ])
  })

  it('report equals_url on a header or a body', () => {
    const err = thrown(() =>
      compile([
        txn('a', {
          headers: [{ key: 'x', matcherName: 'equals_url', matchingValue: '/a' }],
          body: [{ matcherName: 'equals_url', matchingValue: '/a' }],
        }),
      ]),
    )
    expect(err).toMatchObject({
      details: [
        {
          path: '/0/dsl/requestDsl/headers/0/matcherName',
          message: 'equals_url applies only to the url',
        },
        {
          path: '/0/dsl/requestDsl/body/0/matcherName',
          message: 'equals_url applies only to the url',
        },
      ],
    })
  })

  it('report every problem of every transaction at once', () => {
    const err = thrown(() =>
      compile({
        transactions: [
          txn('ok', { path: '/ok' }),
          txn('a', { url: { matcherName: 'matches', matchingValue: '[' } }),
          {
            dsl: {
              requestDsl: {
                queryParams: [
                  { key: 'q', matcherName: 'not_matches', matchingValue: '(?=x)(a*)*' },
                ],
              },
            },
          },
          txn('c', { cookies: [{ key: 'c', matcherName: 'matches', matchingValue: '*' }] }),
        ],
      }),
    )
    expect(err).toMatchObject({
      code: 'ERR_DSL_INVALID',
      message: expect.stringContaining('3 errors'),
      details: [
        { path: '/transactions/1/dsl/requestDsl/url/matchingValue' },
        { path: '/transactions/2/dsl/requestDsl/queryParams/0/matchingValue' },
        { path: '/transactions/3/dsl/requestDsl/cookies/0/matchingValue' },
      ],
    })
  })

  it('point into a bare dsl without the /dsl segment', () => {
    const err = thrown(() =>
      compile([{ requestDsl: { url: { matcherName: 'matches', matchingValue: '(' } } }]),
    )
    expect(err).toMatchObject({ details: [{ path: '/0/requestDsl/url/matchingValue' }] })
  })

  it('name the file, line and column when the transactions came from YAML', () => {
    const text = [
      'transactions:',
      '  - dsl:',
      '      requestDsl:',
      '        headers:',
      '          - key: x-a',
      '            matcherName: matches',
      "            matchingValue: '(a+)+\\1'",
      '        body:',
      "          - { key: '$.[', matcherName: equals, matchingValue: x }",
    ].join('\n')
    const doc = loadDefinitionText(text, 'mocks/pets.yaml')
    const err = thrown(() => compileMatcher(doc, () => null))
    expect(err).toMatchObject({
      code: 'ERR_DSL_INVALID',
      details: [
        {
          path: '/transactions/0/dsl/requestDsl/headers/0/matchingValue',
          file: 'mocks/pets.yaml',
          ...positionOf(text, "'(a+)"),
        },
        {
          path: '/transactions/0/dsl/requestDsl/body/0/key',
          file: 'mocks/pets.yaml',
          ...positionOf(text, "'$.["),
        },
      ],
    })
  })

  it('name the file, line and column when the transactions came from JSON', () => {
    const text =
      '[\n  {"dsl": {"requestDsl": {\n    "url": {"matcherName": "matches", "matchingValue": "["}\n  }}}\n]'
    const err = thrown(() => compileMatcher(loadDefinitionText(text, 'a.json'), () => null))
    expect(err).toMatchObject({
      details: [
        { path: '/0/dsl/requestDsl/url/matchingValue', file: 'a.json', ...positionOf(text, '"["') },
      ],
    })
  })

  it('collect problems the payload factory reports, at pointers inside the transaction', () => {
    const doc = readDefinition([txn('a', { path: '/a' }), txn('b', { path: '/b' })])
    const err = thrown(() =>
      compileMatcher(doc, (t, _i, report) => {
        if (t.name === 'b') report('/dsl/responseDsl/content', 'cannot be templated')
        return t.name
      }),
    )
    expect(err).toMatchObject({
      code: 'ERR_DSL_INVALID',
      details: [{ path: '/1/dsl/responseDsl/content', message: 'cannot be templated' }],
    })
  })

  it('compile a valid document without throwing', () => {
    expect(() =>
      compile([txn('a', { url: { matcherName: 'matches', matchingValue: '(?=/a)/a+' } })]),
    ).not.toThrow()
  })
})
