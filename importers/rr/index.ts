import type { ErrorDetail } from '../../src/errors/index.js'
import { finishDrafts, resultOf, type Draft } from '../shared/build.js'
import { importInvalid } from '../shared/errors.js'
import type { ImportContext, ImportInput, ImportResult, ImportWarning } from '../types.js'
import { readPair } from './pair.js'

const PAIR_FILE = /^(.*)-(req|rsp)\.txt$/i

/**
 * The pair a file belongs to: `orders/create-req.txt` is the request side of pair
 * `orders/create`. Null for any other name.
 *
 * @example
 * rrPairOf('login-rsp.txt') // { name: 'login', side: 'rsp' }
 */
export function rrPairOf(path: string): { name: string; side: 'req' | 'rsp' } | null {
  const m = PAIR_FILE.exec(path)
  if (m === null || m[1] === undefined || m[1] === '' || m[1].endsWith('/')) return null
  return { name: m[1], side: (m[2] ?? '').toLowerCase() === 'req' ? 'req' : 'rsp' }
}

/**
 * Imports request/response pairs: `NAME-req.txt` holds a raw HTTP/1.1 request, `NAME-rsp.txt` the
 * raw response. `files` maps paths (zip entries, or paths relative to a scanned directory) to
 * bytes, so that a zip and a directory listing take the same road. Each pair becomes one
 * transaction named `NAME`, in order of name. A malformed or incomplete pair is a warning naming
 * it when others import, and ERR_IMPORT_INVALID listing every problem when none does.
 *
 * @example
 * const files = new Map([['login-req.txt', reqBytes], ['login-rsp.txt', rspBytes]])
 * importRrPairs(files, { source: 'pairs.zip' }).document.transactions[0].name // 'login'
 */
export function importRrPairs(
  files: ReadonlyMap<string, Uint8Array>,
  options: { source?: string } = {},
): ImportResult {
  const source = options.source ?? 'RR pairs'
  const warnings: ImportWarning[] = []
  const problems: ErrorDetail[] = []
  const pairs = new Map<string, { req?: string; rsp?: string }>()
  for (const path of files.keys()) {
    const pair = rrPairOf(path)
    if (pair === null) {
      warnings.push({
        message:
          'is not part of a request/response pair (expected NAME-req.txt and NAME-rsp.txt); ignored',
        file: path,
      })
      continue
    }
    const entry = pairs.get(pair.name) ?? {}
    entry[pair.side] = path
    pairs.set(pair.name, entry)
  }
  const drafts: Draft[] = []
  for (const name of [...pairs.keys()].sort()) {
    const { req, rsp } = pairs.get(name) ?? {}
    const reqBytes = req === undefined ? undefined : files.get(req)
    const rspBytes = rsp === undefined ? undefined : files.get(rsp)
    if (
      req === undefined ||
      rsp === undefined ||
      reqBytes === undefined ||
      rspBytes === undefined
    ) {
      const present = req ?? rsp ?? name
      const missing = req === undefined ? `${name}-req.txt` : `${name}-rsp.txt`
      problems.push({
        path: '',
        file: present,
        message: `pair ${name} is incomplete: ${missing} is missing`,
      })
      continue
    }
    const outcome = readPair(reqBytes, req, rspBytes, rsp)
    if ('error' in outcome) {
      problems.push({
        path: '',
        file: outcome.file,
        line: outcome.line,
        message: `pair ${name}: ${outcome.file} ${outcome.error}`,
      })
      continue
    }
    for (const note of outcome.notes) warnings.push({ message: `pair ${name}: ${note}`, file: req })
    drafts.push({ name, dsl: outcome.dsl, pointer: req, label: `pair ${name}` })
  }
  if (drafts.length === 0) {
    if (problems.length === 0) {
      throw importInvalid(
        source,
        'contains no request/response pair (expected NAME-req.txt and NAME-rsp.txt)',
      )
    }
    const first = problems[0]
    const where = first?.line === undefined ? '' : `:${first.line}`
    throw importInvalid(
      source,
      `no pair could be imported: ${first?.file ?? ''}${where} ${first?.message ?? ''}`.trim(),
      problems,
    )
  }
  for (const p of problems) {
    warnings.push({
      message: `${p.message}${p.line === undefined ? '' : ` (line ${p.line})`}; skipped`,
      file: p.file ?? source,
    })
  }
  const transactions = finishDrafts(drafts, { file: source, warnings })
  return resultOf('rr', 'RR_PAIR', transactions, warnings)
}

/**
 * Imports the pair a request file (`NAME-req.txt`) belongs to, reading `NAME-rsp.txt` through
 * `ctx.readFile` (relative to the file's directory). The response half imports nothing (with a
 * warning) when its request half is beside it, so that a directory imported file by file yields
 * each pair once. A lone half is ERR_IMPORT_INVALID naming the missing one.
 *
 * @example
 * importRrFile({ bytes, fileName: 'mocks/login-req.txt' }, { readFile: (p) => readFileSync(join('mocks', p)) })
 */
export function importRrFile(input: ImportInput, ctx: ImportContext = {}): ImportResult {
  const pair = rrPairOf(input.fileName)
  if (pair === null) {
    throw importInvalid(
      input.fileName,
      'an RR pair file must be named NAME-req.txt or NAME-rsp.txt, with its other half beside it',
    )
  }
  const base = pair.name.split(/[\\/]/).pop() ?? pair.name
  const otherSide = pair.side === 'req' ? 'rsp' : 'req'
  // Keep the suffix's case as written (`-REQ.txt` pairs with `-RSP.txt`).
  const suffix = input.fileName.slice(pair.name.length + 1, pair.name.length + 4)
  const otherSuffix = suffix === suffix.toUpperCase() ? otherSide.toUpperCase() : otherSide
  const otherName = `${base}-${otherSuffix}.txt`
  const other = ctx.readFile?.(otherName)
  if (other === undefined) {
    throw importInvalid(
      input.fileName,
      `is one half of request/response pair ${base}; its other half ${otherName} was not found beside it`,
    )
  }
  if (pair.side === 'rsp') {
    // A directory scan that imports file by file meets both halves: the pair comes in once, with
    // its request half.
    return resultOf(
      'rr',
      'RR_PAIR',
      [],
      [
        {
          message: `is the response half of pair ${base}; the pair is imported with ${otherName}`,
          file: input.fileName,
        },
      ],
    )
  }
  // Keyed by base name: the transaction is named after the pair, not after the directory.
  const files = new Map<string, Uint8Array>([
    [`${base}-${suffix}.txt`, input.bytes],
    [otherName, other],
  ])
  return importRrPairs(files, { source: input.fileName })
}
