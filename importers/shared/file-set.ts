import { formatDetail, isUnderstudyError, type ErrorDetail } from '../../src/errors/index.js'
import { rrPairOf, importRrPairs } from '../rr/index.js'
import type { ImportContext, ImportInput, ImportResult, ImportWarning } from '../types.js'
import { normalizeEntryPath } from './archive.js'
import { detectFormat } from './detect.js'
import { importInvalid } from './errors.js'
import { mergeResults, type MergedImportResult } from './merge.js'

/** Imports one file of the set; `importFile` of importers/index.ts. */
type ImportOne = (input: ImportInput, ctx: ImportContext) => ImportResult

/** File types looked at in a set; others (README.md, images) are skipped with a warning. */
const importable = /\.(json|ya?ml|har|txt)$/i
const OPENAPI_INDEX = /^(?:(.*)\/)?index\.(json|ya?ml)$/i

/**
 * Imports a set of files, the entries of a zip or the files of a directory (paths relative to its
 * root), as one document:
 * - `NAME-req.txt` / `NAME-rsp.txt` files are grouped into RR pairs;
 * - the shallowest `index.json|yaml|yml` that is OpenAPI is the main file of an OpenAPI archive:
 *   the other JSON/YAML files are its `$ref` targets, served through `ctx.readFile`, and are not
 *   imported on their own unless they are another supported format;
 * - files under a `__files/` folder are WireMock bodies, read through `ctx.readFile`;
 * - every other .json/.yaml/.yml/.har/.txt file is detected and imported.
 * Results are merged in path order (later entries after earlier, so they win among equal
 * priorities). A file that fails becomes a warning naming it; when nothing imports, the set fails
 * with ERR_IMPORT_INVALID listing why. ERR_IMPORT_TOO_LARGE always stops the import.
 *
 * @example
 * importFileSet(new Map([['mappings/a.json', bytes]]), 'stubs.zip', {}, importFile)
 */
export function importFileSet(
  files: ReadonlyMap<string, Uint8Array>,
  source: string,
  ctx: ImportContext,
  importOne: ImportOne,
): MergedImportResult {
  const warnings: ImportWarning[] = []
  const failures: ErrorDetail[] = []
  const paths = [...files.keys()].sort()
  const readerFor =
    (path: string) =>
    (relative: string): Uint8Array | undefined => {
      const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/') + 1) : ''
      const target = normalizeEntryPath(dir + relative)
      return target === null ? undefined : files.get(target)
    }
  const context = (path: string): ImportContext => {
    const out: ImportContext = { readFile: readerFor(path) }
    if (ctx.maxBytes !== undefined) out.maxBytes = ctx.maxBytes
    return out
  }

  const openApiIndex = findOpenApiIndex(paths, files)
  const units: Array<{ file: string; run: () => ImportResult }> = []
  const pairs = new Map<string, Uint8Array>()
  for (const path of paths) {
    const bytes = files.get(path) ?? new Uint8Array(0)
    if (/(^|\/)__files\//.test(path)) continue
    if (rrPairOf(path) !== null) {
      pairs.set(path, bytes)
      continue
    }
    if (/\.zip$/i.test(path)) {
      warnings.push({ message: 'nested archives are not imported; skipped', file: path })
      continue
    }
    if (!importable.test(path)) {
      warnings.push({
        message: 'is not a .json, .yaml, .yml, .har or .txt file; skipped',
        file: path,
      })
      continue
    }
    if (openApiIndex !== undefined && path !== openApiIndex && isOpenApiPart(path, bytes)) continue
    units.push({ file: path, run: () => importOne({ bytes, fileName: path }, context(path)) })
  }
  if (pairs.size > 0) {
    const first = [...pairs.keys()][0] ?? source
    units.push({ file: first, run: () => importRrPairs(pairs, { source }) })
  }
  units.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))

  const done: Array<{ file: string; result: ImportResult }> = []
  for (const unit of units) {
    try {
      done.push({ file: unit.file, result: unit.run() })
    } catch (err) {
      if (!isUnderstudyError(err) || err.code === 'ERR_IMPORT_TOO_LARGE') throw err
      const detail = err.details?.[0]
      const where = detail === undefined ? '' : ` (${formatDetail(detail)})`
      failures.push({ path: '', file: unit.file, message: `${err.message}${where}` })
      warnings.push({ message: `not imported: ${err.message}${where}`, file: unit.file })
    }
  }
  if (done.length === 0) {
    if (failures.length === 0) {
      throw importInvalid(
        source,
        'contains no file that can be imported (.json, .yaml, .yml, .har, or NAME-req.txt / NAME-rsp.txt pairs)',
      )
    }
    throw importInvalid(
      source,
      `no file could be imported: ${failures
        .map((f) => `${f.file ?? ''}: ${f.message}`)
        .slice(0, 3)
        .join('; ')}`,
      failures,
    )
  }
  return mergeResults(done, warnings)
}

/** The shallowest `index.(json|yaml|yml)` that is an OpenAPI document, if any. */
function findOpenApiIndex(
  paths: string[],
  files: ReadonlyMap<string, Uint8Array>,
): string | undefined {
  const candidates = paths
    .filter((p) => OPENAPI_INDEX.test(p))
    .sort((a, b) => a.split('/').length - b.split('/').length)
  for (const path of candidates) {
    if (detectSafely(path, files.get(path)) === 'openapi') return path
  }
  return undefined
}

/** With an OpenAPI index, a JSON/YAML file that is no format of its own (or another OpenAPI part) is a `$ref` target. */
function isOpenApiPart(path: string, bytes: Uint8Array): boolean {
  if (!/\.(json|ya?ml)$/i.test(path)) return false
  const format = detectSafely(path, bytes)
  return format === undefined || format === 'openapi'
}

function detectSafely(path: string, bytes: Uint8Array | undefined): string | undefined {
  if (bytes === undefined) return undefined
  try {
    return detectFormat({ bytes, fileName: path })
  } catch {
    return undefined
  }
}
