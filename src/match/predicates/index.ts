import type { Matcher, RequestDsl } from '../../dsl/index.js'
import type { JsonScanners } from '../json-scanners.js'
import { compileBodyPredicate } from './body.js'
import { CredentialsPredicate } from './credentials.js'
import { FieldPredicate, readCookie, readHeader, readQuery, type FieldReader } from './field.js'
import type { Predicate, UrlPredicate } from './predicate.js'
import { PathPredicate } from './url.js'
import { compileValueCheck } from './value-check.js'
import type { PreparedPredicate } from './xsd.js'

export type { Predicate, UrlPredicate } from './predicate.js'
export type { PreparedPredicate } from './xsd.js'

/** Reports a problem at a JSON pointer relative to the transaction. */
export type ReportProblem = (subPointer: string, message: string) => void

/** The compiled conditions of one transaction (the method is handled by the index). */
interface CompiledRequest {
  url: UrlPredicate | null
  /** Cheapest first: query, headers, cookies, credentials, body. */
  predicates: Predicate[]
  needsBody: boolean
  needsForm: boolean
  /** The predicates whose verdict is computed before matching (matches_xml_schema). */
  prepared: PreparedPredicate[]
}

const base = '/dsl/requestDsl'
/** One string for every transaction's url pointer (kept by its predicate while serving). */
const URL_POINTER = `${base}/url`

/**
 * Compiles the request side of a transaction into predicates, reporting every problem (invalid or
 * unsafe regex, bad JSONPath/XPath, matchers that cannot apply) instead of stopping at the first.
 * `scanners` is the compiled mock service's table of shared JSONPath scanners (json-scanners.ts).
 *
 * @example
 * compileRequest({ headers: [{ key: 'Accept', matcherName: 'contains', matchingValue: 'json' }] }, report).predicates.length // 1
 */
export function compileRequest(
  request: RequestDsl,
  report: ReportProblem,
  scanners?: JsonScanners,
): CompiledRequest {
  const out: CompiledRequest = {
    url: null,
    predicates: [],
    needsBody: false,
    needsForm: false,
    prepared: [],
  }
  if (request.url !== undefined) out.url = compileUrl(request.url, URL_POINTER, report)

  request.queryParams?.forEach((m, i) =>
    push(
      out,
      compileField('queryParams', m, `${base}/queryParams/${i}`, readQuery, (k) => k, report),
    ),
  )
  request.headers?.forEach((m, i) =>
    push(
      out,
      compileField(
        'headers',
        m,
        `${base}/headers/${i}`,
        readHeader,
        (k) => k.toLowerCase(),
        report,
      ),
    ),
  )
  request.cookies?.forEach((m, i) =>
    push(
      out,
      compileField('cookies', m, `${base}/cookies/${i}`, readCookie, (k) => k, report),
    ),
  )
  // Credentials sent empty are kept in the DSL as sent; they ask for nothing.
  if (
    request.credentials !== undefined &&
    ((request.credentials.username ?? '') !== '' || (request.credentials.password ?? '') !== '')
  ) {
    out.predicates.push(
      new CredentialsPredicate(
        request.credentials.username ?? '',
        request.credentials.password ?? '',
        `${base}/credentials`,
      ),
    )
  }
  request.body?.forEach((m, i) => {
    const pointer = `${base}/body/${i}`
    const compiled = compileBodyPredicate(m, pointer, scanners)
    if ('error' in compiled) {
      report(`${pointer}/${compiled.at}`, compiled.error)
      return
    }
    out.needsBody = true
    const key = m.key ?? ''
    if (key !== '' && !key.startsWith('$') && !key.startsWith('/')) out.needsForm = true
    if (m.allParts === true) out.needsForm = true
    if (m.matcherName === 'absent' && key === '' && (m.matchingValue ?? '') !== '') {
      out.needsForm = true
    }
    out.predicates.push(compiled)
    if (isPrepared(compiled)) out.prepared.push(compiled)
  })
  return out
}

/** Whether a predicate needs `prepare` before matching. */
export function isPrepared(p: Predicate): p is PreparedPredicate {
  return 'prepare' in p
}

function push(out: CompiledRequest, predicate: Predicate | null): void {
  if (predicate !== null) out.predicates.push(predicate)
}

function compileUrl(m: Matcher, pointer: string, report: ReportProblem): UrlPredicate | null {
  const expected = m.matchingValue ?? ''
  if (m.matcherName === 'equals_url') return PathPredicate.equalsUrl(expected, pointer)
  const compiled = compileValueCheck(m)
  if ('error' in compiled) {
    report(
      `${pointer}/${m.matcherName === 'absent' ? 'matcherName' : 'matchingValue'}`,
      compiled.error,
    )
    return null
  }
  return new PathPredicate(m.matcherName, expected, pointer, compiled.check, compiled.negated)
}

function compileField(
  part: 'queryParams' | 'headers' | 'cookies',
  m: Matcher,
  pointer: string,
  read: FieldReader,
  keyOf: (key: string) => string,
  report: ReportProblem,
): Predicate | null {
  const absent = m.matcherName === 'absent'
  // For `absent`, the mock services specification names the item in matchingValue when key is
  // empty.
  const rawKey = absent && (m.key ?? '') === '' ? (m.matchingValue ?? '') : (m.key ?? '')
  const key = keyOf(rawKey)
  if (absent) {
    return new FieldPredicate(
      part,
      key,
      'absent',
      m.matchingValue ?? '',
      pointer,
      read,
      () => true,
      { absent: true, optional: false, negated: false },
    )
  }
  if (m.matcherName === 'equals_url') {
    report(`${pointer}/matcherName`, 'equals_url applies only to the url')
    return null
  }
  const compiled = compileValueCheck(m)
  if ('error' in compiled) {
    report(`${pointer}/matchingValue`, compiled.error)
    return null
  }
  return new FieldPredicate(
    part,
    key,
    m.matcherName,
    m.matchingValue ?? '',
    pointer,
    read,
    compiled.check,
    {
      absent: false,
      optional: m.optional === true,
      negated: compiled.negated,
    },
  )
}
