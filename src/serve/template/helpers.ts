import type { HelperDelegate, HelperOptions } from 'handlebars'
import type { Faker } from '@faker-js/faker'
import { JSONPath } from 'jsonpath-plus'
import xpath from 'xpath'
import { parseXml } from '../../match/index.js'
import { applyOffset, formatDate, parseDate } from './dates.js'

/** A helper failed on a request: the runtime answers 500 naming it. */
export class HelperFailure extends Error {
  constructor (readonly helper: string, cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause))
  }
}

type Options = HelperOptions & { hash: Record<string, unknown> }

/** Splits the trailing Handlebars options object off a helper's arguments. */
function split (args: unknown[]): { params: unknown[]; options: Options } {
  return { params: args.slice(0, -1), options: args[args.length - 1] as Options }
}

/** A comparison usable inline (`{{#if (eq a b)}}`) or as a block (`{{#eq a b}}..{{else}}..{{/eq}}`). */
function condition (test: (params: unknown[]) => boolean): HelperDelegate {
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
  ALPHANUMERIC_AND_SYMBOLS: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./:;<=>?@[]^_{|}~',
  HEXADECIMAL: '0123456789abcdef',
}

function textOf (value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

/**
 * The helpers of WireMock's response templating that users copy from their stubs, plus `faker`.
 * Random values come from `faker`, seeded per mock service, so that a seed gives repeatable
 * answers. Every helper is wrapped so that a throw names it (HelperFailure).
 */
export function templateHelpers (faker: Faker): Record<string, HelperDelegate> {
  const helpers: Record<string, HelperDelegate> = {
    jsonPath (...args: unknown[]) {
      const { params } = split(args)
      const [source, path] = params
      const json = typeof source === 'string' ? (source.trim() === '' ? null : JSON.parse(source) as unknown) : source
      if (typeof path !== 'string') throw new Error('needs a JSONPath expression')
      const found = JSONPath({ path, json: json as object, wrap: false, eval: 'safe' }) as unknown
      if (found === undefined) return ''
      return typeof found === 'object' && found !== null ? JSON.stringify(found) : found
    },
    xPath (...args: unknown[]) {
      const { params } = split(args)
      const [source, expression] = params
      if (typeof expression !== 'string') throw new Error('needs an XPath expression')
      const doc = parseXml(String(source ?? ''))
      if (doc === null) throw new Error('the body is not well-formed XML')
      const result = xpath.select(expression, doc as never)
      if (Array.isArray(result)) return result.length === 0 ? '' : (result[0] as { textContent?: string | null }).textContent ?? ''
      return String(result)
    },
    now (...args: unknown[]) {
      const { options } = split(args)
      const offset = options.hash['offset']
      const date = typeof offset === 'string' ? applyOffset(new Date(), offset) : new Date()
      return formatDate(date, options.hash['format'] as string | undefined)
    },
    dateFormat (...args: unknown[]) {
      const { params, options } = split(args)
      const date = parseDate(params[0])
      const format = (params[1] ?? options.hash['format']) as string | undefined
      const offset = options.hash['offset']
      return formatDate(typeof offset === 'string' ? applyOffset(date, offset) : date, format)
    },
    parseDate (...args: unknown[]) {
      const { params } = split(args)
      return parseDate(params[0]).toISOString()
    },
    randomValue (...args: unknown[]) {
      const { options } = split(args)
      const type = String(options.hash['type'] ?? 'ALPHANUMERIC').toUpperCase()
      if (type === 'UUID') return faker.string.uuid()
      const alphabet = alphabets[type]
      if (alphabet === undefined) throw new Error(`unknown type "${type}" (one of ${Object.keys(alphabets).join(', ')}, UUID)`)
      const length = options.hash['length'] === undefined ? 36 : num(options.hash['length'])
      if (!Number.isInteger(length) || length < 0 || length > 65_536) throw new Error('length must be an integer from 0 to 65536')
      let out = ''
      for (let i = 0; i < length; i++) out += alphabet[faker.number.int({ min: 0, max: alphabet.length - 1 })] as string
      return options.hash['uppercase'] === true ? out.toUpperCase() : out
    },
    randomInt (...args: unknown[]) {
      const { options } = split(args)
      const min = options.hash['lower'] === undefined ? 0 : num(options.hash['lower'])
      const max = options.hash['upper'] === undefined ? 2_147_483_647 : num(options.hash['upper'])
      if (max < min) throw new Error('upper is below lower')
      return faker.number.int({ min, max })
    },
    randomDecimal (...args: unknown[]) {
      const { options } = split(args)
      const min = options.hash['lower'] === undefined ? 0 : num(options.hash['lower'])
      const max = options.hash['upper'] === undefined ? 1 : num(options.hash['upper'])
      return faker.number.float({ min, max })
    },
    uuid () {
      return faker.string.uuid()
    },
    math (...args: unknown[]) {
      const { params } = split(args)
      const [a, op, b] = params
      const x = num(a)
      const y = num(b)
      switch (op) {
        case '+': return x + y
        case '-': return x - y
        case '*': return x * y
        case '/': if (y === 0) throw new Error('division by zero'); return x / y
        case '%': if (y === 0) throw new Error('division by zero'); return x % y
        default: throw new Error(`unknown operator "${String(op)}" (one of + - * / %)`)
      }
    },
    base64 (...args: unknown[]) {
      const { params, options } = split(args)
      const value = typeof options.fn === 'function' ? options.fn(this) : textOf(params[0])
      return options.hash['decode'] === true ? Buffer.from(value, 'base64').toString('utf8') : Buffer.from(value, 'utf8').toString('base64')
    },
    urlEncode (...args: unknown[]) {
      const { params, options } = split(args)
      const value = typeof options.fn === 'function' ? options.fn(this) : textOf(params[0])
      return options.hash['decode'] === true ? decodeURIComponent(value) : encodeURIComponent(value)
    },
    size (...args: unknown[]) {
      const { params } = split(args)
      const v = params[0]
      if (typeof v === 'string' || Array.isArray(v)) return v.length
      if (v !== null && typeof v === 'object') return Object.keys(v).length
      return 0
    },
    join (...args: unknown[]) {
      const { params } = split(args)
      const [list, separator] = params
      const items = Array.isArray(list) ? list : [list]
      return items.map(textOf).join(typeof separator === 'string' ? separator : ',')
    },
    toJson (...args: unknown[]) {
      const { params } = split(args)
      return JSON.stringify(params[0] ?? null)
    },
    faker (...args: unknown[]) {
      const { params } = split(args)
      const path = params[0]
      if (typeof path !== 'string') throw new Error("needs a name like 'person.firstName'")
      const [module, method] = path.split('.', 2)
      const target = (faker as unknown as Record<string, Record<string, unknown> | undefined>)[module ?? '']
      const fn = target?.[method ?? '']
      if (typeof fn !== 'function') throw new Error(`faker has no "${path}"`)
      return (fn as (...a: unknown[]) => unknown).call(target, ...params.slice(1))
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
      return textOf(haystack).includes(textOf(needle))
    }),
  }
  const wrapped: Record<string, HelperDelegate> = {}
  for (const [name, fn] of Object.entries(helpers)) {
    wrapped[name] = function (this: unknown, ...args: unknown[]) {
      try {
        return (fn as (...a: unknown[]) => unknown).apply(this, args)
      } catch (err) {
        if (err instanceof HelperFailure) throw err
        throw new HelperFailure(name, err)
      }
    }
  }
  return wrapped
}
