import { describe, expect, it } from 'vitest'
import { parseJsonSliced, parseText } from '../../../src/dsl/parse.js'

// A large `PUT /config` body is parsed a transaction at a time: the value must be the one
// JSON.parse gives, positions must point into the text as sent, and a body the scan cannot lay
// out is parsed whole, with the usual message, line and column.
let pauses = 0
const pause = async (): Promise<void> => {
  pauses++
}
const sliced = async (text: string) => await parseJsonSliced(Buffer.from(text), 'c.json', pause)

async function parseError(text: string): Promise<unknown> {
  try {
    await sliced(text)
  } catch (err) {
    return err
  }
  throw new Error('expected a parse error')
}

describe('parseJsonSliced', () => {
  it('reads a bare array after a byte order mark and white space, pausing between elements', async () => {
    pauses = 0
    const parsed = await sliced('\uFEFF \n\t[{"a":1},{"b":2}]')
    expect(parsed.value).toEqual([{ a: 1 }, { b: 2 }])
    expect(pauses).toBeGreaterThanOrEqual(2)
    expect(parsed.locate('/1/b')).toEqual({ line: 2, column: 16 })
  })

  it('reads a document with its transactions and points into the text', async () => {
    const parsed = await sliced('{"name":"x","transactions":[{"a":1},\n{"b":2}]}')
    expect(parsed.value).toEqual({ name: 'x', transactions: [{ a: 1 }, { b: 2 }] })
    expect(parsed.locate('/transactions/1')).toEqual({ line: 2, column: 1 })
  })

  it('parses a document without transactions whole', async () => {
    expect((await sliced('{"name":"x"}')).value).toEqual({ name: 'x' })
  })

  it('refuses a syntax error inside an element, or a text cut short, with its line and column', async () => {
    expect(await parseError('{"transactions":[{"a":1},{"b":]}')).toMatchObject({
      code: 'ERR_DSL_PARSE',
      details: [{ file: 'c.json', line: 1, column: 31 }],
    })
    expect(await parseError('[{"a":1}, {"b": 2')).toMatchObject({
      code: 'ERR_DSL_PARSE',
      details: [{ line: 1, column: 18 }],
    })
  })
})

describe('parseText errors', () => {
  it('refuses a repeated YAML key, where it is', () => {
    expect(() => parseText('a: 1\na: 2\n', 'c.yaml')).toThrow(
      expect.objectContaining({
        code: 'ERR_DSL_PARSE',
        details: [
          { path: '', message: 'Map keys must be unique', file: 'c.yaml', line: 2, column: 1 },
        ],
      }),
    )
  })

  it('expands a few YAML aliases, and refuses an alias bomb naming the limit', () => {
    expect(parseText('a: &x [1,2]\nb: [*x, *x]\n', 'c.yaml').value).toEqual({
      a: [1, 2],
      b: [
        [1, 2],
        [1, 2],
      ],
    })
    let bomb = 'a: &a [x,x,x,x,x,x,x,x,x,x]\n'
    let previous = 'a'
    for (let i = 0; i < 8; i++) {
      bomb += `n${i}: &n${i} [${Array<string>(10).fill(`*${previous}`).join(',')}]\n`
      previous = `n${i}`
    }
    expect(() => parseText(bomb, 'b.yaml')).toThrow(/past the limit of 1000/)
  })

  it('places a JSON error on its line', () => {
    expect(() => parseText('{"a": 1,\n "b": }', 'c.json')).toThrow(
      expect.objectContaining({ details: [expect.objectContaining({ line: 2, column: 7 })] }),
    )
  })
})
