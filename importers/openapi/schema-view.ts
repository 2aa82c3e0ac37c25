import { isObject, type RefResolver } from './resolver.js'

export type Schema = Record<string, unknown>

/** A schema with its `$ref`s followed, `allOf` merged and one `oneOf`/`anyOf` branch chosen. */
interface SchemaView {
  schema: Schema
  /** References followed to reach it (for recursion checks and XML element names). */
  refs: string[]
}

/** Marks a schema that refers back to one being generated: recursion is cut there. */
export const CYCLE = Symbol('cycle')

/**
 * Flattens a schema node for generation: follows `$ref`s, merges `allOf` members into one schema,
 * and replaces `oneOf`/`anyOf` with their first branch that is not just `null`, merged with the
 * keywords beside them. `active` holds the references being generated further up; meeting one
 * again returns CYCLE. Boolean schemas: `true` is the empty schema, `false` gives undefined.
 *
 * @example
 * viewSchema({ allOf: [{ $ref: '#/components/schemas/NewPet' }, { required: ['id'], properties: { id: { type: 'integer' } } }] }, resolver, new Set())
 * // { schema: { required: ['name', 'id'], properties: { name: {...}, tag: {...}, id: {...} } }, refs: ['#/components/schemas/NewPet'] }
 */
export function viewSchema(
  node: unknown,
  resolver: RefResolver,
  active: ReadonlySet<string>,
): SchemaView | typeof CYCLE | undefined {
  return flatten(node, resolver, active, new Set(), 0)
}

// allOf/oneOf nesting deeper than this is a pathological document, not a real API.
const MAX_COMBINATOR_DEPTH = 32

function flatten(
  node: unknown,
  resolver: RefResolver,
  active: ReadonlySet<string>,
  local: Set<string>,
  level: number,
): SchemaView | typeof CYCLE | undefined {
  if (level > MAX_COMBINATOR_DEPTH) return undefined
  if (node === true) return { schema: {}, refs: [] }
  if (node === false || !isObject(node)) return undefined
  const refs: string[] = []
  let schema: Schema = node
  if (typeof node['$ref'] === 'string') {
    const ref = node['$ref']
    if (active.has(ref) || local.has(ref)) return CYCLE
    const resolved = resolver.deref(node)
    if (resolved === undefined) return undefined
    if (resolved.value === true) {
      return { schema: {}, refs: resolved.ref === undefined ? [] : [resolved.ref] }
    }
    if (!isObject(resolved.value)) return undefined
    schema = resolved.value
    if (resolved.ref !== undefined) refs.push(resolved.ref)
    refs.push(ref)
  }
  const inner = new Set(local)
  for (const r of refs) inner.add(r)

  if (Array.isArray(schema['allOf'])) {
    let merged: Schema = without(schema, 'allOf')
    for (const member of schema['allOf']) {
      const view = flatten(member, resolver, active, inner, level + 1)
      if (view === CYCLE || view === undefined) continue
      merged = mergeSchemas(merged, view.schema)
      refs.push(...view.refs)
    }
    schema = merged
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key]
    if (!Array.isArray(branches) || branches.length === 0) continue
    const chosen = branches.find((b) => !isNullSchema(b, resolver)) ?? branches[0]
    const view = flatten(chosen, resolver, active, inner, level + 1)
    schema = without(schema, key)
    if (view === CYCLE) return CYCLE
    if (view !== undefined) {
      schema = mergeSchemas(schema, view.schema)
      refs.push(...view.refs)
    }
  }
  return { schema, refs: dedupe(refs) }
}

function isNullSchema(node: unknown, resolver: RefResolver): boolean {
  const value = resolver.deref(node)?.value
  return (
    isObject(value) &&
    (value['type'] === 'null' ||
      (Array.isArray(value['enum']) && value['enum'].length === 1 && value['enum'][0] === null))
  )
}

function without(schema: Schema, key: string): Schema {
  const out: Schema = { ...schema }
  delete out[key]
  return out
}

function dedupe(refs: string[]): string[] {
  return [...new Set(refs)]
}

const lowerBounds = ['minimum', 'minLength', 'minItems', 'minProperties']
const upperBounds = ['maximum', 'maxLength', 'maxItems', 'maxProperties']

/**
 * Merges two schemas that must both hold (allOf). Properties are united (a property defined on
 * both sides becomes the allOf of its two schemas), `required` is united, types are
 * intersected, bounds take the stricter value, and for anything else (`example`, `format`,
 * `xml`, ...) the first schema wins: the schema that carries the `allOf` comes first, so its own
 * example beats its members'. Two schemas whose types exclude each other cannot both hold; then
 * the second (a later allOf member, or a property redeclared by it) wins whole.
 *
 * @example
 * mergeSchemas({ required: ['a'], properties: { a: { type: 'string' } } }, { required: ['b'], properties: { b: { type: 'integer' } }, minLength: 2 })
 * // { required: ['a', 'b'], properties: { a: {...}, b: {...} }, minLength: 2 }
 */
function mergeSchemas(a: Schema, b: Schema): Schema {
  const ta = typesOf(a['type'])
  const tb = typesOf(b['type'])
  // Types with nothing in common make the allOf unsatisfiable. Descriptions that do this mean
  // an override (a base declares `result: string`, a member redeclares it as an array), so the
  // later member wins whole.
  if (
    ta !== undefined &&
    tb !== undefined &&
    !ta.some((t) => tb.includes(t) || (isNumeric(t) && tb.some(isNumeric)))
  ) {
    return { ...a, ...b }
  }
  const out: Schema = { ...b, ...a }
  const pa = isObject(a['properties']) ? a['properties'] : undefined
  const pb = isObject(b['properties']) ? b['properties'] : undefined
  if (pa !== undefined && pb !== undefined) {
    const props: Schema = { ...pa }
    for (const [k, v] of Object.entries(pb)) props[k] = k in pa ? { allOf: [pa[k], v] } : v
    out['properties'] = props
  }
  if (Array.isArray(a['required']) || Array.isArray(b['required'])) {
    out['required'] = dedupeValues([...asArray(a['required']), ...asArray(b['required'])])
  }
  if (ta !== undefined && tb !== undefined) {
    const both = ta.filter(
      (t) =>
        tb.includes(t) ||
        (t === 'integer' && tb.includes('number')) ||
        (t === 'number' && tb.includes('integer')),
    )
    const pick = both.map((t) =>
      t === 'number' && (ta.includes('integer') || tb.includes('integer')) ? 'integer' : t,
    )
    out['type'] = pick.length === 1 ? pick[0] : pick.length > 1 ? dedupeValues(pick) : a['type']
  }
  for (const key of lowerBounds) {
    if (typeof a[key] === 'number' && typeof b[key] === 'number') {
      out[key] = Math.max(a[key], b[key])
    }
  }
  for (const key of upperBounds) {
    if (typeof a[key] === 'number' && typeof b[key] === 'number') {
      out[key] = Math.min(a[key], b[key])
    }
  }
  if (Array.isArray(a['enum']) && Array.isArray(b['enum'])) {
    const eb = b['enum'].map((v) => JSON.stringify(v))
    const common = a['enum'].filter((v) => eb.includes(JSON.stringify(v)))
    if (common.length > 0) out['enum'] = common
  }
  if (a['items'] !== undefined && b['items'] !== undefined && a['items'] !== b['items']) {
    out['items'] = { allOf: [a['items'], b['items']] }
  }
  if (a['additionalProperties'] === false || b['additionalProperties'] === false) {
    out['additionalProperties'] = false
  }
  // 3.0 `nullable`: the merged schema allows null only when every member does.
  if (a['nullable'] === true && b['nullable'] !== true && b['type'] !== undefined) {
    delete out['nullable']
  }
  return out
}

function isNumeric(type: string): boolean {
  return type === 'number' || type === 'integer'
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

function dedupeValues<T>(values: T[]): T[] {
  return [...new Set(values)]
}

function typesOf(type: unknown): string[] | undefined {
  if (typeof type === 'string') return [type]
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string')
  return undefined
}

/**
 * The type to generate: `type` (the first that is not `null` when it is a 3.1 list), else what
 * the keywords imply; undefined when the schema says nothing about it.
 *
 * @example
 * pickType({ type: ['null', 'integer'] }) // 'integer'
 * pickType({ properties: {} }) // 'object'
 */
export function pickType(schema: Schema): string | undefined {
  const declared = typesOf(schema['type'])
  if (declared !== undefined && declared.length > 0) {
    return declared.find((t) => t !== 'null') ?? 'null'
  }
  if (
    isObject(schema['properties']) ||
    schema['additionalProperties'] !== undefined ||
    Array.isArray(schema['required'])
  ) {
    return 'object'
  }
  if (schema['items'] !== undefined || Array.isArray(schema['prefixItems'])) return 'array'
  if (
    typeof schema['format'] === 'string' ||
    typeof schema['pattern'] === 'string' ||
    typeof schema['minLength'] === 'number'
  ) {
    return 'string'
  }
  if (
    typeof schema['minimum'] === 'number' ||
    typeof schema['maximum'] === 'number' ||
    typeof schema['multipleOf'] === 'number'
  ) {
    return 'number'
  }
  return undefined
}
