import { createRequire } from 'node:module'
import Handlebars from 'handlebars'
import type { Faker as FakerClass, en as enLocale } from '@faker-js/faker'
import { templateHelpers } from './helpers.js'
import { parseTemplate, templateHelperNames, TemplateSyntaxError } from '../../dsl/index.js'

export { TemplateSyntaxError }

/** A compiled template: renders a context to text. Throws HelperFailure when a helper fails. */
export type TemplateFn = (context: unknown) => string

/** One mock service's Handlebars environment: its helpers and its seeded faker. */
export interface TemplateEngine {
  /** Compiles now (never on first render). Throws TemplateSyntaxError. */
  compile: (source: string) => TemplateFn
}

const compileOptions = { noEscape: true, strict: false, knownHelpersOnly: false }

// faker weighs about 40 MB of memory and 0.4 s of start-up: load it only when a mock service
// has templates, never in every runtime (`understudy run` is one process per mock service).
let fakerModule: { Faker: typeof FakerClass; en: typeof enLocale } | null = null
function loadFaker (): { Faker: typeof FakerClass; en: typeof enLocale } {
  fakerModule ??= createRequire(import.meta.url)('@faker-js/faker') as { Faker: typeof FakerClass; en: typeof enLocale }
  return fakerModule
}

/**
 * A Handlebars environment with the WireMock-style helpers. `seed` makes faker and every random
 * helper repeatable; without one they are random.
 *
 * @example
 * createTemplateEngine(1).compile('{{math 1 "+" 2}}')({}) // '3'
 */
export function createTemplateEngine (seed: number | undefined): TemplateEngine {
  const hb = Handlebars.create()
  const { Faker, en } = loadFaker()
  const faker = new Faker({ locale: [en] })
  if (seed !== undefined) faker.seed(seed)
  const helpers = templateHelpers(faker)
  hb.registerHelper(helpers)
  for (const name of Object.keys(helpers)) {
    // The list the DSL checks templates against must name exactly the helpers registered here.
    if (!templateHelperNames.includes(name)) throw new Error(`helper ${name} missing from templateHelperNames`)
  }
  return {
    compile (source) {
      const ast = parseTemplate(source)
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

