import type { Transaction } from '../../dsl/index.js'
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
export function refuseProblems (problems: readonly string[], rewrite: (pointer: string) => string = (p) => p): void {
  const items: WireMockErrorItem[] = []
  for (const problem of problems) {
    if (faithful.some((re) => re.test(problem))) continue
    const title = problem.replace(/^stub "(?:[^"\\]|\\.)*": /, '')
    items.push({ code: 10, source: { pointer: rewrite(pointerOf(title)) }, title: `not supported by Understudy: ${title}` })
  }
  if (items.length > 0) throw new WireMockError(422, items)
}

const responseKeys = ['fixedDelayMilliseconds', 'delayDistribution', 'chunkedDribbleDelay', 'transformers', 'base64Body', 'bodyFileName', 'fault', 'transformerParameters', 'proxyBaseUrl', 'headers', 'status']

/**
 * The JSON pointer into the stub that an importer warning is about, read from the words the
 * importer uses to name places (`bodyPatterns[0]`, `header "Accept"`, `response fault`...).
 */
export function pointerOf (message: string): string {
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
  const response = /^response (?:has unknown property )?(\w+)/.exec(message)
  if (response !== null && !['has', 'body', 'must', 'header'].includes(response[1] ?? '')) return `/response/${response[1] ?? ''}`
  for (const key of responseKeys) if (message.includes(key)) return `/response/${key}`
  if (/post-serve action/.test(message)) return '/postServeActions'
  if (/^priority/.test(message)) return '/priority'
  const unknown = /^unknown property (\w+)/.exec(message)
  if (unknown !== null) return `/${unknown[1] ?? ''}`
  return ''
}

function escapePointer (key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1')
}
