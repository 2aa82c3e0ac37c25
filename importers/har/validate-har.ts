import { createRequire } from 'node:module'
import type { ErrorDetail } from '../../src/errors/index.js'
import { joinPointer } from '../../src/dsl/index.js'
import { detailAt, type Locate } from '../shared/index.js'

/** An error as har-validator's bundled ajv@6 reports it. */
interface AjvSixError {
  keyword: string
  /** JavaScript-style path: `.log.entries[3].request`, `['odd key']` for unusual names. */
  dataPath: string
  params: { missingProperty?: string; type?: string }
  message?: string
}

type Validate = (
  data: unknown,
  next: (err: { errors?: AjvSixError[] } | null, valid: boolean) => void,
) => boolean

interface HarValidatorAsync {
  har: Validate
  entry: Validate
}

// har-validator is CommonJS without type declarations. Its main entry (`lib/promise.js`) answers
// with a Promise; `lib/async.js` runs the same ajv@6 validator and calls its callback
// synchronously, which suits importers (synchronous pure functions). createRequire loads it from
// ESM without a declaration file; the interface above is the part we use.
const harValidator = createRequire(import.meta.url)(
  'har-validator/lib/async.js',
) as HarValidatorAsync

/** The verdict on a parsed HAR document. */
export interface HarCheck {
  /** Schema violations in fields the importer relies on: the file is rejected. */
  fatal: ErrorDetail[]
  /** Violations in fields the importer ignores or reads leniently (reported as one warning). */
  deviations: ErrorDetail[]
  /** Indexes of entries without a usable `response` (skipped with a warning). */
  withoutResponse: Set<number>
}

/**
 * Validates a parsed HAR document against the HAR 1.2 JSON Schema with har-validator and sorts
 * the violations. Real captures routinely break the schema in places that do not matter for a
 * mock (Chrome writes `serverIPAddress: "[::1]"`, Charles `redirectURL: null`, Polly.JS header
 * values as arrays, Firefox cache entries without `lastAccess`); rejecting them would reject most
 * real files. A violation is fatal only where the importer reads the value: the `log` and its
 * `entries`, each entry's request method and URL, the response status, and the types of the
 * body, header list and post data.
 *
 * @example
 * checkHar({ log: { version: '1.1' } }, 'a.har').fatal // [{ path: '/log', message: 'must have property "entries"', file: 'a.har' }]
 */
export function checkHar(value: unknown, fileName: string, locate?: Locate): HarCheck {
  return verdictOn(schemaErrors(value), fileName, locate)
}

/**
 * `checkHar` for one entry of a document read an entry at a time (the rest of the document is
 * checked with `checkHar` on it with its entries emptied): the same verdict, with paths from the
 * document's root. A fatal violation carries no line (the caller reads the file whole for that).
 *
 * @example
 * checkHarEntry({ request: {} }, 3, 'a.har').fatal[0]?.path // '/log/entries/3/request'
 */
export function checkHarEntry(
  entry: Record<string, unknown>,
  index: number,
  fileName: string,
): HarCheck {
  const errors: AjvSixError[] = []
  harValidator.entry(entry, collectInto(errors, `.log.entries[${index}]`))
  return verdictOn(errors, fileName)
}

function verdictOn(errors: AjvSixError[], fileName: string, locate?: Locate): HarCheck {
  const check: HarCheck = { fatal: [], deviations: [], withoutResponse: new Set() }
  for (const e of errors) {
    const segments = segmentsOf(e.dataPath)
    const missing = e.keyword === 'required' ? e.params.missingProperty : undefined
    const full = missing === undefined ? segments : [...segments, missing]
    const pointer = segments.reduce<string>((p, s) => joinPointer(p, s), '')
    const message = describe(e)
    const entry = entryIndex(full)
    if (entry !== undefined && full.length === 4 && full[3] === 'response') {
      check.withoutResponse.add(entry)
      continue
    }
    const target = isFatal(full, e.keyword) ? check.fatal : check.deviations
    target.push(detailAt(fileName, pointer, message, target === check.fatal ? locate : undefined))
  }
  return check
}

/**
 * The schema violations of a HAR document, with paths from its root. Entries are validated one by
 * one: ajv@6 with `allErrors` concatenates the errors of each `$ref`'d entry onto all the errors
 * before it, so one whole-document validation was quadratic in the entries that deviate (a
 * 40,000-entry capture from Chrome, with a deviation in every entry, took minutes).
 */
function schemaErrors(value: unknown): AjvSixError[] {
  const errors: AjvSixError[] = []
  const collect = (prefix: string) => collectInto(errors, prefix)
  const log = isRecord(value) ? value['log'] : undefined
  const entries = isRecord(log) ? log['entries'] : undefined
  // One pass over the whole document when the entries are not all objects (har-validator reads
  // a falsy value as `{}`, which would change the messages).
  if (!Array.isArray(entries) || !entries.every(isRecord)) {
    harValidator.har(value, collect(''))
    return errors
  }
  harValidator.har(
    {
      ...(value as Record<string, unknown>),
      log: { ...(log as Record<string, unknown>), entries: [] },
    },
    collect(''),
  )
  entries.forEach((entry, index) => harValidator.entry(entry, collect(`.log.entries[${index}]`)))
  return errors
}

/** A har-validator callback that adds the errors to `errors`, their paths below `prefix`. */
function collectInto(errors: AjvSixError[], prefix: string) {
  return (err: { errors?: AjvSixError[] } | null): void => {
    for (const e of err?.errors ?? []) {
      errors.push(prefix === '' ? e : { ...e, dataPath: prefix + e.dataPath })
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `.log.entries[3]['a b']` -> ['log', 'entries', '3', 'a b']. */
function segmentsOf(dataPath: string): string[] {
  const out: string[] = []
  const re = /\.([^.[]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]/g
  for (let m = re.exec(dataPath); m !== null; m = re.exec(dataPath)) {
    out.push(m[1] ?? m[2] ?? (m[3] ?? '').replace(/\\(.)/g, '$1'))
  }
  return out
}

function entryIndex(full: string[]): number | undefined {
  return full[0] === 'log' &&
    full[1] === 'entries' &&
    full[2] !== undefined &&
    /^\d+$/.test(full[2])
    ? Number(full[2])
    : undefined
}

// Fields read as they are (a wrong type there would change what is replayed), by their path
// below an entry. Header values are not among them: they are converted to strings, and arrays
// (Polly.JS) become one header each.
const typedFields = new Set([
  'request.postData',
  'request.postData.text',
  'request.postData.mimeType',
  'request.postData.params',
  'response.headers',
  'response.content',
  'response.content.text',
  'response.content.encoding',
  'response.content.mimeType',
])

function isFatal(full: string[], keyword: string): boolean {
  if (full.length <= 1) return true // the document is not an object, or has no `log`
  if (full[0] !== 'log') return false
  if (full[1] === 'entries' && full.length === 2) return true
  if (full[1] !== 'entries') return false
  if (full.length === 3) return true // an entry that is not an object
  const below = full.slice(3)
  const path = below.join('.')
  if (
    path === 'request' ||
    path === 'request.method' ||
    path === 'request.url' ||
    path === 'response.status'
  ) {
    return true
  }
  if (/^response\.headers\.\d+\.name$/.test(path)) return keyword === 'type'
  return keyword === 'type' && typedFields.has(path)
}

function describe(e: AjvSixError): string {
  if (e.keyword === 'required') return `must have property "${e.params.missingProperty ?? ''}"`
  if (e.keyword === 'type') return `must be ${e.params.type ?? 'of another type'}`
  return (e.message ?? 'is invalid').replace(/^should /, 'must ')
}
