import Handlebars from 'handlebars'
import { validateTemplate, walkTemplate, type TemplateNode } from '../../src/dsl/index.js'

/*
 * Mockoon's templating is Handlebars with helpers of its own. Those that read the request
 * (`urlParam`, `queryParam`, `header`, `cookie`, `body`, `bodyRaw`, `method`) and `now` are
 * rewritten into the DSL's request context and helpers; `faker` and the comparison helpers are
 * the same. A template that still calls a helper the runtime does not have is served as written,
 * and the import says which helpers.
 */

/** A translated template, or the helpers that kept it from translating. */
type TemplateOutcome = { template: string } | { untranslated: string[] } | { literal: true }

type Node = TemplateNode
interface Call extends Node {
  path: Node & { original?: unknown }
  params: Node[]
  hash?: { pairs?: Node[] }
}

/**
 * Translates a Mockoon template. `{ literal: true }` when the text has no mustaches at all.
 *
 * @example
 * translateTemplate("{{urlParam 'id'}}") // { template: '{{request.path.[id]}}' }
 */
export function translateTemplate(source: string): TemplateOutcome {
  if (!source.includes('{{')) return { literal: true }
  let ast: unknown
  try {
    ast = Handlebars.parse(source)
  } catch {
    return { untranslated: ['(the template does not parse)'] }
  }
  const lineStarts = [0]
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1)
  const offset = (p: { line: number; column: number }): number =>
    (lineStarts[p.line - 1] ?? 0) + p.column
  const edits: Array<{ from: number; to: number; text: string }> = []
  walkTemplate(ast, (n) => {
    if ((n.type === 'MustacheStatement' || n.type === 'SubExpression') && n.loc !== undefined) {
      const replacement = rewriteCall(n as Call)
      if (replacement !== undefined) {
        edits.push({
          from: offset(n.loc.start),
          to: offset(n.loc.end),
          text: n.type === 'SubExpression' ? replacement.sub : replacement.mustache,
        })
        return false
      }
    }
    return true
  })
  let out = source
  for (const edit of edits.sort((a, b) => b.from - a.from)) {
    out = out.slice(0, edit.from) + edit.text + out.slice(edit.to)
  }
  const check = validateTemplate(out)
  if (check.valid) return { template: out }
  const unknown = [...check.message.matchAll(/unknown helper "([^"]+)"/g)].map(
    (m) => m[1] as string,
  )
  return { untranslated: unknown.length > 0 ? unknown : [check.message] }
}

/** The text of a rewritten call, as a whole mustache and as a subexpression. */
function rewriteCall(call: Call): { mustache: string; sub: string } | undefined {
  const name = typeof call.path.original === 'string' ? call.path.original : undefined
  if (name === undefined || (call.hash?.pairs?.length ?? 0) > 0) return undefined
  const args = call.params.map((p) =>
    p.type === 'StringLiteral' || p.type === 'NumberLiteral' ? String(p['value']) : undefined,
  )
  if (args.some((a) => a === undefined)) return undefined
  const [first = '', fallback] = args as string[]
  const read = readerOf(name, first, args.length)
  if (read === undefined) return undefined
  const mustache =
    fallback === undefined
      ? `{{${read}}}`
      : `{{#if ${wrap(read)}}}{{${read}}}{{else}}${fallback}{{/if}}`
  return { mustache, sub: wrap(read) }
}

/** A call's expression (`request.path.[id]`, `jsonPath request.body '$.a'`) by Mockoon helper name. */
function readerOf(name: string, path: string, argCount: number): string | undefined {
  switch (name) {
    case 'urlParam':
      return argCount === 0 ? undefined : `request.path.${segments(path)}`
    case 'queryParam':
      return path === '' ? 'toJson request.query' : `request.query.${segments(path)}`
    case 'header':
      return argCount === 0 ? undefined : `request.headers.${segments(path.toLowerCase())}`
    case 'cookie':
      return argCount === 0 ? undefined : `request.cookies.${segments(path)}`
    case 'body':
    case 'bodyRaw':
      return path === '' ? 'request.body' : `jsonPath request.body '${jsonPathText(path)}'`
    case 'method':
      return argCount === 0 ? 'request.method' : undefined
    case 'now':
      return argCount === 0 ? 'now' : `now format='${path.replace(/'/g, "\\'")}'`
    default:
      return undefined
  }
}

/** An expression usable as a helper's argument: a call gets parentheses. */
function wrap(expression: string): string {
  return expression.includes(' ') ? `(${expression})` : expression
}

/** A dotted Mockoon path as Handlebars segments in brackets: `a.b` -> `[a].[b]`. */
function segments(path: string): string {
  return path
    .split('.')
    .map((s) => `[${s.replace(/[\]]/g, '')}]`)
    .join('.')
}

/** A dotted Mockoon path as a JSONPath quoted for a template string: `a.0.b` -> `$.a[0].b`. */
function jsonPathText(path: string): string {
  if (path.startsWith('$')) return path.replace(/'/g, "\\'")
  return (
    '$' +
    path
      .split('.')
      .map((s) =>
        /^\d+$/.test(s)
          ? `[${s}]`
          : /^[A-Za-z_][\w-]*$/.test(s)
            ? `.${s}`
            : `["${s.replace(/"/g, '')}"]`,
      )
      .join('')
  )
}
