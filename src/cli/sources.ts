import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import picomatch from 'picomatch'
import {
  createError,
  isUnderstudyError,
  type ErrorDetail,
  type UnderstudyError,
} from '../errors/index.js'
import {
  keepAsOwnText,
  normalizeDocument,
  transactionCountError,
  type MockServiceDocument,
  type Transaction,
} from '../dsl/index.js'

/** What loading one file yields: the importers' result, reduced to what serving needs. */
export interface LoadedFile {
  document: MockServiceDocument
  warnings: Array<{ message: string; file?: string; at?: string }>
}

/** Reads one file into a document (the importers' `importFile`, injected by main.ts). */
export type FileLoader = (
  input: { bytes: Uint8Array; fileName: string },
  ctx: { readFile: (relativePath: string) => Uint8Array | undefined; maxBytes?: number },
) => LoadedFile

export interface SourceSelection {
  /** Files and directories given on the command line. */
  paths: readonly string[]
  include: readonly string[]
  exclude: readonly string[]
  /** Extensions (with the dot) that directory scans pick up. */
  extensions: readonly string[]
}

/** Folders a directory scan never enters. */
const skippedDirectories = new Set(['node_modules', '.git'])

/**
 * The files to load, sorted: files named on the command line as they are; directories scanned
 * recursively for supported extensions, skipping dot-entries, node_modules and companion files
 * (WireMock `__files/` bodies, the `-rsp.txt` half of a pair), filtered by the include/exclude
 * globs (picomatch, against the path relative to the directory, `/`-separated).
 * Throws ERR_CONFIG_FILE for a path that does not exist.
 *
 * @example
 * collectFiles({ paths: ['mocks'], include: [], exclude: ['**\/draft-*'], extensions: ['.yaml'] })
 */
export function collectFiles(selection: SourceSelection): string[] {
  const includes =
    selection.include.length > 0 ? picomatch([...selection.include], { dot: false }) : null
  const excludes =
    selection.exclude.length > 0 ? picomatch([...selection.exclude], { dot: true }) : null
  const files: string[] = []
  for (const given of selection.paths) {
    const path = resolve(given)
    let stats
    try {
      stats = statSync(path)
    } catch {
      throw createError('ERR_CONFIG_FILE', [given, 'no such file or directory'])
    }
    if (stats.isFile()) {
      files.push(path)
      continue
    }
    const found = walkDirectory(path)
    const present = new Set(found)
    for (const file of found) {
      const rel = relative(path, file).split(sep).join('/')
      if (!selection.extensions.some((ext) => file.toLowerCase().endsWith(ext))) continue
      if (isCompanion(rel, file, present)) continue
      if (includes !== null && !includes(rel)) continue
      if (excludes !== null && excludes(rel)) continue
      files.push(file)
    }
  }
  return [...new Set(files)].sort()
}

/**
 * Files that are read through another file, not on their own: WireMock bodies under `__files/`
 * (read by their mapping's bodyFileName) and the response half of a request/response pair (read
 * with its `-req.txt`).
 */
function isCompanion(rel: string, file: string, present: ReadonlySet<string>): boolean {
  if (rel.split('/').includes('__files')) return true
  const rsp = /-rsp\.txt$/i.exec(file)
  return (
    rsp !== null &&
    present.has(
      file.slice(0, rsp.index) +
        file.slice(rsp.index).replace(/rsp/i, (m) => (m === 'RSP' ? 'REQ' : 'req')),
    )
  )
}

/** A scanned directory deeper than this is more likely a mistake (a home directory) than mocks. */
const MAX_SCAN_DEPTH = 16

/**
 * Every file under `dir`, the one directory walker of the CLI (`serve`, `run` and `import`):
 * dot-entries and node_modules are skipped, and folders deeper than 16 levels are not entered.
 *
 * @example
 * walkDirectory('mocks') // ['/abs/mocks/a.yaml', '/abs/mocks/wiremock/mappings/b.json', ...]
 */
export function walkDirectory(dir: string, depth = 0): string[] {
  const out: string[] = []
  if (depth > MAX_SCAN_DEPTH) return out
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    if (entry.name.startsWith('.')) continue
    const full = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (!skippedDirectories.has(entry.name)) out.push(...walkDirectory(full, depth + 1))
    } else if (entry.isFile()) {
      out.push(full)
    }
  }
  return out
}

/** The loaded set: one document for all files, and what was said along the way. */
export interface LoadedSources {
  document: MockServiceDocument
  files: string[]
  warnings: Array<{ message: string; file?: string; at?: string }>
}

/**
 * Loads every file and merges them into one mock-service document. Transactions keep file order
 * (files sorted by path), so a later definition is newer and wins ties. Mock-service settings come
 * from the file that carries them (the last one, with a warning, when several do); a file's
 * `mockServiceTransactions` selects and re-prioritises its own transactions only. Collects the
 * problems of every file and throws one ERR_DSL_INVALID listing them all.
 */
export function loadSources(
  files: readonly string[],
  loadFile: FileLoader,
  options: LoadOptions = {},
): LoadedSources {
  const cwd = options.cwd ?? process.cwd()
  const named = options.named ?? new Set(files)
  const warnings: LoadedSources['warnings'] = []
  const strays: string[] = []
  const problems: ErrorDetail[] = []
  const transactions: Transaction[] = []
  let settings: MockServiceDocument | null = null
  let settingsFile = ''
  for (const file of files) {
    const shown = relative(cwd, file) || file
    let loaded: LoadedFile
    try {
      const bytes = readFileSync(file)
      loaded = loadFile(
        { bytes, fileName: shown },
        { readFile: (rel) => readSibling(dirname(file), rel) },
      )
    } catch (err) {
      // A file a directory scan found that is no mock document at all (notes, a package.json)
      // is passed over; one named on the command line, or a mock document with mistakes, is not.
      if (!named.has(file) && isUnderstudyError(err, 'ERR_IMPORT_FORMAT_UNKNOWN')) {
        strays.push(shown)
      } else problems.push(...problemsOf(err, shown))
      continue
    }
    // Appended one by one: spreading a list of 100,000s of arguments overflows the stack.
    for (const w of loaded.warnings) warnings.push({ ...w, file: w.file ?? shown })
    const doc = loaded.document
    for (const txn of selectedTransactions(doc)) transactions.push(txn)
    if (carriesSettings(doc)) {
      if (settings !== null) {
        warnings.push({
          message: `mock-service settings of ${settingsFile} are replaced by those of ${shown}`,
          file: shown,
        })
      }
      settings = doc
      settingsFile = shown
    }
  }
  if (strays.length > 0) warnings.push({ message: straysMessage(strays) })
  if (problems.length > 0) {
    throw createError(
      'ERR_DSL_INVALID',
      [problems.length === 1 ? '1 error' : `${problems.length} errors`],
      { details: problems },
    )
  }
  // Each file may be within the bound and all of them past it: refused before any check or compile.
  const tooMany = transactionCountError(transactions.length, '')
  if (tooMany !== null) throw tooMany
  dropDuplicateIds(transactions, settings, warnings)
  const document =
    settings === null
      ? normalizeDocument({}, transactions)
      : { ...settings, mockServiceTransactions: [], transactions }
  // A runtime serving it keeps this text instead of the merged document, and reads it again for
  // GET /config (the files may have changed on disk since).
  keepAsOwnText(document)
  return { document, files: [...files], warnings }
}

/** How `loadSources` reads the files. */
interface LoadOptions {
  /** Paths are shown relative to it (default: the working directory). */
  cwd?: string
  /**
   * The files named as such (`givenFiles`); the others came from directory scans, where a file
   * that is no mock document is skipped with a warning. Default: every file is named.
   */
  named?: ReadonlySet<string>
}

/**
 * The paths of a selection that are files (absolute), as `collectFiles` lists them: what the user
 * named, as opposed to what a directory scan found.
 *
 * @example
 * loadSources(collectFiles(selection), loadFile, { named: givenFiles(selection.paths) })
 */
export function givenFiles(paths: readonly string[]): Set<string> {
  const out = new Set<string>()
  for (const given of paths) {
    const path = resolve(given)
    try {
      if (statSync(path).isFile()) out.add(path)
    } catch {
      // collectFiles reports a missing path
    }
  }
  return out
}

/** At most this many skipped files are named in the warning; the count says the rest. */
const MAX_NAMED_STRAYS = 5

function straysMessage(strays: readonly string[]): string {
  const shown = strays.slice(0, MAX_NAMED_STRAYS).join(', ')
  const more =
    strays.length > MAX_NAMED_STRAYS ? ` and ${strays.length - MAX_NAMED_STRAYS} more` : ''
  const what =
    strays.length === 1
      ? '1 file that is not a mock document'
      : `${strays.length} files that are not mock documents`
  return `skipped ${what}: ${shown}${more} (--exclude GLOB leaves such files out without this warning)`
}

function readSibling(dir: string, rel: string): Uint8Array | undefined {
  const target = resolve(dir, rel)
  try {
    return readFileSync(target)
  } catch {
    return undefined
  }
}

function problemsOf(err: unknown, file: string): ErrorDetail[] {
  if (isUnderstudyError(err)) {
    const e: UnderstudyError = err
    if (e.details !== undefined && e.details.length > 0) {
      return e.details.map((d) => ({ ...d, file: d.file ?? file }))
    }
    return [{ path: '', message: e.message, file }]
  }
  const message = err instanceof Error ? err.message : String(err)
  return [{ path: '', message, file }]
}

/** A document's transactions as served: its `mockServiceTransactions` applied. */
function selectedTransactions(doc: MockServiceDocument): Transaction[] {
  if (doc.mockServiceTransactions.length === 0) return doc.transactions
  const byId = new Map(
    doc.transactions.filter((t) => t.id !== undefined).map((t) => [t.id as number, t]),
  )
  const out: Transaction[] = []
  for (const entry of doc.mockServiceTransactions) {
    const txn = byId.get(entry.txnId)
    if (txn === undefined) continue
    out.push(
      entry.priority === undefined
        ? txn
        : { ...txn, dsl: { ...txn.dsl, priority: entry.priority } },
    )
  }
  // The no-match transaction is served even when the selection leaves it out.
  const fallbackId = doc.noMatchingRequestTxnId
  const fallback = fallbackId === null ? undefined : byId.get(fallbackId)
  if (fallback !== undefined && !out.includes(fallback)) {
    out.unshift({ ...fallback, dsl: { ...fallback.dsl, priority: Number.MAX_SAFE_INTEGER } })
  }
  return out
}

/** True when a document sets something that changes how requests are answered (a name does not). */
function carriesSettings(doc: MockServiceDocument): boolean {
  return (
    doc.thinkTime !== null ||
    doc.capacity !== null ||
    doc.replicas !== null ||
    doc.noMatchingRequestPreference !== 'return404' ||
    doc.liveSystemHost !== null ||
    doc.id !== undefined ||
    doc.cors !== undefined ||
    doc.faults !== undefined ||
    doc.templateSeed !== undefined ||
    doc.validateRequests === true ||
    doc.matchHost === true
  )
}

/**
 * Ids must be unique in one document; across files they may clash. Later duplicates lose their
 * id (with a warning), except the no-match transaction's, which the settings refer to.
 */
function dropDuplicateIds(
  transactions: Transaction[],
  settings: MockServiceDocument | null,
  warnings: LoadedSources['warnings'],
): void {
  const seen = new Set<number>()
  const keep = settings?.noMatchingRequestTxnId ?? null
  transactions.forEach((txn, i) => {
    if (txn.id === undefined) return
    if (!seen.has(txn.id)) {
      seen.add(txn.id)
      return
    }
    if (txn.id === keep) return
    warnings.push({
      message: `transaction id ${txn.id} appears in more than one file; the copy named "${txn.name}" is served without an id`,
    })
    const { id: _dropped, ...rest } = txn
    transactions[i] = rest
  })
}
