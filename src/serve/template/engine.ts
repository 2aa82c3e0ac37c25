import Handlebars from 'handlebars'
import { Faker, en } from '@faker-js/faker'
import { templateHelpers } from './helpers.js'

/** A compiled template: renders a context to text. Throws HelperFailure when a helper fails. */
export type TemplateFn = (context: unknown) => string

/** A template that cannot be compiled, with its 1-based line inside the template. */
export class TemplateSyntaxError extends Error {
  constructor (message: string, readonly line: number | null) {
    super(message)
  }
}

/** One mock service's Handlebars environment: its helpers and its seeded faker. */
export interface TemplateEngine {
  /** Compiles now (never on first render). Throws TemplateSyntaxError. */
  compile: (source: string) => TemplateFn
}

const compileOptions = { noEscape: true, strict: false, knownHelpersOnly: false }
/** Handlebars' own block helpers, always known. */
const builtIns = new Set(['if', 'unless', 'each', 'with', 'lookup', 'log', 'blockHelperMissing', 'helperMissing'])

/**
 * A Handlebars environment with the WireMock-style helpers. `seed` makes faker and every random
 * helper repeatable; without one they are random.
 *
 * @example
 * createTemplateEngine(1).compile('{{math 1 "+" 2}}')({}) // '3'
 */
export function createTemplateEngine (seed: number | undefined): TemplateEngine {
  const hb = Handlebars.create()
  const faker = new Faker({ locale: [en] })
  if (seed !== undefined) faker.seed(seed)
  const helpers = templateHelpers(faker)
  hb.registerHelper(helpers)
  const known = new Set([...builtIns, ...Object.keys(helpers)])
  return {
    compile (source) {
      let ast: ReturnType<typeof hb.parse>
      try {
        ast = hb.parse(source)
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err)
        const line = /on line (\d+)/.exec(message)
        throw new TemplateSyntaxError(message.split('\n').filter((l) => !/^-*\^$/.test(l)).join(' '), line === null ? null : Number(line[1]))
      }
      checkHelpers(ast, known)
      // What Handlebars.compile does lazily on first render, done now (hot-path rule: compile at load).
      const internals = hb as unknown as HandlebarsCompilers
      const environment = new internals.Compiler().compile(ast, compileOptions)
      const spec = new internals.JavaScriptCompiler().compile(environment, compileOptions, undefined, true)
      const template = hb.template(spec as never) as (context: unknown) => string
      return template
    },
  }
}

/** Handlebars' compiler classes, public in its runtime but missing from its typings. */
interface HandlebarsCompilers {
  Compiler: new () => { compile: (ast: unknown, options: object) => unknown }
  JavaScriptCompiler: new () => { compile: (environment: unknown, options: object, context: undefined, asObject: true) => unknown }
}

interface Node { type: string; loc?: { start: { line: number } }; [k: string]: unknown }

/**
 * Refuses, at load, a call of a helper that does not exist (`{{fakr 'x'}}`), which Handlebars
 * would only report on the first request.
 */
function checkHelpers (ast: unknown, known: Set<string>): void {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n)
      return
    }
    if (node === null || typeof node !== 'object') return
    const n = node as Node
    if ((n.type === 'MustacheStatement' || n.type === 'SubExpression' || n.type === 'BlockStatement') && n['path'] !== undefined) {
      const path = n['path'] as Node & { original?: unknown; parts?: unknown[] }
      const params = n['params'] as unknown[] | undefined
      const hash = n['hash'] as { pairs?: unknown[] } | undefined
      const isCall = (params !== undefined && params.length > 0) || (hash?.pairs?.length ?? 0) > 0 || n.type === 'SubExpression'
      const name = typeof path.original === 'string' ? path.original : null
      if (isCall && name !== null && path.type === 'PathExpression' && !known.has(name)) {
        throw new TemplateSyntaxError(`unknown helper "${name}"`, n.loc?.start.line ?? null)
      }
    }
    for (const value of Object.values(n)) if (typeof value === 'object') visit(value)
  }
  visit(ast)
}
