import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { importFile } from '../../importers/index.js'
import { loadRunDocument } from '../../src/cli/run-document.js'
import { tempDir } from '../helpers/temp-dir.js'

// A mock file saved in Latin-1 (é as the single byte 0xE9) was served by `run --mock` with U+FFFD
// in place of each such byte: a path `/café` became `/caf\uFFFD`, which no request matches, and
// nothing said why. It is refused now, naming the byte, its line and its column.
const latin1 = Buffer.concat([
  Buffer.from('{"transactions": [\n  {"dsl": {"requestDsl": {"path": "/caf'),
  Buffer.from([0xe9]),
  Buffer.from('"}, "responseDsl": {"status": 200}}}\n]}'),
])

describe('run --mock, a DSL file that is not UTF-8', () => {
  it('is refused naming the first bad byte, not served with U+FFFD', async () => {
    const file = join(tempDir(), 'latin1.json')
    writeFileSync(file, latin1)
    await expect(loadRunDocument(file)).rejects.toMatchObject({
      code: 'ERR_DSL_PARSE',
      message: expect.stringContaining(
        'is not UTF-8 text: byte 0xE9 at line 2, column 40',
      ) as unknown,
    })
  })

  it('still reads a UTF-8 file with the same character', async () => {
    const file = join(tempDir(), 'utf8.json')
    writeFileSync(
      file,
      '{"transactions": [{"dsl": {"requestDsl": {"path": "/café"}, "responseDsl": {"status": 200}}}]}',
    )
    const document = await loadRunDocument(file)
    expect(document.transactions).toHaveLength(1)
  })
})

// `serve` and uploads read DSL files through the importers, which decoded them the same lossy way.
describe('the importers, a DSL file that is not UTF-8', () => {
  it('is refused naming the first bad byte, as run --mock refuses it', () => {
    expect(() => importFile({ bytes: latin1, fileName: 'latin1.json' })).toThrow(
      /is not UTF-8 text: byte 0xE9 at line 2, column 40/,
    )
  })

  it('still reads a UTF-16 file with a byte order mark', () => {
    const text = '{"requestDsl": {"path": "/café"}, "responseDsl": {"status": 200}}'
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])
    expect(importFile({ bytes, fileName: 'utf16.json' }).document.transactions).toHaveLength(1)
  })
})
