import { unzipSync } from 'fflate'
import { createError, isUnderstudyError } from '../../src/errors/index.js'
import { importInvalid } from './errors.js'

/**
 * Most entries an archive may hold: a listing longer than this is not a mock definition.
 *
 * @example
 * if (count > MAX_ARCHIVE_ENTRIES) throw importInvalid(name, 'too many entries')
 */
export const MAX_ARCHIVE_ENTRIES = 10_000

/**
 * Normalizes an entry or relative path: forward slashes, no `.` segments, `..` resolved; null
 * when it climbs above the root or is absolute (a "zip slip" name).
 *
 * @example
 * normalizeEntryPath('a/./b/../c.json') // 'a/c.json'
 */
export function normalizeEntryPath (path: string): string | null {
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
 * Unzips an archive into entry path -> bytes, refusing zip bombs before inflating anything: the
 * declared uncompressed sizes must add up to at most `maxBytes` (fflate inflates each entry into a
 * buffer of its declared size, so a lying header yields a truncated entry, never more memory).
 * Directories, macOS resource forks (`__MACOSX/`, `._*`) and unsafe names are left out.
 *
 * @example
 * unzipEntries(zipBytes, 'mocks.zip', 100 * 1024 * 1024) // Map { 'mappings/a.json' => Uint8Array }
 */
export function unzipEntries (bytes: Uint8Array, fileName: string, maxBytes: number): Map<string, Uint8Array> {
  let total = 0
  let count = 0
  let raw: Record<string, Uint8Array>
  try {
    raw = unzipSync(bytes, {
      filter: (file) => {
        if (file.name.endsWith('/')) return false
        count++
        if (count > MAX_ARCHIVE_ENTRIES) {
          throw importInvalid(fileName, `holds more than ${MAX_ARCHIVE_ENTRIES} entries`)
        }
        total += file.originalSize
        if (total > maxBytes) throw createError('ERR_IMPORT_TOO_LARGE', [`${fileName} (uncompressed)`, maxBytes])
        return true
      },
    })
  } catch (err) {
    if (isUnderstudyError(err)) throw err
    const reason = err instanceof Error ? err.message : String(err)
    throw importInvalid(fileName, `is not a readable zip archive (${reason})`)
  }
  const out = new Map<string, Uint8Array>()
  for (const [name, data] of Object.entries(raw)) {
    const path = normalizeEntryPath(name)
    if (path === null || path === '' || path.startsWith('__MACOSX/') || /(^|\/)\._/.test(path)) continue
    out.set(path, data)
  }
  return out
}
