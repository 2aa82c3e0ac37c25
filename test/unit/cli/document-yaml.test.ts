import { describe, expect, it } from 'vitest'
import { parse, stringify } from 'yaml'
import { documentYaml, transactionYaml } from '../../../src/cli/document-yaml.js'

/** What the yaml library writes for the transaction, as an item of the `transactions:` list. */
function library(txn: unknown): string {
  return stringify([txn], { lineWidth: 0 }).replace(/^(?=.)/gm, '  ')
}

const strings = [
  '',
  ' ',
  'a',
  'GET /a',
  '/v2/users/1',
  'true',
  'False',
  'null',
  '~',
  'NULL',
  '12',
  '-3',
  '+4',
  '0.5',
  '.5',
  '1e3',
  '.inf',
  '.NaN',
  '0x1F',
  '0o17',
  'yes',
  'no',
  'on',
  '-',
  '?',
  '- a',
  '? a',
  'a: b',
  'a:b',
  'a #b',
  'a#b',
  '#a',
  'a ',
  ' a',
  'a:',
  '{"a":1}',
  '[1,2]',
  "it's",
  'say "hi"',
  `"a" and 'b'`,
  'a\\b',
  '%x',
  '---',
  '--- a',
  '...',
  '@x',
  '`x`',
  '!x',
  '&x',
  '*x',
  '|x',
  '>x',
  ',x',
  'a,b',
  'a\tb',
  'line\nbreak',
  'caf\u00e9',
  'tab\t',
  'ctl\u0001',
  'aGVsbG8=',
  '+/8=',
  'equals_json',
  'https://x.example.com/a?b=c',
]

describe('documentYaml', () => {
  it('writes every transaction exactly as the yaml library does', () => {
    for (const s of strings) {
      const txn = {
        name: s,
        dsl: {
          priority: 10,
          requestDsl: {
            method: 'GET',
            queryParams: [{ key: s, matcherName: 'equals', matchingValue: s }],
            body: [],
          },
          responseDsl: {
            status: 200,
            headers: [{ name: 'x', value: s }],
            text: s,
            nested: [[s, 1.5, null, true]],
            empty: {},
            gone: undefined,
          },
        },
        tags: [s],
      }
      expect(transactionYaml(txn), JSON.stringify(s)).toBe(library(txn))
    }
  })

  it('leaves shared objects and unusual keys to the library (anchors, quoted keys)', () => {
    const shared = { a: 1 }
    const empty: unknown[] = []
    for (const txn of [
      { x: shared, y: shared },
      { x: empty, y: empty },
      { 'a b': 1 },
      { true: 1 },
    ]) {
      expect(transactionYaml(txn)).toBe(library(txn))
    }
  })

  it('loads back as the same document', () => {
    const doc = {
      transactions: [
        {
          name: 'a: b',
          dsl: { requestDsl: { path: '/a' }, responseDsl: { status: 200, text: '{"x":"y"}' } },
        },
      ],
    }
    expect(parse(documentYaml(doc))).toEqual(doc)
    expect(documentYaml({ transactions: [] })).toBe('transactions: []\n')
  })
})
