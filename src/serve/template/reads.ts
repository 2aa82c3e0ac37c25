/**
 * What a template reads of its context: the `request.*` and `response.*` fields its paths name
 * (`request.headers`, `response.body`), or 'all' when a path can reach the whole context (`this`,
 * `@root`, `request` itself). Known when the template is compiled, so that a request builds only
 * the fields its templates read: parsing cookies and the query string, copying headers and
 * decoding the body cost more than rendering a small template.
 */
export type TemplateReads = ReadonlySet<string> | 'all'

/** Roots whose fields are built on demand. */
const lazyRoots = new Set(['request', 'response'])

interface AstNode {
  type?: string
  parts?: string[]
  data?: boolean
}

/** The fields the paths of a parsed template read. Iterative: a template's depth is the user's choice. */
export function templateReads(ast: unknown): TemplateReads {
  const reads = new Set<string>()
  const stack: unknown[] = [ast]
  while (stack.length > 0) {
    const node = stack.pop()
    if (node === null || typeof node !== 'object') continue
    if (Array.isArray(node)) {
      for (const child of node) stack.push(child)
      continue
    }
    const { type, parts: path, data } = node as AstNode
    if (type === 'PathExpression') {
      // `@root.request.x` reads as `request.x`; other data (`@index`, `@key`) is not the context.
      if (data === true && path?.[0] !== 'root') continue
      const parts = data === true ? path?.slice(1) : path
      const root = parts?.[0]
      // `this`, `..` or `@root`: the whole context, or (inside a block) a part not known here.
      if (root === undefined) return 'all'
      if (lazyRoots.has(root)) {
        const field = parts?.[1]
        if (field === undefined) return 'all'
        reads.add(`${root}.${field}`)
      }
      continue
    }
    for (const [key, value] of Object.entries(node)) {
      if (key !== 'loc' && value !== null && typeof value === 'object') stack.push(value)
    }
  }
  return reads
}

/** Both templates' reads. */
export function unionReads(a: TemplateReads, b: TemplateReads): TemplateReads {
  if (a === 'all' || b === 'all') return 'all'
  if (b.size === 0) return a
  if (a.size === 0) return b
  return new Set([...a, ...b])
}

/** Which parts of a template context a request builds: decided once, when its templates compile. */
export interface ContextFields {
  readonly url: boolean
  readonly path: boolean
  readonly pathSegments: boolean
  readonly pathParams: boolean
  readonly method: boolean
  readonly query: boolean
  readonly headers: boolean
  readonly cookies: boolean
  readonly body: boolean
  /** `response.body` (a webhook's context): the answer's body decoded as text. */
  readonly responseBody: boolean
}

/** The context fields that templates reading `reads` need. */
export function contextFields(reads: TemplateReads): ContextFields {
  const wants = (name: string): boolean => reads === 'all' || reads.has(name)
  return {
    url: wants('request.url'),
    path: wants('request.path'),
    pathSegments: wants('request.pathSegments'),
    pathParams: wants('request.pathParams'),
    method: wants('request.method'),
    query: wants('request.query'),
    headers: wants('request.headers'),
    cookies: wants('request.cookies'),
    body: wants('request.body'),
    responseBody: wants('response.body'),
  }
}
