import { open, readFile, stat } from 'node:fs/promises'
import { readFileSync, statSync } from 'node:fs'
import { dirname, extname, relative, resolve, sep } from 'node:path'
import {
  documentOf,
  decodeContent,
  type MockServiceDocument,
  type Transaction,
} from '../../dsl/index.js'
import { createError } from '../../errors/index.js'
import { parseFlags } from '../flags.js'
import {
  DEFAULT_MAX_BYTES,
  tooLarge,
  importFile,
  importFiles,
  importFormats,
  supportedExtensions,
  type ImportFormat,
  type ImportResult,
  type ImportWarning,
} from '../../../importers/index.js'
import { documentYamlChunks } from '../document-yaml.js'
import { oneLine, reportFailure } from '../report.js'
import { walkDirectory } from '../sources.js'
import { exitCodes, UsageError } from '../usage-error.js'

/** Where the command writes. */
interface ImportCommandIo {
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream
}

/** `understudy import --help` and `understudy help import`. */
export const importHelp = `Usage: understudy import <file-or-directory> [--format F] [-o out.yaml]

Converts a HAR, OpenAPI, WireMock, Postman, RR-pair, exported-transactions or zip file into
Understudy's transaction DSL, printed as YAML (or written to -o; a .json name writes JSON).
A directory is imported as a set (WireMock mappings + __files, RR pairs, ...).

Options:
  -f, --format F   skip detection: ${importFormats.join(', ')}
  -o, --output P   write the DSL to P instead of stdout
  -h, --help       show this help
Exit codes: 0 imported (warnings go to stderr), 1 the input cannot be imported, 2 bad arguments.
`

/**
 * `understudy import <file> [--format F] [-o out.yaml]`: imports one file (or a directory as a
 * set) and prints the DSL as YAML, or writes it to `-o` (JSON when the name ends in `.json`).
 * Warnings go to stderr, one per line. Returns the exit code: 0 ok, 1 import error (one line naming
 * the file and position), 2 bad arguments (`understudy import: <reason>`).
 *
 * @example
 * const code = await runImportCommand(['stubs/mappings/a.json', '-o', 'mocks.yaml'], { stdout: process.stdout, stderr: process.stderr })
 */
export async function runImportCommand(args: string[], io: ImportCommandIo): Promise<number> {
  let options: { target: string; format?: ImportFormat; output?: string; help: boolean }
  let result: ImportResult
  try {
    options = parseCommandLine(args)
    if (options.help) {
      io.stdout.write(importHelp)
      return exitCodes.ok
    }
    result = await importTarget(options.target, options.format)
  } catch (err) {
    return reportFailure(err, 'understudy import', io)
  }
  for (const warning of result.warnings) io.stderr.write(`${formatWarning(warning)}\n`)
  const out = options.output
  const summary = (where: string): string => {
    const count = result.document.transactions.length
    const warnings = result.warnings.length
    return `imported ${count} transaction${count === 1 ? '' : 's'} (${result.format}) from ${options.target} ${where}, ${warnings} warning${warnings === 1 ? '' : 's'}\n`
  }
  const json = out !== undefined && extname(out).toLowerCase() === '.json'
  // Written piece by piece: the whole text of a 100,000-transaction document (and its copy
  // encoded for the write) would double the memory of the import.
  const pieces = outputChunks(result.document, json)
  if (out === undefined) {
    await writePieces(pieces, (text) => writeStream(io.stdout, text))
    io.stderr.write(summary('to standard output'))
    return exitCodes.ok
  }
  try {
    const file = await open(out, 'w')
    try {
      await writePieces(pieces, async (text) => {
        await file.write(text)
      })
    } finally {
      await file.close()
    }
  } catch (err) {
    io.stderr.write(`understudy import: cannot write ${out}: ${systemReason(err)}\n`)
    return exitCodes.failure
  }
  io.stderr.write(summary(`into ${out}`))
  return exitCodes.ok
}

/** Joins pieces into writes of about 1 MiB. */
async function writePieces(
  pieces: Iterable<string>,
  write: (text: string) => Promise<void>,
): Promise<void> {
  let batch: string[] = []
  let size = 0
  for (const piece of pieces) {
    batch.push(piece)
    size += piece.length
    if (size < 1024 * 1024) continue
    await write(batch.join(''))
    batch = []
    size = 0
  }
  if (batch.length > 0) await write(batch.join(''))
}

/** Writes to a stream, waiting for it to drain when its buffer is full. */
async function writeStream(stream: NodeJS.WritableStream, text: string): Promise<void> {
  if (stream.write(text)) return
  await new Promise<void>((resolve) => stream.once('drain', () => resolve()))
}

/**
 * The text of the document as YAML, or JSON as `JSON.stringify(doc, null, 2)` writes it, one
 * transaction per piece.
 */
function* outputChunks(doc: MockServiceDocument, json: boolean): Generator<string> {
  const fields = outputFields(doc)
  if (!json) {
    yield* documentYamlChunks(fields, doc.transactions, readableTransaction)
    return
  }
  const head = JSON.stringify({ ...fields, transactions: [] }, null, 2)
  if (doc.transactions.length === 0) {
    yield `${head}\n`
    return
  }
  yield `${head.slice(0, -'[]\n}'.length)}[\n`
  const last = doc.transactions.length - 1
  for (const [i, txn] of doc.transactions.entries()) {
    // JSON strings hold no raw newline: every newline is between members, to be indented
    yield `    ${JSON.stringify(readableTransaction(txn), null, 2).replace(/\n/g, '\n    ')}${i === last ? '\n' : ',\n'}`
  }
  yield '  ]\n}\n'
}

function parseCommandLine(args: string[]): {
  target: string
  format?: ImportFormat
  output?: string
  help: boolean
} {
  // parseFlags answers an unknown flag with the nearest known one; parseArgs' other errors
  // (ERR_PARSE_ARGS_*) are usage errors for reportFailure
  const { values, positionals } = parseFlags({
    args,
    allowPositionals: true,
    options: {
      format: { type: 'string', short: 'f' },
      output: { type: 'string', short: 'o' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help === true) return { target: '', help: true }
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0
        ? 'expected a file or directory to import'
        : `expected one file or directory, got ${positionals.length}: ${positionals.join(' ')}`,
    )
  }
  const out: { target: string; format?: ImportFormat; output?: string; help: boolean } = {
    target: positionals[0] ?? '',
    help: false,
  }
  if (values.format !== undefined) {
    const format = importFormats.find((f) => f === values.format?.toLowerCase())
    if (format === undefined) {
      throw new UsageError(
        `unknown format "${values.format}"; expected one of ${importFormats.join(', ')}`,
      )
    }
    out.format = format
  }
  if (values.output !== undefined) {
    if (values.output === '') throw new UsageError('-o needs a file name')
    out.output = values.output
  }
  return out
}

async function importTarget(
  target: string,
  format: ImportFormat | undefined,
): Promise<ImportResult> {
  let info
  try {
    info = await stat(target)
  } catch (err) {
    throw createError('ERR_CONFIG_FILE', [target, systemReason(err)])
  }
  if (info.isDirectory()) {
    if (format !== undefined) {
      throw new UsageError(
        '--format applies to a single file; the files of a directory are each detected',
      )
    }
    const files = await scanDirectory(target)
    return importFiles(files, target.endsWith(sep) ? target : `${target}${sep}`)
  }
  if (info.size > DEFAULT_MAX_BYTES) throw tooLarge(target, DEFAULT_MAX_BYTES)
  let bytes: Buffer
  try {
    bytes = await readFile(target)
  } catch (err) {
    throw createError('ERR_CONFIG_FILE', [target, systemReason(err)])
  }
  const dir = dirname(resolve(target))
  return importFile(
    { bytes, fileName: target },
    {
      ...(format === undefined ? {} : { format }),
      // files a WireMock mapping or an OpenAPI $ref names, relative to the file's folder
      readFile: (rel) => readIfFile(resolve(dir, rel)),
    },
  )
}

function readIfFile(path: string): Uint8Array | undefined {
  try {
    const info = statSync(path)
    if (!info.isFile() || info.size > DEFAULT_MAX_BYTES) return undefined
    return readFileSync(path)
  } catch {
    return undefined
  }
}

/**
 * The importable files under a directory (and WireMock `__files/` bodies), keyed by relative path,
 * found by the CLI's one directory walker.
 */
async function scanDirectory(root: string): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>()
  let total = 0
  for (const full of walkDirectory(root)) {
    const rel = relative(root, full).split(sep).join('/')
    const wanted =
      supportedExtensions.includes(extname(full).toLowerCase()) || /(^|\/)__files\//.test(rel)
    if (!wanted) continue
    const bytes = await readFile(full)
    total += bytes.byteLength
    if (total > DEFAULT_MAX_BYTES) throw tooLarge(root, DEFAULT_MAX_BYTES)
    files.set(rel, bytes)
  }
  return files
}

/**
 * The document's settings as written out: only where they differ from the defaults. Its
 * transactions are written through `readableTransaction`.
 */
function outputFields(doc: MockServiceDocument): Record<string, unknown> {
  const defaults = documentOf([]) as unknown as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'transactions') continue
    if (JSON.stringify(value) !== JSON.stringify(defaults[key])) out[key] = value
  }
  return out
}

/** Bodies with a known content type are shown as `text` instead of base64 when that loads back identically. */
function readableTransaction(txn: Transaction): Transaction | Record<string, unknown> {
  const r = txn.dsl.responseDsl
  if (r.content === undefined || r.contentType === undefined || r.binary === true) return txn
  const bytes = decodeContent(r.content)
  const text = bytes.toString('utf8')
  // `text` loads back as the same bytes only if they are valid UTF-8; control characters would make
  // the YAML unreadable, so such bodies stay base64
  if (Buffer.from(text, 'utf8').toString('base64') !== r.content || hasControlCharacters(text)) {
    return txn
  }
  const { content: _content, ...rest } = r
  return { ...txn, dsl: { ...txn.dsl, responseDsl: { ...rest, text } } }
}

function hasControlCharacters(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 32 && c !== 9 && c !== 10 && c !== 13) return true
  }
  return false
}

function formatWarning(w: ImportWarning): string {
  const where = [w.file, w.at === undefined || w.at === '' ? undefined : w.at]
    .filter((p) => p !== undefined)
    .join(' ')
  return `warning: ${where === '' ? '' : `${where}: `}${oneLine(w.message)}`
}

function systemReason(err: unknown): string {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : ''
  if (code === 'ENOENT') return 'no such file or directory'
  if (code === 'EACCES') return 'permission denied'
  return err instanceof Error ? err.message : String(err)
}
