import type { MatcherInput } from '../../src/dsl/index.js'
import { isObject, str } from '../shared/structured.js'
import { matchersOf } from './patterns.js'

/** Operators a multipart part's body may use: the DSL compares a form field as text. */
const partBodyOperators = new Set([
  'equalTo',
  'contains',
  'doesNotContain',
  'matches',
  'doesNotMatch',
  'and',
  'or',
])

/** `name="x"` (or `name=x`) of a Content-Disposition pattern's value. */
const dispositionName = /\bname="([^"]*)"|\bname=([^;\s"]+)/

/** What multipartPatterns become: body matchers on form fields, and a multipart Content-Type. */
interface MultipartMatchers {
  body: MatcherInput[]
  headers: MatcherInput[]
}

/**
 * Maps WireMock's `multipartPatterns` onto the DSL's form-field body matchers (a `key` that names
 * a part of a `multipart/form-data` body, file parts with their content): each pattern must name
 * its part, by `name` or through a `Content-Disposition` pattern (`{"contains": "name=\"file\""}`,
 * as older Java clients write `aMultipart("file")`), and its `bodyPatterns` become matchers on that part's
 * content; a pattern without `bodyPatterns` requires the part. `matchingType: ALL` (every part must
 * match) becomes `allParts` body matchers. The request must be multipart, as in WireMock. What
 * cannot be expressed (an ANY pattern naming no part, other part headers, ALL with part headers
 * or a name, JSON/XML operators on a part) is reported through `note`, never dropped silently.
 *
 * @example
 * multipartMatchers([{ headers: { 'Content-Disposition': { contains: 'name="info"' } }, bodyPatterns: [{ contains: 'x' }] }], note)
 * // { body: [{ key: 'info', matcherName: 'contains', matchingValue: 'x' }], headers: [Content-Type matches multipart/...] }
 */
export function multipartMatchers(
  patterns: unknown,
  note: (message: string) => void,
): MultipartMatchers {
  const out: MultipartMatchers = { body: [], headers: [] }
  if (!Array.isArray(patterns)) {
    note('request multipartPatterns must be an array; not matched')
    return out
  }
  patterns.forEach((pattern, i) => {
    const where = `multipartPatterns[${i}]`
    const refuse = (why: string): void => note(`request ${where}: ${why}; not matched`)
    if (!isObject(pattern)) return refuse('expected an object with headers and bodyPatterns')
    const type = pattern['matchingType'] ?? 'ANY'
    if (type !== 'ANY' && type !== 'ALL') {
      return refuse(`matchingType ${JSON.stringify(type)} is not ANY or ALL`)
    }
    const headers = isObject(pattern['headers']) ? pattern['headers'] : {}
    if (type === 'ALL') return allParts(pattern, headers, where, refuse)
    const dispositionKey = Object.keys(headers).find(
      (h) => h.toLowerCase() === 'content-disposition',
    )
    const others = Object.keys(headers).filter((h) => h !== dispositionKey)
    if (others.length > 0) {
      return refuse(
        `part headers other than Content-Disposition (${others.join(', ')}) are not supported`,
      )
    }
    const disposition = dispositionKey === undefined ? undefined : headers[dispositionKey]
    const value = isObject(disposition)
      ? (str(disposition['contains']) ?? str(disposition['equalTo']))
      : undefined
    const found = value === undefined ? null : dispositionName.exec(value)
    const named = str(pattern['name'])
    const fromHeader = found?.[1] ?? found?.[2]
    if (named !== undefined && disposition !== undefined && fromHeader !== named) {
      return refuse(
        `a Content-Disposition pattern beyond the part's name ${JSON.stringify(named)} is not supported`,
      )
    }
    const name = named ?? fromHeader
    if (name === undefined || name === '') {
      return refuse(
        'the part must be named: "name", or a Content-Disposition pattern such as {"contains": "name=\\"file\\""}',
      )
    }
    const bodies = pattern['bodyPatterns'] ?? []
    if (!Array.isArray(bodies)) return refuse('bodyPatterns must be an array')
    const unsupported = unsupportedOperator(bodies)
    if (unsupported !== undefined) return refuse(unsupportedTitle(unsupported))
    if (bodies.length === 0) {
      out.body.push({ key: name, matcherName: 'matches', matchingValue: '[\\s\\S]*' })
      return
    }
    bodies.forEach((b, j) =>
      out.body.push(
        ...matchersOf(b, {
          part: 'body',
          key: name,
          where: `request ${where} part body pattern ${j}`,
          note,
        }),
      ),
    )
  })
  /** `matchingType: ALL`: every part of the request must satisfy the pattern's body patterns. */
  function allParts(
    pattern: Record<string, unknown>,
    headers: Record<string, unknown>,
    where: string,
    refuse: (why: string) => void,
  ): void {
    if (Object.keys(headers).length > 0 || pattern['name'] !== undefined) {
      return refuse(
        'matchingType ALL with part headers or a part name is not supported (every part of the request would have to carry them); ALL is supported with bodyPatterns only',
      )
    }
    const bodies = pattern['bodyPatterns'] ?? []
    if (!Array.isArray(bodies)) return refuse('bodyPatterns must be an array')
    const unsupported = unsupportedOperator(bodies)
    if (unsupported !== undefined) return refuse(unsupportedTitle(unsupported))
    if (bodies.length === 0) {
      out.body.push({ matcherName: 'matches', matchingValue: '[\\s\\S]*', allParts: true })
      return
    }
    bodies.forEach((b, j) =>
      out.body.push(
        ...matchersOf(b, {
          part: 'body',
          where: `request ${where} part body pattern ${j}`,
          note,
        }).map((m) => ({ ...m, allParts: true })),
      ),
    )
  }
  if (out.body.length > 0) {
    out.headers.push({
      key: 'Content-Type',
      matcherName: 'matches',
      matchingValue: '(?i)multipart/.*',
    })
  }
  return out
}

/** The first operator of a part's body patterns that the DSL's form matchers cannot apply. */
function unsupportedOperator(bodies: readonly unknown[]): string | undefined {
  return bodies
    .map((b) =>
      isObject(b)
        ? Object.keys(b).find((k) => !partBodyOperators.has(k) && k !== 'caseInsensitive')
        : 'a pattern',
    )
    .find((k) => k !== undefined)
}

function unsupportedTitle(operator: string): string {
  return `${operator} on a part is not supported (equalTo, contains, doesNotContain, matches, doesNotMatch, and, or are)`
}
