import { inflateRawSync } from 'node:zlib'
import { unzipSync } from 'fflate'
import { isUnderstudyError } from '../../src/errors/index.js'
import { importInvalid } from './errors.js'
import { tooLarge } from './text.js'

/**
 * Most entries an archive may hold: a listing longer than this is not a mock definition.
 *
 * @example
 * if (count > MAX_ARCHIVE_ENTRIES) throw importInvalid(name, 'too many entries')
 */
const MAX_ARCHIVE_ENTRIES = 10_000

/**
 * Normalizes an entry or relative path: forward slashes, no `.` segments, `..` resolved; null
 * when it climbs above the root or is absolute (a "zip slip" name).
 *
 * @example
 * normalizeEntryPath('a/./b/../c.json') // 'a/c.json'
 */
export function normalizeEntryPath(path: string): string | null {
  const unified = path.replace(/\\/g, '/')
  if (unified.startsWith('/') || /^[A-Za-z]:/.test(unified)) return null
  const out: string[] = []
  for (const segment of unified.split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') {
      if (out.length === 0) return null
      out.pop()
    } else {
      out.push(segment)
    }
  }
  return out.join('/')
}

/**
 * Unzips an archive into entry path -> bytes, refusing zip bombs by the bytes actually produced:
 * every entry is inflated by Node's zlib with `maxOutputLength` set to what is left of `maxBytes`,
 * so inflating stops as soon as the archive's total output passes the limit, whatever the entry
 * headers declare (a 9 MB entry that declares 100 bytes and inflates to 2 GiB is refused after
 * `maxBytes`, in a fraction of a second). The declared sizes are also summed first, so that an
 * honest archive over the limit is refused before anything is inflated. The central directory is
 * read by fflate (structure only; its own inflater is about fifty times slower than zlib on such
 * bombs). Directories, macOS resource forks (`__MACOSX/`, `._*`) and unsafe names are left out.
 *
 * @example
 * unzipEntries(zipBytes, 'mocks.zip', 100 * 1024 * 1024) // Map { 'mappings/a.json' => Uint8Array }
 */
export function unzipEntries(
  bytes: Uint8Array,
  fileName: string,
  maxBytes: number,
): Map<string, Uint8Array> {
  let declared = 0
  const wanted: Array<{ name: string; compression: number; size: number }> = []
  try {
    // Structure only: the filter sees every entry of the central directory and keeps none, so
    // fflate inflates nothing.
    unzipSync(bytes, {
      filter: (file) => {
        if (file.name.endsWith('/')) return false
        if (wanted.length === MAX_ARCHIVE_ENTRIES) {
          throw importInvalid(fileName, `holds more than ${MAX_ARCHIVE_ENTRIES} entries`)
        }
        declared += file.originalSize
        if (declared > maxBytes) throw tooLarge(`${fileName} (uncompressed)`, maxBytes)
        wanted.push({ name: file.name, compression: file.compression, size: file.size })
        return false
      },
    })
  } catch (err) {
    if (isUnderstudyError(err)) throw err
    throw importInvalid(fileName, `is not a readable zip archive (${messageOf(err)})`)
  }
  const compressed = compressedEntries(bytes, fileName)
  let produced = 0
  const out = new Map<string, Uint8Array>()
  for (const entry of wanted) {
    const path = normalizeEntryPath(entry.name)
    if (path === null || path === '' || path.startsWith('__MACOSX/') || /(^|\/)\._/.test(path)) {
      continue
    }
    const data = compressed.get(entry.name)
    if (data === undefined) {
      throw importInvalid(fileName, `is not a readable zip archive (entry ${entry.name} not found)`)
    }
    const left = maxBytes - produced
    let content: Uint8Array
    if (data.compression === 0) {
      content = data.bytes
      if (content.byteLength > left) throw tooLarge(`${fileName} (uncompressed)`, maxBytes)
    } else if (data.compression === 8) {
      try {
        // One more byte than is left: reaching it proves the limit is passed.
        content = inflateRawSync(data.bytes, { maxOutputLength: Math.max(1, left + 1) })
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
          throw tooLarge(`${fileName} (uncompressed)`, maxBytes)
        }
        throw importInvalid(
          fileName,
          `is not a readable zip archive (entry ${entry.name}: ${messageOf(err)})`,
        )
      }
      if (content.byteLength > left) throw tooLarge(`${fileName} (uncompressed)`, maxBytes)
    } else {
      throw importInvalid(
        fileName,
        `is not a readable zip archive (entry ${entry.name} uses compression method ${data.compression})`,
      )
    }
    produced += content.byteLength
    out.set(path, content)
  }
  return out
}

/** An entry's stored bytes, as the central directory locates them. */
interface CompressedEntry {
  compression: number
  bytes: Uint8Array
}

/**
 * The compressed bytes of every entry, by name, located through the central directory (sizes
 * there are right even when the local header defers them to a data descriptor); ZIP64 sizes and
 * offsets are read from their extra field.
 */
function compressedEntries(bytes: Uint8Array, fileName: string): Map<string, CompressedEntry> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const broken = (why: string): Error =>
    importInvalid(fileName, `is not a readable zip archive (${why})`)
  let eocd = bytes.length - 22
  while (eocd >= 0 && view.getUint32(eocd, true) !== 0x06054b50) eocd--
  if (eocd < 0) throw broken('no end of central directory')
  let count = view.getUint16(eocd + 10, true)
  let at = view.getUint32(eocd + 16, true)
  if (at === 0xffffffff || count === 0xffff) {
    // ZIP64 end of central directory, through its locator just before the classic record.
    const locator = eocd - 20
    if (locator < 0 || view.getUint32(locator, true) !== 0x07064b50) {
      throw broken('bad ZIP64 locator')
    }
    const z64 = Number(view.getBigUint64(locator + 8, true))
    if (z64 + 56 > bytes.length || view.getUint32(z64, true) !== 0x06064b50) {
      throw broken('bad ZIP64 record')
    }
    count = Number(view.getBigUint64(z64 + 32, true))
    at = Number(view.getBigUint64(z64 + 48, true))
  }
  const decoder = new TextDecoder()
  const out = new Map<string, CompressedEntry>()
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50) {
      throw broken('bad central directory')
    }
    const flags = view.getUint16(at + 8, true)
    const compression = view.getUint16(at + 10, true)
    let size = view.getUint32(at + 20, true)
    const nameLength = view.getUint16(at + 28, true)
    const extraLength = view.getUint16(at + 30, true)
    const commentLength = view.getUint16(at + 32, true)
    let offset = view.getUint32(at + 42, true)
    const nameBytes = bytes.subarray(at + 46, at + 46 + nameLength)
    // fflate decodes names as UTF-8 when flag 11 says so, else as Latin-1 (CP437 in theory).
    const name =
      (flags & 0x800) !== 0 ? decoder.decode(nameBytes) : String.fromCharCode(...nameBytes)
    let extra = at + 46 + nameLength
    const extraEnd = extra + extraLength
    while (extra + 4 <= extraEnd) {
      const id = view.getUint16(extra, true)
      const length = view.getUint16(extra + 2, true)
      if (id === 0x0001) {
        let field = extra + 4
        if (view.getUint32(at + 24, true) === 0xffffffff) field += 8
        if (size === 0xffffffff) {
          size = Number(view.getBigUint64(field, true))
          field += 8
        }
        if (offset === 0xffffffff) offset = Number(view.getBigUint64(field, true))
      }
      extra += 4 + length
    }
    if (offset + 30 > bytes.length || view.getUint32(offset, true) !== 0x04034b50) {
      throw broken(`bad local header of ${name}`)
    }
    const start =
      offset + 30 + view.getUint16(offset + 26, true) + view.getUint16(offset + 28, true)
    if (start + size > bytes.length) throw broken(`entry ${name} is cut short`)
    out.set(name, { compression, bytes: bytes.subarray(start, start + size) })
    at = extraEnd + commentLength
  }
  return out
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
