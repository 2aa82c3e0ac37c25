import { formatSamples } from './formats.js'
import { stringForPattern } from './pattern.js'
import { exampleValueOf, isObject, type RefResolver } from './resolver.js'
import { CYCLE, pickType, viewSchema, type Schema } from './schema-view.js'

/** Limits that keep generated examples small, finite and deterministic. */
interface ExampleLimits {
  /** Objects nested deeper than this get only their required properties (root = 0). Default 3. */
  optionalDepth: number
  /** Nothing is generated below this nesting depth: objects become `{}`, arrays `[]`. Default 10. */
  maxDepth: number
  /** After this many generated values, only required properties and minimum array lengths. Default 2,000. */
  budget: number
  /** Arrays are never longer than this, whatever `minItems` says (and maps never get more generated entries). Default 100. */
  maxItems: number
}

const defaultLimits: ExampleLimits = { optionalDepth: 3, maxDepth: 10, budget: 2000, maxItems: 100 }

/** `minLength` is met up to this length: a description asking for more is not worth the memory. */
const MAX_STRING_LENGTH = 10_000

/** Nothing to say: an empty schema at the root, or an optional property left out. */
const OMIT = Symbol('omit')
type Generated = unknown

interface State {
  resolver: RefResolver
  limits: ExampleLimits
  active: Set<string>
  used: number
}

/**
 * Generates a deterministic example value from a schema (OpenAPI 2.0, 3.0 or 3.1): the same
 * schema always gives the same value, with no randomness and no clock.
 *
 * Precedence at every level: `const`, `example`, the first of `examples` (3.1), `default`, the
 * first `enum` value that is not null, then a value built from the type:
 * - object: required properties always; optional ones too in the first `optionalDepth` levels;
 *   `writeOnly` properties never (this is a response); `additionalProperties` with a schema adds
 *   `additionalProp1` to a map that declares no properties; `minProperties` is met.
 * - array: `max(minItems, 1)` items (at most `maxItems`, never above the schema's `maxItems`);
 *   a 3.1 `prefixItems` tuple is generated whole.
 * - string: a fixed sample per `format` (formats.ts), else one built from `pattern`, else
 *   `"string"`, padded or cut to `minLength`/`maxLength` (padding stops at 10,000 characters).
 * - integer/number: 0 moved into `minimum`/`maximum` (exclusive bounds of 3.0 and 3.1) and onto
 *   `multipleOf`. boolean: true. null: null.
 * - `allOf` merged, `oneOf`/`anyOf` their first non-null branch, 3.1 type lists their first
 *   non-null type; `nullable` never produces null.
 * Recursion is cut when a schema refers back to one being generated (an optional property is
 * left out, a required one gets an empty value of its type) and below `maxDepth`.
 * Returns undefined when the schema allows anything (`{}`) or cannot be resolved.
 *
 * @example
 * generateExample({ type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1 }, email: { type: 'string', format: 'email' } } }, resolver)
 * // { id: 1, email: 'user@example.com' }
 */
export function generateExample(
  schema: unknown,
  resolver: RefResolver,
  limits: ExampleLimits = defaultLimits,
): unknown {
  const state: State = { resolver, limits, active: new Set(), used: 0 }
  const value = generate(schema, 0, true, state)
  return value === OMIT ? undefined : value
}

function generate(node: unknown, depth: number, required: boolean, state: State): Generated {
  const view = viewSchema(node, state.resolver, state.active)
  if (view === CYCLE) return required ? emptyOf(node, state) : OMIT
  if (view === undefined) return OMIT
  state.used++
  const added = view.refs.filter((r) => !state.active.has(r))
  for (const r of added) state.active.add(r)
  try {
    return fromSchema(view.schema, depth, state)
  } finally {
    for (const r of added) state.active.delete(r)
  }
}

function fromSchema(schema: Schema, depth: number, state: State): Generated {
  if ('const' in schema) return schema['const']
  if (schema['example'] !== undefined) {
    // `example: {$ref: '#/components/examples/...'}` (GitHub's description) names the value elsewhere
    const example = exampleValueOf(schema['example'], state.resolver)
    if (example !== undefined) return example
  }
  if (Array.isArray(schema['examples']) && schema['examples'].length > 0) {
    return schema['examples'][0]
  }
  if (schema['default'] !== undefined) return schema['default']
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) {
    const values = schema['enum']
    return values.find((v) => v !== null) ?? values[0]
  }
  switch (pickType(schema)) {
    case 'object':
      return objectFrom(schema, depth, state)
    case 'array':
      return arrayFrom(schema, depth, state)
    case 'string':
      return stringFrom(schema)
    case 'integer':
      return numberFrom(schema, true)
    case 'number':
      return numberFrom(schema, false)
    case 'boolean':
      return true
    case 'null':
      return null
    case undefined:
    default:
      return OMIT
  }
}

function objectFrom(schema: Schema, depth: number, state: State): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (depth >= state.limits.maxDepth) return out
  const properties = isObject(schema['properties']) ? schema['properties'] : {}
  const required = new Set(
    Array.isArray(schema['required'])
      ? schema['required'].filter((r): r is string => typeof r === 'string')
      : [],
  )
  const withOptional = depth < state.limits.optionalDepth && state.used < state.limits.budget
  for (const [name, propSchema] of Object.entries(properties)) {
    const isRequired = required.has(name)
    if (!isRequired && !withOptional) continue
    if (isWriteOnly(propSchema, state)) continue
    const value = generate(propSchema, depth + 1, isRequired, state)
    if (value === OMIT) {
      if (isRequired) out[name] = null
      continue
    }
    out[name] = value
  }
  const extra = schema['additionalProperties']
  for (const name of required) {
    if (name in out) continue
    const value = isObject(extra) ? generate(extra, depth + 1, true, state) : OMIT
    out[name] = value === OMIT ? 'string' : value
  }
  if (
    isObject(extra) &&
    Object.keys(properties).length === 0 &&
    Object.keys(out).length === 0 &&
    withOptional
  ) {
    const value = generate(extra, depth + 1, false, state)
    if (value !== OMIT) out['additionalProp1'] = value
  }
  const minProperties =
    typeof schema['minProperties'] === 'number' && extra !== false
      ? Math.min(schema['minProperties'], state.limits.maxItems)
      : 0
  for (let n = 1; Object.keys(out).length < minProperties && n <= minProperties; n++) {
    if (`additionalProp${n}` in out) continue
    const value = isObject(extra) ? generate(extra, depth + 1, true, state) : OMIT
    out[`additionalProp${n}`] = value === OMIT ? 'string' : value
  }
  const maxProperties =
    typeof schema['maxProperties'] === 'number' ? schema['maxProperties'] : Infinity
  for (const name of Object.keys(out).reverse()) {
    if (Object.keys(out).length <= maxProperties) break
    if (!required.has(name)) delete out[name]
  }
  return out
}

function isWriteOnly(node: unknown, state: State): boolean {
  const value = state.resolver.deref(node)?.value
  return isObject(value) && value['writeOnly'] === true
}

function arrayFrom(schema: Schema, depth: number, state: State): unknown[] {
  const out: unknown[] = []
  const minItems = typeof schema['minItems'] === 'number' ? schema['minItems'] : 0
  const maxItems = typeof schema['maxItems'] === 'number' ? schema['maxItems'] : Infinity
  if (depth >= state.limits.maxDepth) return out
  const prefix = Array.isArray(schema['prefixItems']) ? schema['prefixItems'] : []
  // A tuple (3.1 prefixItems) is shown whole; a list with one item.
  const wanted = state.used < state.limits.budget ? Math.max(minItems, prefix.length, 1) : minItems
  const count = Math.min(wanted, maxItems, state.limits.maxItems)
  const items = schema['items']
  for (let i = 0; i < count; i++) {
    const itemSchema = i < prefix.length ? prefix[i] : Array.isArray(items) ? items[i] : items
    if (itemSchema === undefined || itemSchema === false) break
    const value = generate(itemSchema, depth + 1, i < minItems, state)
    if (value === OMIT) break
    out.push(
      schema['uniqueItems'] === true && i > 0 ? distinct(value, i, itemSchema, state) : value,
    )
  }
  return out
}

/** The i-th value of a `uniqueItems` array: the i-th enum value, or the value shifted by i. */
function distinct(value: unknown, i: number, itemSchema: unknown, state: State): unknown {
  const view = viewSchema(itemSchema, state.resolver, new Set())
  const values =
    view !== undefined && view !== CYCLE && Array.isArray(view.schema['enum'])
      ? view.schema['enum']
      : undefined
  if (values !== undefined) return values[i % values.length]
  if (typeof value === 'number') return value + i
  if (typeof value === 'string') return `${value}${i}`
  return value
}

function stringFrom(schema: Schema): string {
  const format = typeof schema['format'] === 'string' ? schema['format'] : undefined
  const sample = format === undefined ? undefined : formatSamples[format]
  if (sample !== undefined) return sample
  if (typeof schema['pattern'] === 'string') {
    const fromPattern = stringForPattern(schema['pattern'])
    if (fromPattern !== undefined) return fromPattern
  }
  const minLength = typeof schema['minLength'] === 'number' ? schema['minLength'] : 0
  const maxLength = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : Infinity
  let out = 'string'
  if (out.length < minLength) out = out.padEnd(Math.min(minLength, MAX_STRING_LENGTH), 'x')
  if (out.length > maxLength) out = out.slice(0, maxLength)
  return out
}

function numberFrom(schema: Schema, integer: boolean): number {
  const minimum = typeof schema['minimum'] === 'number' ? schema['minimum'] : undefined
  const maximum = typeof schema['maximum'] === 'number' ? schema['maximum'] : undefined
  // 3.0 (draft 4): boolean flags on minimum/maximum; 3.1 (draft 2020-12): numbers of their own.
  let lo = minimum
  let loExclusive = schema['exclusiveMinimum'] === true
  if (
    typeof schema['exclusiveMinimum'] === 'number' &&
    (lo === undefined || schema['exclusiveMinimum'] >= lo)
  ) {
    lo = schema['exclusiveMinimum']
    loExclusive = true
  }
  let hi = maximum
  let hiExclusive = schema['exclusiveMaximum'] === true
  if (
    typeof schema['exclusiveMaximum'] === 'number' &&
    (hi === undefined || schema['exclusiveMaximum'] <= hi)
  ) {
    hi = schema['exclusiveMaximum']
    hiExclusive = true
  }
  const step =
    typeof schema['multipleOf'] === 'number' && schema['multipleOf'] > 0
      ? schema['multipleOf']
      : undefined
  const unit = step ?? 1
  let value = 0
  if (lo !== undefined && (value < lo || (loExclusive && value <= lo))) {
    value = loExclusive ? lo + unit : lo
  }
  if (hi !== undefined && (value > hi || (hiExclusive && value >= hi))) {
    value = hiExclusive ? hi - unit : hi
  }
  if (lo !== undefined && hi !== undefined && (value < lo || (loExclusive && value <= lo))) {
    value = (lo + hi) / 2
  }
  if (integer) value = Math.ceil(value)
  if (step !== undefined) {
    value = Math.ceil(value / step) * step
    if (hi !== undefined && (value > hi || (hiExclusive && value >= hi))) value -= step
    value = Number(value.toPrecision(12))
  }
  return value
}

/** An empty value of a recursive schema's type, for a required property: `{}`, `[]`, `''`, 0, false or null. */
function emptyOf(node: unknown, state: State): unknown {
  const value = state.resolver.deref(node)?.value
  const type = isObject(value) ? pickType(value) : undefined
  switch (type) {
    case 'object':
      return {}
    case 'array':
      return []
    case 'string':
      return ''
    case 'integer':
    case 'number':
      return 0
    case 'boolean':
      return false
    case undefined:
    default:
      return null
  }
}
