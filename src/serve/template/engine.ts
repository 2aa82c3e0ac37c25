import { createRequire } from 'node:module'
import type { Faker as FakerClass, en as enLocale, base as baseLocale } from '@faker-js/faker'
import type { HelperDelegate } from 'handlebars'
import { countedEach, HelperFailure, templateHelpers } from './helpers.js'
import { templateReads, type TemplateReads } from './reads.js'
import { newBudget, outputBoundError, resetBudget } from './budget.js'
import {
  loadHandlebars,
  MAX_TEMPLATE_OUTPUT,
  parseTemplate,
  templateHelperNames,
  TemplateSyntaxError,
} from '../../dsl/index.js'

export { TemplateSyntaxError }

/** A compiled template: renders a context to text. Throws HelperFailure when a helper fails. */
export interface TemplateFn {
  (context: unknown): string
  /** The context fields it reads (reads.ts): a request builds only those. */
  readonly reads: TemplateReads
}

/** A template without placeholders: its text, whatever the context. */
export function constantTemplate(text: string): TemplateFn {
  return Object.assign(() => text, { reads: new Set<string>() as TemplateReads })
}

/** One mock service's Handlebars environment: its helpers and its seeded faker. */
export interface TemplateEngine {
  /** Compiles now (never on first render). Throws TemplateSyntaxError. */
  compile: (source: string) => TemplateFn
}

const compileOptions = { noEscape: true, strict: false, knownHelpersOnly: false }

// faker weighs about 40 MB of memory and 0.4 s of start-up: load it only when a mock service
// has templates, never in every runtime (`understudy run` is one process per mock service).
interface FakerModule {
  Faker: typeof FakerClass
  en: typeof enLocale
  base: typeof baseLocale
}
let fakerModule: FakerModule | null = null
function loadFaker(): FakerModule {
  fakerModule ??= createRequire(import.meta.url)('@faker-js/faker') as FakerModule
  return fakerModule
}

/**
 * A Handlebars environment with the WireMock-style helpers. `seed` makes faker and every random
 * helper repeatable; without one they are random.
 *
 * @example
 * createTemplateEngine(1).compile('{{math 1 "+" 2}}')({}) // '3'
 */
export function createTemplateEngine(seed: number | undefined): TemplateEngine {
  const hb = loadHandlebars().create()
  const { Faker, en, base } = loadFaker()
  // `base` holds the data no language has (mime types, paths): without it system.fileName throws.
  const faker = new Faker({ locale: [en, base] })
  if (seed !== undefined) faker.seed(seed)
  const budget = newBudget()
  const helpers = templateHelpers(faker, budget)
  hb.registerHelper(helpers)
  hb.registerHelper('each', countedEach(hb.helpers['each'] as HelperDelegate, budget))
  for (const name of Object.keys(helpers)) {
    // The list the DSL checks templates against must name exactly the helpers registered here.
    if (!templateHelperNames.includes(name)) {
      throw new Error(`helper ${name} missing from templateHelperNames`)
    }
  }
  const runtime = preparedRuntime(hb as unknown as HandlebarsRegistry)
  return {
    compile(source) {
      const ast = parseTemplate(source)
      // What Handlebars.compile does lazily on first render, done now (hot-path rule: compile at load).
      const internals = hb as unknown as HandlebarsCompilers
      const environment = new internals.Compiler().compile(ast, compileOptions)
      const spec = new internals.JavaScriptCompiler().compile(
        environment,
        compileOptions,
        undefined,
        true,
      )
      const template = hb.template(spec as never) as (context: unknown, options: object) => string
      const render = (context: unknown): string => {
        resetBudget(budget)
        let text: string
        try {
          text = template(context, {
            partial: true,
            helpers: runtime.helpers,
            hooks: runtime.hooks,
            partials: runtime.partials,
            decorators: runtime.decorators,
            protoAccessControl: runtime.protoAccessControl,
            data: { root: context },
          })
        } finally {
          // The documents parsed for this request are not kept past it.
          resetBudget(budget)
        }
        // Literal text outside helpers and loops is counted here, once the text is made.
        if (text.length > MAX_TEMPLATE_OUTPUT) {
          throw new HelperFailure('template', outputBoundError())
        }
        return text
      }
      return Object.assign(render, { reads: templateReads(ast) })
    },
  }
}

/** What Handlebars' runtime sets up on every render, built once: see preparedRuntime. */
interface PreparedRuntime {
  partial: true
  helpers: Record<string, unknown>
  hooks: Record<string, unknown>
  partials: Record<string, unknown>
  decorators: Record<string, unknown>
  protoAccessControl: unknown
}

/** What an environment has registered. */
interface HandlebarsRegistry {
  helpers: Record<string, unknown>
  partials: Record<string, unknown>
  decorators: Record<string, unknown>
}

/** Handlebars' prototype-access rules (its runtime's own module: the same checks, not a copy). */
interface ProtoAccess {
  createProtoAccessControl: (options: object) => unknown
}

/**
 * The property lookup handed to helpers (`lookup`): own data only. A prototype member or a
 * function is never reached, whatever the name (`lookup this 'constructor'`).
 */
function lookupOwnData(parent: unknown, name: string): unknown {
  if (
    parent === null ||
    parent === undefined ||
    !Object.prototype.hasOwnProperty.call(parent, name)
  ) {
    return undefined
  }
  const result = (parent as Record<string, unknown>)[name]
  return typeof result === 'function' ? undefined : result
}

/** A registry copy without a prototype: a name such as `constructor` finds nothing in it. */
function ownEntries(source: Record<string, unknown>): Record<string, unknown> {
  return Object.assign(Object.create(null) as Record<string, unknown>, source)
}

/** Handlebars' own helper wrapper (the one its runtime applies on every render). */
interface WrapHelper {
  wrapHelper: (
    helper: unknown,
    transform: (options: { lookupProperty?: unknown }) => unknown,
  ) => unknown
}

/**
 * Every top-level render in Handlebars re-wraps each registered helper in a new closure (to hand
 * it `options.lookupProperty`) and rebuilds the prototype-access rules: with our fifty helpers
 * that was half the cost of rendering a small template (a webhook body, a templated answer). The
 * runtime skips that set-up for a render marked `partial` that brings the prepared pieces itself;
 * they are prepared here once per engine, exactly as the runtime would prepare them (same
 * wrapping, the registered partials and decorators, helperMissing and blockHelperMissing moved to hooks, default prototype-access rules),
 * except that helpers get a stricter lookupProperty (own data, never a function) and the
 * registries have no prototype; each render passes `data.root` as the runtime would.
 * test/unit/serve/template-engine.test.ts holds the behaviours that depend on it.
 */
function preparedRuntime(registry: HandlebarsRegistry): PreparedRuntime {
  const require = createRequire(import.meta.url)
  const access = require('handlebars/dist/cjs/handlebars/internal/proto-access.js') as ProtoAccess
  // Handlebars' defaults, said explicitly: paths resolve own properties only (docs/security.md).
  const protoAccessControl = access.createProtoAccessControl({
    allowProtoPropertiesByDefault: false,
    allowProtoMethodsByDefault: false,
  })
  const { wrapHelper } =
    require('handlebars/dist/cjs/handlebars/internal/wrapHelper.js') as WrapHelper
  const wrap = (helper: unknown): unknown =>
    wrapHelper(helper, (options) => {
      options.lookupProperty = lookupOwnData
      return options
    })
  const helpers: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  for (const [name, helper] of Object.entries(registry.helpers)) helpers[name] = wrap(helper)
  const hooks: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  for (const name of ['helperMissing', 'blockHelperMissing']) {
    if (helpers[name] !== undefined) {
      hooks[name] = helpers[name]
      helpers[name] = undefined
    }
  }
  return {
    partial: true,
    helpers,
    hooks,
    partials: ownEntries(registry.partials),
    decorators: ownEntries(registry.decorators),
    protoAccessControl,
  }
}

/** Handlebars' compiler classes, public in its runtime but missing from its typings. */
interface HandlebarsCompilers {
  Compiler: new () => { compile: (ast: unknown, options: object) => unknown }
  JavaScriptCompiler: new () => {
    compile: (environment: unknown, options: object, context: undefined, asObject: true) => unknown
  }
}
