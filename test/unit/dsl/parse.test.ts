import { describe, expect, it } from 'vitest'
import {
  joinPointer,
  loadDefinitionText,
  parseBytes,
  parseText,
  pointerSegments,
} from '../../../src/dsl/index.js'
import { thrown } from '../fixtures/match.js'

/** 1-based line and column of the first occurrence of `token` in `text`. */
function positionOf(text: string, token: string): { line: number; column: number } {
  const offset = text.indexOf(token)
  const before = text.slice(0, offset)
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') }
}

describe('parseText', () => {
  it('parses JSON', () => {
    expect(parseText('{"a": [1, true, null]}', 'x.json').value).toEqual({ a: [1, true, null] })
  })

  it('parses YAML', () => {
    expect(parseText('a:\n  - 1\n  - b: two\n', 'x.yaml').value).toEqual({ a: [1, { b: 'two' }] })
    expect(parseText('a: 1', 'x.yml').value).toEqual({ a: 1 })
  })

  it('parses a .yaml file written as JSON', () => {
    expect(parseText('{"a": 1}', 'x.yaml').value).toEqual({ a: 1 })
  })

  it('guesses the format of a file with another extension from its first character', () => {
    expect(parseText('  [1, 2]', 'mock.txt').value).toEqual([1, 2])
    expect(parseText('a: 1', 'mock').value).toEqual({ a: 1 })
  })

  it('skips a byte order mark in JSON and YAML', () => {
    expect(parseText('\uFEFF{"a": 1}', 'x.json').value).toEqual({ a: 1 })
    expect(parseText('\uFEFFa: 1', 'x.yaml').value).toEqual({ a: 1 })
    expect(parseText('\uFEFF[1]', 'x').value).toEqual([1])
  })

  it('resolves YAML anchors and aliases', () => {
    expect(parseText('base: &b {x: 1}\ncopy: *b\n', 'x.yaml').value).toEqual({
      base: { x: 1 },
      copy: { x: 1 },
    })
  })

  it('locates a JSON pointer in a JSON text', () => {
    const text = '{\n  "a": [\n    1,\n    {"b": 2}\n  ]\n}'
    const parsed = parseText(text, 'x.json')
    expect(parsed.locate('/a/1/b')).toEqual(positionOf(text, '2}'))
    expect(parsed.locate('')).toEqual({ line: 1, column: 1 })
  })

  it('locates a missing member at its nearest existing parent', () => {
    const text = 'a:\n  b: 1\n'
    expect(parseText(text, 'x.yaml').locate('/a/missing/deeper')).toEqual(positionOf(text, 'b: 1'))
  })

  it('locates members whose names need pointer escaping', () => {
    const text = 'a/b:\n  c~d: 1\n'
    expect(parseText(text, 'x.yaml').locate('/a~1b/c~0d')).toEqual(positionOf(text, '1'))
  })
})

describe('parse errors', () => {
  it.each([
    { label: 'a missing value', text: '{\n  "a": }', at: '}' },
    { label: 'a trailing comma in an array', text: '[\n  1,\n  2,\n]', at: ']' },
    { label: 'a trailing comma in an object', text: '{"a": 1,\n "b": 2,\n}', at: '}' },
    { label: 'a misspelt literal', text: '{"a":\n  tru}', at: 'tru' },
    { label: 'a missing comma', text: '{\n"a": [1,\n  2 3]}', at: '3' },
    { label: 'an unquoted key', text: '{\n  a: 1}', at: 'a:' },
    { label: 'trailing content', text: '{"a": 1}\n  ]', at: ']' },
  ])('name the line and column of $label in JSON', ({ text, at }) => {
    const err = thrown(() => parseText(text, 'bad.json'))
    const where = positionOf(text, at)
    expect(err).toMatchObject({
      code: 'ERR_DSL_PARSE',
      statusCode: 400,
      details: [{ path: '', file: 'bad.json', ...where }],
    })
    expect(err.message).toContain(`bad.json`)
    expect(err.message).toContain(`(line ${where.line}, column ${where.column})`)
  })

  it('name the end of the text for truncated JSON', () => {
    const err = thrown(() => parseText('{\n  "a": [1,', 'cut.json'))
    expect(err).toMatchObject({
      code: 'ERR_DSL_PARSE',
      details: [{ file: 'cut.json', line: 2, column: 11 }],
    })
    expect(thrown(() => parseText('', 'empty.json'))).toMatchObject({
      code: 'ERR_DSL_PARSE',
      details: [{ line: 1, column: 1 }],
    })
  })

  it('name the line and column of invalid YAML', () => {
    const text = 'a: 1\nb: [1, 2\nc: 3\n'
    const err = thrown(() => parseText(text, 'bad.yaml'))
    expect(err).toMatchObject({
      code: 'ERR_DSL_PARSE',
      details: [
        { path: '', file: 'bad.yaml', line: expect.any(Number), column: expect.any(Number) },
      ],
    })
    expect(err.message).toMatch(/^Cannot parse bad\.yaml: /)
  })

  it('refuse duplicate keys in YAML at the duplicate', () => {
    const text = 'a: 1\nb: 2\na: 3\n'
    expect(thrown(() => parseText(text, 'dup.yaml'))).toMatchObject({
      code: 'ERR_DSL_PARSE',
      details: [{ file: 'dup.yaml', line: 3, column: 1 }],
    })
  })

  it('come out of loadDefinitionText too', () => {
    expect(thrown(() => loadDefinitionText('{"dsl": ', 'x.json'))).toMatchObject({
      code: 'ERR_DSL_PARSE',
    })
  })
})

describe('JSON pointers', () => {
  it('split and join with ~0 and ~1 escapes', () => {
    expect(pointerSegments('')).toEqual([])
    expect(pointerSegments('/a/0/b~1c/d~0e')).toEqual(['a', '0', 'b/c', 'd~e'])
    expect(joinPointer('/a', 'b/c~d')).toBe('/a/b~1c~0d')
    expect(joinPointer('', 3)).toBe('/3')
  })
})

describe('parseBytes', () => {
  it('parses JSON and YAML bytes as parseText parses their text', () => {
    expect(parseBytes(Buffer.from('{"a": [1, "é"]}'), 'x.json').value).toEqual({ a: [1, 'é'] })
    expect(parseBytes(Buffer.from('a:\n  - 1\n'), 'x.yaml').value).toEqual({ a: [1] })
    expect(parseBytes(Buffer.from('  [1, 2]'), 'mock.txt').value).toEqual([1, 2])
    expect(parseBytes(Buffer.from('a: 1'), 'mock').value).toEqual({ a: 1 })
  })

  it('skips a byte order mark in JSON and YAML', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf])
    expect(parseBytes(Buffer.concat([bom, Buffer.from('{"a": 1}')]), 'x.json').value).toEqual({
      a: 1,
    })
    expect(parseBytes(Buffer.concat([bom, Buffer.from('a: 1')]), 'x.yaml').value).toEqual({ a: 1 })
    expect(parseBytes(Buffer.concat([bom, Buffer.from('\n [1]')]), 'x').value).toEqual([1])
  })

  it('locates a JSON pointer from the bytes, after a byte order mark too', () => {
    const text = '{\n  "a": [\n    1,\n    {"b": 2}\n  ]\n}'
    const parsed = parseBytes(Buffer.from(`\uFEFF${text}`), 'x.json')
    expect(parsed.locate('/a/1/b')).toEqual(positionOf(text, '2}'))
  })

  it('names the line and column of a JSON syntax error', () => {
    const err = thrown(() => parseBytes(Buffer.from('{\n  "a": 1,\n}'), 'bad.json'))
    expect(err.code).toBe('ERR_DSL_PARSE')
    expect(err).toMatchObject({ details: [{ file: 'bad.json', line: 3, column: 1 }] })
  })

  it.each([
    ['a Latin-1 é', [0x7b, 0x0a, 0x22, 0x61, 0xe9, 0x22, 0x3a, 0x31, 0x7d], 2, 3, 'E9'],
    ['a stray continuation byte', [0x5b, 0x80, 0x5d], 1, 2, '80'],
    ['a truncated sequence at the end', [0x5b, 0x31, 0x5d, 0xe2, 0x82], 1, 4, 'E2'],
    ['an overlong form', [0x5b, 0xc0, 0xaf, 0x5d], 1, 2, 'C0'],
    ['an encoded surrogate', [0x5b, 0xed, 0xa0, 0x80, 0x5d], 1, 2, 'ED'],
  ])(
    'refuses bytes that are not UTF-8 (%s), naming the first bad byte',
    (_, bytes, line, column, hex) => {
      const err = thrown(() => parseBytes(Buffer.from(bytes), 'latin1.json'))
      expect(err.code).toBe('ERR_DSL_PARSE')
      expect(err.message).toContain(`byte 0x${hex} at line ${line}, column ${column}`)
      expect(err.message).toContain('save the file as UTF-8')
      expect(err.message).not.toContain('\n')
      expect(err).toMatchObject({ details: [{ file: 'latin1.json', line, column }] })
    },
  )

  it('accepts every well-formed sequence length', () => {
    expect(parseBytes(Buffer.from('["a", "é", "€", "𝄞"]'), 'x.json').value).toEqual([
      'a',
      'é',
      '€',
      '𝄞',
    ])
  })
})
