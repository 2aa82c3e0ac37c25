import { strToU8, zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { thrown } from '../../helpers/errors.js'
import { normalizeEntryPath, unzipEntries } from '../../../importers/shared/archive.js'

// Zip archives as they come: stored entries, directory entries, Latin-1 and UTF-8 names, and
// archives whose headers are wrong, each refused with ERR_IMPORT_INVALID naming the problem.

/** Sets a 16- or 32-bit field at `offset` of every header with `signature`. */
function patch(zip: Uint8Array, signature: number, offset: number, value: number, bits: 16 | 32) {
  const out = Uint8Array.from(zip)
  const view = new DataView(out.buffer)
  for (let i = 0; i + 4 <= out.length; i++) {
    if (view.getUint32(i, true) !== signature) continue
    if (bits === 16) view.setUint16(i + offset, value, true)
    else view.setUint32(i + offset, value, true)
  }
  return out
}
const LOCAL = 0x04034b50
const CENTRAL = 0x02014b50

const stored = zipSync(
  { 'dir/': new Uint8Array(0), 'dir/a.json': strToU8('{"a":1}'), 'é.json': strToU8('x') },
  { level: 0 },
)

describe('zip entry paths', () => {
  it.each([
    ['/etc/passwd', null],
    ['C:/x', null],
    ['../x', null],
    ['a/../../x', null],
    ['a/./b//c', 'a/b/c'],
    ['a\\b\\..\\c', 'a/c'],
  ])('normalizes %s to %s', (path, normalized) => {
    expect(normalizeEntryPath(path)).toBe(normalized)
  })
})

describe('unzipEntries', () => {
  it('reads stored entries, skipping directories, with UTF-8 names', () => {
    const entries = unzipEntries(stored, 's.zip', 1000)
    expect([...entries.keys()]).toEqual(['dir/a.json', 'é.json'])
    expect(Buffer.from(entries.get('dir/a.json') ?? []).toString()).toBe('{"a":1}')
  })

  it('refuses a stored entry larger than its declared size once it passes the limit', () => {
    const lying = patch(stored, CENTRAL, 24, 1, 32)
    expect(thrown(() => unzipEntries(lying, 's.zip', 5))).toMatchObject({
      code: 'ERR_IMPORT_TOO_LARGE',
    })
  })

  it('refuses a compression method it cannot read, naming the entry and the method', () => {
    const bzip2 = patch(patch(stored, LOCAL, 8, 12, 16), CENTRAL, 10, 12, 16)
    const err = thrown(() => unzipEntries(bzip2, 'w.zip', 1000))
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toContain('entry dir/a.json uses compression method 12')
  })

  it('refuses an archive cut short or whose central directory points at no local header', () => {
    const zip = zipSync({ 'a.json': strToU8('{"a":1}'.repeat(50)) }, { level: 9 })
    const cut = thrown(() => unzipEntries(zip.subarray(0, 40), 'cut.zip', 100_000))
    expect(cut.code).toBe('ERR_IMPORT_INVALID')
    expect(cut.message).toContain('is not a readable zip archive')
    const moved = thrown(() => unzipEntries(patch(zip, CENTRAL, 42, 5, 32), 'o.zip', 100_000))
    expect(moved.code).toBe('ERR_IMPORT_INVALID')
    expect(moved.message).toContain('bad local header of a.json')
  })

  it('refuses an entry whose stored bytes run past the end of the archive', () => {
    const zip = zipSync({ 'a.json': strToU8('{"a":1}') }, { level: 0 })
    const err = thrown(() => unzipEntries(patch(zip, CENTRAL, 20, 10_000, 32), 'c.zip', 100_000))
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toContain('entry a.json is cut short')
  })
})
