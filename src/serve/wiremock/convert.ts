import type { Transaction } from '../../dsl/index.js'
import { isUnderstudyError } from '../../errors/index.js'
import { WireMockError, type WireMockErrorItem } from './errors.js'

/** What the WireMock importer made of one stub: its transactions, and what it could not carry over. */
export interface StubConversion {
  transactions: Transaction[]
  /** The importer's warnings, each naming the stub part it is about. */
  problems: string[]
}

/**
 * Converts one WireMock stub mapping (`{request, response, ...}`) with the WireMock importer.
 * Injected by the CLI: this area may not import `importers/`, and a runtime that never receives
 * a stub through the admin API never loads them.
 */
export type WireMockConverter = (stub: Record<string, unknown>) => StubConversion

/** Loads the converter on first use. */
export type LoadWireMockConverter = () => Promise<WireMockConverter>

/**
 * Importer warnings that describe what WireMock itself does: a body with `{{...}}` and no
 * `response-template` transformer is served verbatim by WireMock too.
 */
const faithful = [/looks like a Handlebars template/]

/**
 * Throws 422 with one WireMock error per warning that is not faithful: what cannot be honoured is
 * refused, never served differently without a word.
 *
 * @example
 * refuseProblems(['stub "GET /a": bodyPatterns[0]: binaryEqualTo (binary body comparison) is not supported; not matched'])
 * // WireMockError 422, source.pointer '/request/bodyPatterns/0'
 */
export function refuseProblems(
  problems: readonly string[],
  rewrite: (pointer: string) => string = (p) => p,
): void {
  const items: WireMockErrorItem[] = []
  for (const problem of problems) {
    if (faithful.some((re) => re.test(problem))) continue
    const title = problem.replace(/^stub "(?:[^"\\]|\\.)*": /, '')
    items.push({
      code: 10,
      source: { pointer: rewrite(pointerOf(title)) },
      title: `not supported by Understudy: ${title}`,
    })
  }
  if (items.length > 0) throw new WireMockError(422, items)
}

const responseKeys = [
  'fixedDelayMilliseconds',
  'delayDistribution',
  'chunkedDribbleDelay',
  'transformers',
  'base64Body',
  'bodyFileName',
  'fault',
  'transformerParameters',
  'proxyBaseUrl',
  'headers',
  'status',
]

/**
 * The JSON pointer into the stub that an importer warning is about, read from the words the
 * importer uses to name places (`bodyPatterns[0]`, `header "Accept"`, `response fault`...).
 */
function pointerOf(message: string): string {
  const body = /bodyPatterns\[(\d+)\]/.exec(message)
  if (body !== null) return `/request/bodyPatterns/${body[1] ?? ''}`
  const keyed: Array<[RegExp, string]> = [
    [/^header "((?:[^"\\]|\\.)*)"/, 'headers'],
    [/^query parameter "((?:[^"\\]|\\.)*)"/, 'queryParameters'],
    [/^cookie "((?:[^"\\]|\\.)*)"/, 'cookies'],
    [/^form parameter "((?:[^"\\]|\\.)*)"/, 'formParameters'],
  ]
  for (const [re, field] of keyed) {
    const m = re.exec(message)
    if (m !== null) return `/request/${field}/${escapePointer(m[1] ?? '')}`
  }
  const request = /^request (?:has unknown property )?(\w+)/.exec(message)
  if (request !== null && request[1] !== 'has') return `/request/${request[1] ?? ''}`
  if (/^host matching/.test(message)) return '/request/host'
  if (/^the query part .* of urlPattern/.test(message)) return '/request/urlPattern'
  if (/^priority/.test(message)) return '/priority'
  if (/^body file __files\//.test(message)) return '/response/bodyFileName'
  if (/post-serve action|webhook/.test(message)) return '/postServeActions'
  const response = /^response (?:has unknown property )?(\w+)/.exec(message)
  if (response !== null && !['has', 'body', 'must', 'header'].includes(response[1] ?? '')) {
    return `/response/${response[1] ?? ''}`
  }
  for (const key of responseKeys) {
    if (new RegExp(`\\b${key}\\b`).test(message)) return `/response/${key}`
  }
  const unknown = /^unknown property (\w+)/.exec(message)
  if (unknown !== null) return `/${unknown[1] ?? ''}`
  return ''
}

/**
 * Runs the converter, turning what it throws for a stub it cannot read at all (ERR_IMPORT_INVALID,
 * ERR_DSL_INVALID with the failing fields) into WireMock's 422 naming them.
 */
export function convertStub(
  convert: WireMockConverter,
  stub: Record<string, unknown>,
): StubConversion {
  try {
    return convert(stub)
  } catch (err) {
    if (!isUnderstudyError(err) || err.statusCode >= 500) throw err
    const details = err.details ?? []
    const items: WireMockErrorItem[] =
      details.length === 0
        ? [{ code: 10, title: err.message }]
        : details.map((d) => ({
            code: 10,
            source: { pointer: d.path !== '' ? d.path : detailPointer(d.message, stub) },
            title: d.message,
          }))
    throw new WireMockError(422, items)
  }
}

/** Where an importer's error about the whole stub points, read from its words. */
function detailPointer(message: string, stub: Record<string, unknown>): string {
  if (/\(url\)/.test(message)) {
    const request =
      typeof stub['request'] === 'object' && stub['request'] !== null
        ? (stub['request'] as Record<string, unknown>)
        : {}
    const key = ['url', 'urlPath', 'urlPathTemplate', 'urlPattern', 'urlPathPattern'].find(
      (k) => typeof request[k] === 'string',
    )
    return key === undefined ? '/request' : `/request/${key}`
  }
  return pointerOf(message.replace(/^stub "(?:[^"\\]|\\.)*": /, ''))
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1')
}
