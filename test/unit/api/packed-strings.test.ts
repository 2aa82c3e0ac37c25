import { describe, expect, it } from 'vitest'
import {
  PackedReader,
  PackedWriter,
  packStrings,
} from '../../../src/api/v1/upload/packed-strings.js'

// The drafts of a large upload travel from the import worker as packed chunks: every
// string must read back exactly, in order, whatever chunk it landed in.
describe('packed strings', () => {
  it('reads back strings, nulls and multi-byte text in order', () => {
    const values = ['a', null, '', 'é', '日本語', '😀 emoji', '{"dsl":{"a":1}}']
    const reader = new PackedReader(packStrings(values))
    expect(values.map(() => reader.next())).toEqual(values)
    expect(() => reader.next()).toThrow(RangeError)
  })

  it('spreads many strings over several chunks, none split across two, and gives bytes as they were written', () => {
    const writer = new PackedWriter()
    const values: string[] = []
    for (let i = 0; i < 40_000; i++) {
      values.push(`${i}:${'x'.repeat(i % 500)}${i % 7 === 0 ? 'ü' : ''}`)
    }
    // a string longer than a chunk gets a chunk of its own
    values.push('y'.repeat(9 * 1024 * 1024))
    values.push('after the long one')
    for (const v of values) writer.add(v)
    const chunks = writer.done()
    expect(chunks.length).toBeGreaterThan(1)
    for (const chunk of chunks) {
      expect(chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength).toBe(true)
    }
    const reader = new PackedReader(chunks)
    for (const v of values) expect(reader.bytes()?.toString('utf8')).toBe(v)
  })
})
