import { formatCount } from '../../errors/index.js'
import type { HelperDelegate, HelperOptions } from 'handlebars'
import type { Faker } from '@faker-js/faker'
import { JSONPath } from 'jsonpath-plus'
import {
  checkFakerArguments,
  checkSize,
  checkTextArgument,
  fakerMethodOf,
  fakerMethods,
  fakeToken,
  jsonTextDepth,
  MAX_DEFINITION_DEPTH,
  TemplateBoundError,
} from '../../dsl/index.js'
import { applyOffset, formatDate, parseDate } from './dates.js'
import {
  chargeGenerated,
  chargeOutput,
  checkRoom,
  outputBoundError,
  roomLeft,
  type RenderBudget,
} from './budget.js'
import { boundedXPath, MAX_TEMPLATE_PATH_EXPRESSION } from './xpath-bounded.js'

/**
 * A helper failed on a request: the runtime answers 500 naming it, with ERR_SERVE_TEMPLATE_LIMIT
 * when it stopped at a bound of docs/limits.md (`bound`), ERR_SERVE_TEMPLATE otherwise.
 */
export class HelperFailure extends Error {
  readonly bound: boolean
  constructor(
    readonly helper: string,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause))
    this.bound = cause instanceof TemplateBoundError
  }
}

type Options = HelperOptions & { hash: Record<string, unknown> }

/** Splits the trailing Handlebars options object off a helper's arguments. */
function split(args: unknown[]): { params: unknown[]; options: Options } {
  return { params: args.slice(0, -1), options: args[args.length - 1] as Options }
}

/** A comparison usable inline (`{{#if (eq a b)}}`) or as a block (`{{#eq a b}}..{{else}}..{{/eq}}`). */
function condition(test: (params: unknown[]) => boolean): HelperDelegate {
  return function (this: unknown, ...args: unknown[]) {
    const { params, options } = split(args)
    const result = test(params)
    if (typeof options.fn === 'function') return result ? options.fn(this) : options.inverse(this)
    return result
  }
}

const loose = (a: unknown, b: unknown): boolean => a === b || String(a) === String(b)
const num = (v: unknown): number => {
  const n = Number(v)
  if (Number.isNaN(n)) throw new Error(`"${String(v)}" is not a number`)
  return n
}

const alphabets: Record<string, string> = {
  ALPHANUMERIC: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  ALPHABETIC: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ',
  NUMERIC: '0123456789',
  ALPHANUMERIC_AND_SYMBOLS:
    'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./:;<=>?@[]^_{|}~',
  HEXADECIMAL: '0123456789abcdef',
}

/**
 * JSON text of a value, stopped as soon as it would not fit the output left: a JSONPath like
 * `$..*` selects every subtree once per ancestor, so its text can be far larger than the document.
 */
function jsonText(value: unknown, budget: RenderBudget): string {
  const room = roomLeft(budget)
  let size = 0
  return (
    JSON.stringify(value, function (key: string, v: unknown) {
      size += key.length + (typeof v === 'string' ? v.length + 2 : 4)
      if (size > room) throw outputBoundError()
      return v
    }) ?? ''
  )
}

function textOf(value: unknown, budget: RenderBudget): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'object') return jsonText(value, budget)
  return String(value)
}

/** `request.path` and repeated query values are objects that render as text: faker takes their text. */
function asText(value: unknown): unknown {
  return value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Symbol.toPrimitive in value
    ? String(value)
    : value
}

/** A text argument of a generating helper (a date format, an offset), bounded; undefined when absent. */
function textArgument(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null) return undefined
  const text = String(value)
  checkTextArgument(text, where)
  return text
}

/** The faker methods of the catalogue, resolved once per engine on its own faker instance. */
function fakerCalls(faker: Faker): ReadonlyMap<string, (...args: unknown[]) => unknown> {
  const calls = new Map<string, (...args: unknown[]) => unknown>()
  const modules = faker as unknown as Record<string, Record<string, unknown> | undefined>
  for (const [path, { module, method }] of fakerMethods) {
    const target = Object.hasOwn(modules, module) ? modules[module] : undefined
    const fn = target?.[method]
    if (typeof fn === 'function') calls.set(path, (fn as (...a: unknown[]) => unknown).bind(target))
  }
  return calls
}

/**
 * Refuses a JSONPath expression that can make jsonpath-plus work super-linearly before any
 * output is counted: longer than MAX_TEMPLATE_PATH_EXPRESSION, or with more than one recursive
 * descent (`$..*..*` walks every subtree of every node: 2.6 s over a body nested 400 deep, and a
 * third `..*` ran for minutes).
 */
function checkJsonPathExpression(path: string): void {
  if (path.length > MAX_TEMPLATE_PATH_EXPRESSION) {
    throw new TemplateBoundError(
      `the JSONPath expression is longer than ${formatCount(MAX_TEMPLATE_PATH_EXPRESSION)} characters, the limit (docs/limits.md)`,
    )
  }
  if (path.indexOf('..') !== path.lastIndexOf('..')) {
    throw new TemplateBoundError(
      'the JSONPath expression has more than one recursive descent (..), the limit (docs/limits.md)',
    )
  }
}

/**
 * The helpers of WireMock's response templating that users copy from their stubs, plus `faker`.
 * Random values come from `faker`, seeded per mock service, so that a seed gives repeatable
 * answers. Every helper is wrapped so that a throw names it (HelperFailure), a function is never
 * handed to the template, and its output counts against `budget` (docs/limits.md).
 */
export function templateHelpers(
  faker: Faker,
  budget: RenderBudget,
): Record<string, HelperDelegate> {
  const calls = fakerCalls(faker)
  const callFaker = (path: string, args: unknown[]): unknown => {
    const call = calls.get(path)
    if (call === undefined) throw new Error(`faker has no method "${path}"`)
    return call(...args)
  }
  const helpers: Record<string, HelperDelegate> = {
    jsonPath(...args: unknown[]) {
      const { params } = split(args)
      const [source, path] = params
      if (typeof path !== 'string') throw new Error('needs a JSONPath expression')
      checkJsonPathExpression(path)
      let json = source
      if (typeof source === 'string') {
        if (budget.jsonText !== source) {
          if (jsonTextDepth(source) > MAX_DEFINITION_DEPTH) {
            throw new TemplateBoundError(
              `the JSON given to jsonPath nests deeper than ${MAX_DEFINITION_DEPTH} levels, the limit (docs/limits.md)`,
            )
          }
          budget.json = source.trim() === '' ? null : (JSON.parse(source) as unknown)
          budget.jsonText = source
        }
        json = budget.json
      }
      const found = JSONPath({ path, json: json as object, wrap: false, eval: 'safe' }) as unknown
      if (found === undefined) return ''
      return typeof found === 'object' && found !== null ? jsonText(found, budget) : found
    },
    xPath(...args: unknown[]) {
      const { params } = split(args)
      const [source, expression] = params
      if (typeof expression !== 'string') throw new Error('needs an XPath expression')
      return boundedXPath(source, expression, budget)
    },
    now(...args: unknown[]) {
      const { options } = split(args)
      const offset = textArgument(options.hash['offset'], 'now offset=')
      const date = offset !== undefined ? applyOffset(new Date(), offset) : new Date()
      return formatDate(date, textArgument(options.hash['format'], 'now format='))
    },
    dateFormat(...args: unknown[]) {
      const { params, options } = split(args)
      const date = parseDate(params[0])
      const format = textArgument(params[1] ?? options.hash['format'], 'dateFormat format')
      const offset = textArgument(options.hash['offset'], 'dateFormat offset=')
      return formatDate(offset !== undefined ? applyOffset(date, offset) : date, format)
    },
    parseDate(...args: unknown[]) {
      const { params } = split(args)
      return parseDate(params[0]).toISOString()
    },
    randomValue(...args: unknown[]) {
      const { options } = split(args)
      const type = String(options.hash['type'] ?? 'ALPHANUMERIC').toUpperCase()
      if (type === 'UUID') return faker.string.uuid()
      const alphabet = alphabets[type]
      if (alphabet === undefined) {
        throw new Error(
          `unknown type "${type}" (one of ${Object.keys(alphabets).join(', ')}, UUID)`,
        )
      }
      const length =
        options.hash['length'] === undefined
          ? 36
          : checkSize(options.hash['length'], 'length', 'randomValue')
      if (!Number.isInteger(length) || length < 0) {
        throw new Error('length must be a whole number, 0 or more')
      }
      chargeGenerated(budget, length)
      let out = ''
      for (let i = 0; i < length; i++) {
        out += alphabet[faker.number.int({ min: 0, max: alphabet.length - 1 })] as string
      }
      return options.hash['uppercase'] === true ? out.toUpperCase() : out
    },
    randomInt(...args: unknown[]) {
      const { options } = split(args)
      const min = options.hash['lower'] === undefined ? 0 : num(options.hash['lower'])
      const max = options.hash['upper'] === undefined ? 2_147_483_647 : num(options.hash['upper'])
      if (max < min) throw new Error('upper is below lower')
      return faker.number.int({ min, max })
    },
    randomDecimal(...args: unknown[]) {
      const { options } = split(args)
      const min = options.hash['lower'] === undefined ? 0 : num(options.hash['lower'])
      const max = options.hash['upper'] === undefined ? 1 : num(options.hash['upper'])
      return faker.number.float({ min, max })
    },
    uuid() {
      return faker.string.uuid()
    },
    math(...args: unknown[]) {
      const { params } = split(args)
      const [a, op, b] = params
      const x = num(a)
      const y = num(b)
      switch (op) {
        case '+':
          return x + y
        case '-':
          return x - y
        case '*':
          return x * y
        case '/':
          if (y === 0) throw new Error('division by zero')
          return x / y
        case '%':
          if (y === 0) throw new Error('division by zero')
          return x % y
        default:
          throw new Error(`unknown operator "${String(op)}" (one of + - * / %)`)
      }
    },
    base64(...args: unknown[]) {
      const { params, options } = split(args)
      const value = typeof options.fn === 'function' ? options.fn(this) : textOf(params[0], budget)
      return options.hash['decode'] === true
        ? Buffer.from(value, 'base64').toString('utf8')
        : Buffer.from(value, 'utf8').toString('base64')
    },
    urlEncode(...args: unknown[]) {
      const { params, options } = split(args)
      const value = typeof options.fn === 'function' ? options.fn(this) : textOf(params[0], budget)
      return options.hash['decode'] === true ? decodeURIComponent(value) : encodeURIComponent(value)
    },
    size(...args: unknown[]) {
      const { params } = split(args)
      const v = params[0]
      if (typeof v === 'string' || Array.isArray(v)) return v.length
      if (v !== null && typeof v === 'object') return Object.keys(v).length
      return 0
    },
    join(...args: unknown[]) {
      const { params } = split(args)
      const [list, separator] = params
      const items = (Array.isArray(list) ? list : [list]).map((item) => textOf(item, budget))
      const glue = typeof separator === 'string' ? separator : ','
      // The separator comes once per item: measured before the text is built.
      checkRoom(
        budget,
        items.reduce((sum, item) => sum + item.length, 0) +
          glue.length * Math.max(0, items.length - 1),
      )
      return items.join(glue)
    },
    toJson(...args: unknown[]) {
      const { params } = split(args)
      return jsonText(params[0] ?? null, budget)
    },
    faker(...args: unknown[]) {
      const { params, options } = split(args)
      const method = fakerMethodOf(params[0])
      const hash = options.hash
      const callArgs = checkFakerArguments(
        method,
        params.slice(1).map(asText),
        Object.keys(hash).length > 0 ? hash : null,
      )
      // helpers.fake is expanded here, token by token from the catalogue, never by faker's own
      // evaluator (which walks any property path and re-reads its own output).
      const result = method.fake
        ? String(callArgs[0]).replace(fakeToken, (_token, module: string, name: string) =>
            String(callFaker(`${module}.${name}`, [])),
          )
        : callFaker(params[0] as string, callArgs)
      chargeGenerated(budget, typeof result === 'string' ? result.length : String(result).length)
      return result
    },
    log() {
      // Handlebars' log writes to the runtime's console: a template never writes to the runtime's own output.
      return ''
    },
    eq: condition((p) => loose(p[0], p[1])),
    ne: condition((p) => !loose(p[0], p[1])),
    gt: condition((p) => num(p[0]) > num(p[1])),
    gte: condition((p) => num(p[0]) >= num(p[1])),
    lt: condition((p) => num(p[0]) < num(p[1])),
    lte: condition((p) => num(p[0]) <= num(p[1])),
    and: condition((p) => p.every(Boolean)),
    or: condition((p) => p.some(Boolean)),
    not: condition((p) => !p[0]),
    contains: condition((p) => {
      const [haystack, needle] = p
      if (Array.isArray(haystack)) return haystack.some((v) => loose(v, needle))
      return textOf(haystack, budget).includes(textOf(needle, budget))
    }),
  }
  const wrapped: Record<string, HelperDelegate> = {}
  for (const [name, fn] of Object.entries(helpers)) {
    wrapped[name] = function (this: unknown, ...args: unknown[]) {
      const from = budget.output
      let result: unknown
      try {
        result = (fn as (...a: unknown[]) => unknown).apply(this, args)
        if (typeof result === 'string') chargeOutput(budget, from, result.length)
      } catch (err) {
        if (err instanceof HelperFailure) throw err
        throw new HelperFailure(name, err)
      }
      if (typeof result === 'function') {
        throw new HelperFailure(
          name,
          new Error('returned a function, which a template never receives'),
        )
      }
      return result
    }
  }
  return wrapped
}

/**
 * Handlebars' `each`, counting the output of every iteration as it is made: a loop is the one
 * construct that multiplies a template's output, and the built-in builds the whole text before
 * anything could measure it.
 */
export function countedEach(each: HelperDelegate, budget: RenderBudget): HelperDelegate {
  return function (this: unknown, context: unknown, options: HelperOptions) {
    const from = budget.output
    const fn = options.fn
    let produced = 0
    const counted = (item: unknown, frame?: object): string => {
      const text = fn(item, frame as never)
      produced += text.length
      try {
        chargeOutput(budget, from, produced)
      } catch (err) {
        throw new HelperFailure('each', err)
      }
      return text
    }
    return each.call(this, context, { ...options, fn: counted } as HelperOptions)
  }
}
