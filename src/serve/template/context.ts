import type { MatchRequest } from '../../match/index.js'
import type { ContextFields } from './reads.js'

/** `{name}` placeholders of an `equals_url` template, compiled to a regex with one group each. */
export interface PathParams {
  readonly regex: RegExp
  readonly names: readonly string[]
}

/** The placeholders of a path template, or null when it has none. */
export function compilePathParams(template: string | undefined): PathParams | null {
  if (template === undefined || !/\{[^{}/]+\}/.test(template)) return null
  const names: string[] = []
  const source =
    template
      .split('?')[0]
      ?.split(/(\{[^{}/]+\})/)
      .map((part) => {
        if (/^\{[^{}/]+\}$/.test(part)) {
          names.push(part.slice(1, -1))
          return '([^/]+)'
        }
        return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      })
      .join('') ?? ''
  return { regex: new RegExp(`^${source.replace(/\/$/, '')}/?$`), names }
}

const kText = Symbol('text')

/**
 * The prototype of text-like values: it converts them to their text. The conversion sits behind a
 * symbol on a prototype without `constructor` or Object.prototype, so that a template (which reads
 * own properties only) reaches the members, which are data, and never a function.
 */
const textProto: object = Object.create(null, {
  [Symbol.toPrimitive]: {
    value: function (this: Record<symbol, string>): string {
      return this[kText] as string
    },
  },
})

/** An object that renders as `text` in a template and also has the given members. */
function textLike(text: string, members: Record<string, unknown>): Record<string, unknown> {
  const value = Object.assign(Object.create(textProto) as Record<string | symbol, unknown>, members)
  value[kText] = text
  return value as Record<string, unknown>
}

const single = (v: string | string[] | undefined): string | undefined =>
  Array.isArray(v) ? v[0] : v

/**
 * The template context of one request: `request.*` as WireMock names it, with only the fields
 * `fields` names (reads.ts `contextFields`, decided when the templates compiled). Values with several occurrences give the first one;
 * `request.query.x.[1]` reaches the others.
 */
export function templateContext(
  req: MatchRequest,
  rawHeaders: readonly string[],
  params: PathParams | null,
  fields: ContextFields,
  extra?: Record<string, unknown>,
): Record<string, unknown> {
  const request: Record<string, unknown> = {}
  if (fields.url) request['url'] = req.url
  const needsSegments = fields.path || fields.pathSegments
  const needsParams = fields.path || fields.pathParams
  const pathSegments = needsSegments ? req.path.split('/').filter((s) => s !== '') : []
  const pathParams: Record<string, string> = {}
  if (needsParams && params !== null) {
    const m = params.regex.exec(req.path)
    if (m !== null) {
      params.names.forEach((name, i) => {
        pathParams[name] = decodeURIComponent(m[i + 1] ?? '')
      })
    }
  }
  // Renders as the path and also answers `request.path.id` and `request.path.[0]`.
  if (fields.path) request['path'] = textLike(req.path, { ...pathSegments, ...pathParams })
  if (fields.pathSegments) request['pathSegments'] = pathSegments
  if (fields.pathParams) request['pathParams'] = pathParams
  if (fields.method) request['method'] = req.method
  if (fields.query) {
    const query: Record<string, unknown> = {}
    for (const [name, value] of Object.entries(req.query())) {
      query[name] = Array.isArray(value) ? textLike(value[0] ?? '', { ...value }) : value
    }
    request['query'] = query
  }
  if (fields.headers) {
    const headers: Record<string, string | undefined> = {}
    for (const [name, value] of Object.entries(req.headers)) headers[name] = single(value)
    // As written too (`request.headers.X-Request-Id`), as WireMock users write them.
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = rawHeaders[i] as string
      headers[name] ??= rawHeaders[i + 1]
    }
    request['headers'] = headers
  }
  if (fields.cookies) {
    const cookies: Record<string, string | undefined> = {}
    for (const [name, value] of Object.entries(req.cookies())) cookies[name] = single(value)
    request['cookies'] = cookies
  }
  if (fields.body) request['body'] = req.text()
  return { request, ...extra }
}
