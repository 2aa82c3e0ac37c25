import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadDefinitionText, originOf } from '../../../src/dsl/index.js'
import { thrown } from '../../helpers/errors.js'
import { importFile } from '../../../importers/index.js'
import { importTransactions } from '../../../importers/transactions/index.js'
import { decodedMatcherValue } from '../../../importers/transactions/base64.js'

// Golden files: fixtures/<case>.json in, fixtures/<case>.expected.yaml out, compared as normalized
// documents.
const fixtures = join(import.meta.dirname, 'fixtures')
const cases = readdirSync(fixtures)
  .filter((f) => f.endsWith('.expected.yaml'))
  .map((f) => f.replace(/\.expected\.yaml$/, ''))
const b64 = (text: string) => Buffer.from(text).toString('base64')
const input = (value: unknown, fileName = 'export.json') => ({
  bytes: Buffer.from(JSON.stringify(value, null, 2)),
  fileName,
})

describe('importTransactions golden files', () => {
  it('has golden cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(2)
  })

  it.each(cases)('imports fixtures/%s.json as its expected document, through detection', (name) => {
    const result = importFile({
      bytes: readFileSync(join(fixtures, `${name}.json`)),
      fileName: `${name}.json`,
    })
    const expected = loadDefinitionText(
      readFileSync(join(fixtures, `${name}.expected.yaml`), 'utf8'),
      `${name}.expected.yaml`,
    )
    expect(result.document).toEqual(expected)
    expect(result.format).toBe('transactions')
    expect(result.dslType).toBe('GENERIC_DSL')
  })

  it('reports each decoded base64 value with its pointer', () => {
    const result = importTransactions({
      bytes: readFileSync(join(fixtures, 'export-envelope.json')),
      fileName: 'export-envelope.json',
    })
    expect(result.warnings.map((w) => w.at)).toEqual([
      '/result/1/dsl/requestDsl/body/0/matchingValue',
      '/result/1/dsl/requestDsl/body/2/matchingValue',
    ])
  })
})

describe('the base64 rule for body matcher values', () => {
  it('decodes canonical base64 of printable UTF-8 text', () => {
    expect(decodedMatcherValue('equals', b64('hello world'))).toBe('hello world')
    expect(decodedMatcherValue('contains', b64('héllo\nthere'))).toBe('héllo\nthere')
    expect(decodedMatcherValue('equals_json', b64('{"a":1}'))).toBe('{"a":1}')
    expect(decodedMatcherValue('equals_xml', b64('<a>1</a>'))).toBe('<a>1</a>')
  })

  it('leaves plain values alone: words, JSON, non-canonical or binary base64', () => {
    for (const plain of [
      'hello',
      'true',
      'null',
      '1234',
      'password',
      'abcd1234',
      'plain text',
      '{"a":1}',
      '',
    ]) {
      expect(decodedMatcherValue('equals', plain)).toBeUndefined()
    }
    expect(decodedMatcherValue('equals', 'aGk')).toBeUndefined() // no padding
    expect(decodedMatcherValue('equals', b64('\u0000\u0001binary'))).toBeUndefined()
    expect(
      decodedMatcherValue('equals', Buffer.from([0xff, 0xfe, 0xfd]).toString('base64')),
    ).toBeUndefined()
    expect(decodedMatcherValue('equals_json', b64('not json'))).toBeUndefined()
    expect(decodedMatcherValue('equals_xml', b64('not xml'))).toBeUndefined()
  })

  it('never decodes expressions or names', () => {
    for (const name of ['matches_json', 'matches_xml', 'absent', 'equals_url']) {
      expect(decodedMatcherValue(name, b64('hello world'))).toBeUndefined()
    }
  })
})

describe('importTransactions', () => {
  it('imports one unwrapped transaction record', () => {
    const result = importTransactions(
      input({ id: 7, name: 'one', serviceId: 1, dsl: { requestDsl: { path: '/one' } } }),
    )
    expect(result.document.transactions.map((t) => [t.id, t.name])).toEqual([[7, 'one']])
  })

  it('refuses an API error envelope, saying what it carries', () => {
    const err = thrown(() =>
      importTransactions(
        input({
          apiVersion: 1,
          error: { code: 404, message: 'Transaction not found' },
          result: null,
        }),
      ),
    )
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toMatch(
      /is an error response of the API, not transactions: Transaction not found/,
    )
  })

  it('reports invalid transactions with pointers and lines inside the envelope', () => {
    const err = thrown(() =>
      importTransactions(
        input({
          apiVersion: 1,
          result: [{ id: 1, dsl: { requestDsl: { method: 'GET' }, responseDsl: { status: 42 } } }],
        }),
      ),
    )
    expect(err.code).toBe('ERR_DSL_INVALID')
    expect(err.details).toEqual([
      expect.objectContaining({
        path: '/result/0/dsl/responseDsl/status',
        file: 'export.json',
        line: 11,
      }),
    ])
  })

  it('records origins that point into the envelope', () => {
    const doc = importTransactions(
      input({
        apiVersion: 1,
        result: [{ id: 1, name: 'a', serviceId: 2, dsl: { requestDsl: { path: '/a' } } }],
      }),
    ).document
    const origin = originOf(doc.transactions[0] ?? {})
    expect(origin).toMatchObject({
      file: 'export.json',
      pointer: '/result/0',
      dslPointer: '/result/0/dsl',
    })
    expect(origin?.locate?.('/result/0/dsl')?.line).toBe(8)
  })

  it('does not decode base64 in hand-written DSL files', () => {
    const value = [
      {
        dsl: {
          requestDsl: { body: [{ matcherName: 'equals', matchingValue: b64('hello world') }] },
        },
      },
    ]
    const result = importFile(input(value, 'mine.json'))
    expect(result.format).toBe('dsl')
    expect(result.document.transactions[0]?.dsl.requestDsl.body?.[0]?.matchingValue).toBe(
      b64('hello world'),
    )
  })
})
