import type Handlebars from 'handlebars'
import { loadHandlebars } from './handlebars.js'
import { checkFakerArguments, fakerMethodOf, unknownArgument } from './faker-catalogue.js'
import { checkSize, unreachableNames } from './template-bounds.js'

/*
 * Template syntax of `template: true` responses and `postServe` bodies, checked without
 * the runtime: the control plane validates templates with it, the runtime compiles what it parsed.
 */

/** The helpers the runtime registers (src/serve/template/helpers.ts) plus Handlebars' own. */
export const templateHelperNames: readonly string[] = [
  'jsonPath',
  'xPath',
  'now',
  'dateFormat',
  'parseDate',
  'randomValue',
  'randomInt',
  'randomDecimal',
  'uuid',
  'math',
  'base64',
  'urlEncode',
  'size',
  'join',
  'toJson',
  'faker',
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'and',
  'or',
  'not',
  'contains',
  'if',
  'unless',
  'each',
  'with',
  'lookup',
  'log',
]

/** A template that cannot be compiled, with its 1-based line inside the template. */
export class TemplateSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number | null,
  ) {
    super(message)
  }
}

const known = new Set(templateHelperNames)

/**
 * Blocks nested deeper than this are refused at load. Handlebars parses nested blocks in time
 * that grows faster than the template (2,000 levels: a second; 20,000: minutes) and its compiler
 * recurses once per level; no template a person writes comes near it.
 */
const MAX_TEMPLATE_NESTING = 100

/** Block openers (`{{#x`, `{{^x`, `{{~#x`) and closers (`{{/x`); `{{^}}` is an else, not an opener. */
const blockTags = /\{\{~?\s*(?:([#/])|\^(?!\s*~?\}\}))/g

/** How deep the blocks of a template nest, from its tags alone (before Handlebars parses it). */
function blockNesting(source: string): number {
  let depth = 0
  let deepest = 0
  for (const tag of source.matchAll(blockTags)) {
    if (tag[1] === '/') {
      depth = Math.max(0, depth - 1)
    } else {
      depth++
      deepest = Math.max(deepest, depth)
    }
  }
  return deepest
}

/** Parses a template and refuses what it may not do (checkHelpers). Throws TemplateSyntaxError. */
export function parseTemplate(source: string): ReturnType<typeof Handlebars.parse> {
  const nesting = blockNesting(source)
  if (nesting > MAX_TEMPLATE_NESTING) {
    throw new TemplateSyntaxError(
      `blocks nest ${nesting} deep; the limit is ${MAX_TEMPLATE_NESTING}`,
      null,
    )
  }
  let ast: ReturnType<typeof Handlebars.parse>
  try {
    ast = loadHandlebars().parse(source)
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    const line = /on line (\d+)/.exec(message)
    throw new TemplateSyntaxError(
      message
        .split('\n')
        .filter((l) => !/^-*\^$/.test(l))
        .join(' '),
      line === null ? null : Number(line[1]),
    )
  }
  checkHelpers(ast)
  return ast
}

/**
 * Whether a template compiles (`POST /api/v1/system/validations/handlebars`): `{valid, message}`,
 * the message naming the line inside the template.
 *
 * @example
 * validateTemplate('{{#if x}}').valid // false
 */
export function validateTemplate(source: string): { valid: boolean; message: string } {
  try {
    parseTemplate(source)
    return { valid: true, message: 'OK' }
  } catch (err) {
    const line = err instanceof TemplateSyntaxError && err.line !== null ? `line ${err.line}: ` : ''
    return { valid: false, message: `${line}${err instanceof Error ? err.message : String(err)}` }
  }
}

/** A node of a parsed template, as Handlebars' parser gives it (line 1-based, column 0-based). */
export interface TemplateNode {
  type: string
  loc?: { start: { line: number; column: number }; end: { line: number; column: number } }
  [k: string]: unknown
}
type Node = TemplateNode
interface Literal extends Node {
  value?: unknown
}

/** Template constructs Understudy does not run: there are no partials or decorators to call. */
const unsupported: Readonly<Record<string, string>> = {
  PartialStatement: 'partials ({{> name}}) are not supported',
  PartialBlockStatement: 'partials ({{#> name}}) are not supported',
  Decorator: 'decorators ({{* name}}) are not supported',
  DecoratorBlock: 'decorators ({{#* name}}) are not supported',
}

/** A literal argument's value, or `unknownArgument` for one known only when the template renders. */
function literalOf(node: unknown): unknown {
  const n = node as Literal
  switch (n.type) {
    case 'StringLiteral':
    case 'NumberLiteral':
    case 'BooleanLiteral':
      return n.value
    case 'NullLiteral':
      return null
    case 'UndefinedLiteral':
      return undefined
    default:
      return unknownArgument
  }
}

/**
 * Checks, at load, what Handlebars would only find on a request: a call of a helper that does not
 * exist (`{{fakr 'x'}}`), a path through JavaScript's prototype machinery (`this.constructor`),
 * partials and decorators, a faker method outside the catalogue, and literal sizes above their
 * bounds (`{{faker 'string.alpha' 20000000}}`).
 */
function checkHelpers(ast: unknown): void {
  walkTemplate(ast, (n) => {
    const line = n.loc?.start.line ?? null
    const refusal = Object.hasOwn(unsupported, n.type) ? unsupported[n.type] : undefined
    if (refusal !== undefined) throw new TemplateSyntaxError(refusal, line)
    if (n.type === 'PathExpression') {
      const denied = (n['parts'] as string[] | undefined)?.find((part) =>
        unreachableNames.has(part),
      )
      if (denied !== undefined) {
        throw new TemplateSyntaxError(
          `"${String(n['original'])}": "${denied}" is not reachable from a template`,
          line,
        )
      }
    }
    if (
      (n.type === 'MustacheStatement' ||
        n.type === 'SubExpression' ||
        n.type === 'BlockStatement') &&
      n['path'] !== undefined
    ) {
      const path = n['path'] as Node & { original?: unknown }
      const params = (n['params'] as unknown[] | undefined) ?? []
      const pairs =
        (n['hash'] as { pairs?: Array<{ key: string; value: unknown }> } | undefined)?.pairs ?? []
      const isCall = params.length > 0 || pairs.length > 0 || n.type === 'SubExpression'
      // `{{"faker" ...}}` and `{{'constructor'}}`: Handlebars takes a literal as a name too.
      const literal = path.type !== 'PathExpression' ? literalOf(path) : unknownArgument
      const name =
        typeof path.original === 'string' && path.type === 'PathExpression'
          ? path.original
          : literal === unknownArgument
            ? null
            : String(literal)
      if (literal !== unknownArgument && unreachableNames.has(String(literal))) {
        throw new TemplateSyntaxError(`"${String(literal)}" is not reachable from a template`, line)
      }
      if (isCall && name !== null && !known.has(name)) {
        throw new TemplateSyntaxError(`unknown helper "${name}"`, line)
      }
      if (name !== null) {
        try {
          checkLiteralArguments(name, params.map(literalOf), pairs)
        } catch (err) {
          throw new TemplateSyntaxError(err instanceof Error ? err.message : String(err), line)
        }
      }
    }
    return true
  })
}

/**
 * Visits the nodes of a parsed template, depth first; `visit` returns whether to go into the
 * node's children.
 *
 * @example
 * walkTemplate(Handlebars.parse(source), (node) => { names.push(node.type); return true })
 */
export function walkTemplate(ast: unknown, visit: (node: TemplateNode) => boolean): void {
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) walk(n)
      return
    }
    if (node === null || typeof node !== 'object') return
    const n = node as TemplateNode
    if (!visit(n)) return
    for (const value of Object.values(n)) if (typeof value === 'object') walk(value)
  }
  walk(ast)
}

/** The checks the runtime makes on a call, made now on its literal arguments. */
function checkLiteralArguments(
  helper: string,
  params: unknown[],
  pairs: Array<{ key: string; value: unknown }>,
): void {
  const hash = (): Record<string, unknown> =>
    Object.fromEntries(pairs.map((p) => [p.key, literalOf(p.value)]))
  if (helper === 'faker' && params[0] !== unknownArgument) {
    checkFakerArguments(fakerMethodOf(params[0]), params.slice(1), pairs.length > 0 ? hash() : null)
  } else if (helper === 'randomValue') {
    const length = hash()['length']
    if (length !== undefined && length !== unknownArgument) {
      checkSize(length, 'length', 'randomValue')
    }
  } else if (
    helper === 'lookup' &&
    typeof params[1] === 'string' &&
    unreachableNames.has(params[1])
  ) {
    throw new Error(`lookup "${params[1]}": it is not reachable from a template`)
  }
}
