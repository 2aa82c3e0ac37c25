import { documentOf, loadDefinitionText, type TransactionInput } from '../src/dsl/index.js'
import { importHar, readHarStreamed } from './har/index.js'
import type { StreamedImport } from './har/entries.js'
import { importMockoon } from './mockoon/index.js'
import { importOpenApi } from './openapi/index.js'
import { importPostman } from './postman/index.js'
import { importRrFile } from './rr/index.js'
import { unzipEntries } from './shared/archive.js'
import { detectFormat, isZip } from './shared/detect.js'
import { guardImport } from './shared/errors.js'
import { importFileSet } from './shared/file-set.js'
import type { MergedImportResult } from './shared/merge.js'
import { DEFAULT_MAX_BYTES, dslText, tooLarge } from './shared/text.js'
import { importTransactions } from './transactions/index.js'
import type { ImportContext, ImportFormat, ImportInput, ImportResult } from './types.js'
import { importWireMock } from './wiremock/index.js'

/**
 * The public entry point of the importers: detection, size limits, archives and directories, and
 * dispatch to one importer per format. Used by `understudy serve` and `understudy import`, and by
 * the control plane's `POST /transactions/convert` and multipart uploads.
 */

export * from './types.js'
export { detectFormat }
export { finishImport, type FinishInput } from './shared/index.js'
export { importHar, importWireMock }

export { DEFAULT_MAX_BYTES, tooLarge }

/**
 * File extensions a directory scan should hand to `importFile` / `importFiles`.
 *
 * @example
 * supportedExtensions.includes(extname(name).toLowerCase())
 */
export const supportedExtensions: readonly string[] = [
  '.json',
  '.yaml',
  '.yml',
  '.har',
  '.zip',
  '.txt',
]

/** `importFile`'s context: the importer context, and a format that skips detection. */
type ImportFileOptions = ImportContext & { format?: ImportFormat }

/**
 * Imports one file: checks its size (ERR_IMPORT_TOO_LARGE above `ctx.maxBytes`, default 100 MiB),
 * detects its format by content unless `ctx.format` names it, and dispatches to that importer. A zip
 * goes to `importArchive`. A file under a `__files/` folder is a WireMock body and imports nothing
 * (with a warning), so that directory scans importing file by file can pass it in. Errors are
 * UnderstudyErrors naming the file: ERR_IMPORT_FORMAT_UNKNOWN, ERR_IMPORT_INVALID,
 * ERR_IMPORT_TOO_LARGE, or ERR_DSL_PARSE / ERR_DSL_INVALID for Understudy's own DSL.
 *
 * @example
 * const result = importFile({ bytes: readFileSync('stubs/mappings/a.json'), fileName: 'stubs/mappings/a.json' },
 *   { readFile: (rel) => readIfExists(join('stubs/mappings', rel)) })
 * result.format // 'wiremock'
 */
export function importFile(input: ImportInput, ctx: ImportFileOptions = {}): ImportResult {
  const maxBytes = ctx.maxBytes ?? DEFAULT_MAX_BYTES
  if (input.bytes.byteLength > maxBytes) throw tooLarge(input.fileName, maxBytes)
  return guardImport(input.fileName, () => dispatch(input, ctx, maxBytes))
}

/** Where `importStreamed` hands transactions as they are made. */
interface TransactionSink {
  /** A transaction, named, in recording order, not validated yet (finishImport's input). */
  add: (txn: TransactionInput) => void
  /** What was added is void: the file is imported whole instead, and its result returned. */
  drop: () => void
}

/**
 * `importFile` for a caller that stores transactions while the rest of the file is read (a
 * large upload: src/api/import-worker.ts): a large HAR read an entry at a time hands each
 * transaction to `sink` as it is made, and gives at the end its warnings and the order the
 * transactions take (`streamed`, a StreamedImport). When such a file must be read whole after
 * all, the sink is told to `drop` what it got, and the usual `result` follows, as for every
 * other file.
 *
 * @example
 * const imported = importStreamed(input, { maxBytes }, { add: (txn) => run.push(txn), drop: () => run.splice(0) })
 */
export function importStreamed(
  input: ImportInput,
  ctx: ImportFileOptions,
  sink: TransactionSink,
): { result: ImportResult } | { streamed: StreamedImport } {
  if (
    input.bytes.byteLength <= (ctx.maxBytes ?? DEFAULT_MAX_BYTES) &&
    guardImport(input.fileName, () => routeOf(input, ctx)) === 'har'
  ) {
    const streamed = guardImport(input.fileName, () => readHarStreamed(input, sink.add))
    if (streamed !== null) return { streamed }
    sink.drop()
  }
  return { result: importFile(input, ctx) }
}

/**
 * Where `importFile` sends an input: an archive, a WireMock body file, or a format (named by
 * `ctx.format`, else detected). Detection parses a file once; the importer reuses that.
 */
function routeOf(
  input: ImportInput,
  ctx: ImportFileOptions,
): ImportFormat | 'zip' | 'wiremock body' {
  if (isZip(input.bytes)) return 'zip'
  if (ctx.format === undefined && isWireMockBody(input.fileName)) return 'wiremock body'
  return ctx.format ?? detectFormat(input)
}

function isWireMockBody(fileName: string): boolean {
  return /(^|[\\/])__files[\\/]/.test(fileName)
}

function dispatch(input: ImportInput, ctx: ImportFileOptions, maxBytes: number): ImportResult {
  const route = routeOf(input, ctx)
  const importerCtx: ImportContext = { maxBytes }
  if (ctx.readFile !== undefined) importerCtx.readFile = ctx.readFile
  switch (route) {
    case 'zip': {
      const result = importArchive(input.bytes, input.fileName, ctx)
      if (ctx.format !== undefined) {
        result.warnings.unshift({
          message: `is a zip archive; format ${ctx.format} is ignored and each entry is detected`,
          file: input.fileName,
        })
      }
      return result
    }
    case 'wiremock body': {
      // WireMock response bodies: read by the mappings that name them, never imported on their own
      // (a directory scan that imports file by file meets them too)
      const warning = {
        message:
          'is a WireMock body file (under __files/); it is served by the mappings that name it',
        file: input.fileName,
      }
      return {
        format: 'wiremock',
        dslType: 'WIREMOCK_DSL',
        document: documentOf([]),
        warnings: [warning],
      }
    }
    case 'dsl':
      return {
        format: 'dsl',
        dslType: 'GENERIC_DSL',
        document: loadDefinitionText(dslText(input.bytes, input.fileName), input.fileName),
        warnings: [],
      }
    case 'transactions':
      return importTransactions(input, importerCtx)
    case 'har':
      return importHar(input, importerCtx)
    case 'openapi':
      return importOpenApi(input, importerCtx)
    case 'rr':
      return importRrFile(input, importerCtx)
    case 'wiremock':
      return importWireMock(input, importerCtx)
    case 'postman':
      return importPostman(input, importerCtx)
    case 'mockoon':
      return importMockoon(input, importerCtx)
  }
}

/**
 * Imports a zip archive: the declared uncompressed total is limited to `ctx.maxBytes` (zip bombs
 * are refused before anything is inflated), then the entries are imported as a set (see
 * `importFiles`) and merged into one document. Warnings name the entry.
 *
 * @example
 * importArchive(readFileSync('wiremock.zip'), 'wiremock.zip').document.transactions.length
 */
export function importArchive(
  bytes: Uint8Array,
  fileName: string,
  ctx: ImportContext = {},
): MergedImportResult {
  const maxBytes = ctx.maxBytes ?? DEFAULT_MAX_BYTES
  if (bytes.byteLength > maxBytes) throw tooLarge(fileName, maxBytes)
  const entries = unzipEntries(bytes, fileName, maxBytes)
  return importFiles(entries, fileName, { maxBytes })
}

/**
 * Imports a set of files as one document: the files of a scanned directory (paths relative to it)
 * or the entries of an archive. RR pairs are grouped by name, an OpenAPI `index.(json|yaml)` takes
 * the other JSON/YAML files as its references, `__files/` holds WireMock bodies, and every other
 * supported file is detected and imported; results are merged in path order. Each file's
 * `ctx.readFile` reads other files of the set relative to its own folder.
 *
 * @example
 * importFiles(new Map([['login-req.txt', req], ['login-rsp.txt', rsp]]), 'mocks/').document.transactions[0].name // 'login'
 */
export function importFiles(
  files: ReadonlyMap<string, Uint8Array>,
  source: string,
  ctx: ImportContext = {},
): MergedImportResult {
  const maxBytes = ctx.maxBytes ?? DEFAULT_MAX_BYTES
  let total = 0
  for (const bytes of files.values()) total += bytes.byteLength
  if (total > maxBytes) throw tooLarge(source, maxBytes)
  return importFileSet(files, source, { maxBytes }, (input, entryCtx) =>
    importFile(input, entryCtx),
  )
}
export { openApiRequestValidator } from './openapi/request-checks.js'
