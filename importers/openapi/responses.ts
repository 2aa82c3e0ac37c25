import { joinPointer, type ResponseDslInput } from '../../src/dsl/index.js'
import { generateExample } from './example.js'
import { pickMediaType, writeBody, type ExampleSource } from './media.js'
import { exampleValueOf, isObject, type RefResolver } from './resolver.js'

/** One documented response of an operation, with the status it will be served with. */
export interface ResponseChoice {
  /** The key in `responses`: `200`, `4XX`, `default`. */
  key: string
  status: number
  node: unknown
}

/** The response served by default, the others (selected by a request header), and keys that were left out. */
interface ResponsePlan {
  main: ResponseChoice | undefined
  variants: ResponseChoice[]
  skipped: Array<{ key: string; reason: string }>
}

/**
 * Sorts an operation's responses into the main one and the variants. The main response is the
 * lowest explicit 2xx, else a `2XX` range, else `default`, else the lowest other documented
 * status (an endpoint documented only with `302` answers 302). Every other response is a
 * variant. `default` is served as 200 when it is the main response (nothing else describes
 * success) and as 500 when it is a variant; a range `4XX` as 400. Informational 1xx responses
 * are skipped: a mock cannot send an interim response.
 *
 * @example
 * planResponses({ '404': {...}, '200': {...}, default: {...} })
 * // { main: { key: '200', status: 200 }, variants: [{ key: '404', status: 404 }, { key: 'default', status: 500 }], skipped: [] }
 */
export function planResponses(responses: Record<string, unknown>): ResponsePlan {
  const plan: ResponsePlan = { main: undefined, variants: [], skipped: [] }
  const candidates: ResponseChoice[] = []
  for (const [key, node] of Object.entries(responses)) {
    if (key.startsWith('x-')) continue
    const status = statusOf(key)
    if (status === undefined) {
      plan.skipped.push({ key, reason: 'is not a status code, a range such as 4XX, or default' })
    } else if (status < 200) {
      plan.skipped.push({
        key,
        reason: 'is an informational (1xx) response, which a mock cannot send',
      })
    } else candidates.push({ key, status, node })
  }
  const explicit = candidates
    .filter((c) => /^\d{3}$/.test(c.key))
    .sort((a, b) => a.status - b.status)
  const main =
    explicit.find((c) => c.status < 300) ??
    candidates.find((c) => /^2xx$/i.test(c.key)) ??
    candidates.find((c) => c.key === 'default') ??
    explicit[0] ??
    candidates[0]
  if (main !== undefined) plan.main = main.key === 'default' ? { ...main, status: 200 } : main
  plan.variants = candidates.filter((c) => c !== main)
  return plan
}

function statusOf(key: string): number | undefined {
  if (/^[1-5]\d\d$/.test(key)) return Number(key)
  if (/^[1-5]xx$/i.test(key)) return Number(key[0]) * 100
  if (key === 'default') return 500
  return undefined
}

/** What building a response needs to know about its document and operation. */
interface ResponseContext {
  version: '2.0' | '3.0' | '3.1'
  resolver: RefResolver
  /** 2.0: the operation's `produces`, else the document's. */
  produces: string[]
  /** JSON pointer of the response, for warnings. */
  at: string
  /** 3.x: serve this named entry of the media type's `examples` (the `Prefer: example=` variants). */
  example?: string
}

/**
 * Builds the responseDsl for one documented response: status, documented headers with their
 * example (or a value generated from their schema), and the body in the preferred media type
 * (pickMediaType) from, in order: the media type's `example`, its first usable `examples` entry
 * (`value`, or an `externalValue` file read through the import context), for 2.0 the response's
 * `examples[mediaType]`, and else an example generated from the schema (generateExample).
 * Returns notes to report as warnings.
 *
 * @example
 * buildResponse(doc.paths['/pets'].get.responses['200'], 200, ctx)
 * // { responseDsl: { status: 200, headers: [{ name: 'X-Rate-Limit', value: '0' }], contentType: 'application/json', content: '...' }, notes: [] }
 */
export function buildResponse(
  node: unknown,
  status: number,
  ctx: ResponseContext,
): { responseDsl: ResponseDslInput; notes: string[] } {
  const responseDsl: ResponseDslInput = { status }
  const response = ctx.resolver.deref(node, ctx.at)?.value
  if (!isObject(response)) {
    return { responseDsl, notes: ['the response is not an object; it is served without a body'] }
  }
  const headers = buildHeaders(response['headers'], ctx)
  if (headers.length > 0) responseDsl.headers = headers
  const { mediaType, source, schema } =
    ctx.version === '2.0' ? bodyOf2(response, ctx) : bodyOf3(response, ctx)
  if (mediaType === undefined) return { responseDsl, notes: [] }
  return { responseDsl, notes: writeBody(responseDsl, mediaType, source, schema, ctx.resolver) }
}

interface BodyPlan {
  mediaType: string | undefined
  source: ExampleSource | undefined
  schema: unknown
}

function bodyOf3(response: Record<string, unknown>, ctx: ResponseContext): BodyPlan {
  const content = isObject(response['content']) ? response['content'] : {}
  const mediaType = pickMediaType(Object.keys(content))
  if (mediaType === undefined) return { mediaType, source: undefined, schema: undefined }
  const at = joinPointer(joinPointer(ctx.at, 'content'), mediaType)
  const media = ctx.resolver.deref(content[mediaType], at)?.value
  if (!isObject(media)) return { mediaType, source: undefined, schema: undefined }
  const schema = media['schema']
  const named = ctx.example === undefined ? undefined : namedExample(media, ctx.example, ctx, at)
  return {
    mediaType,
    source: named ?? explicitExample(media, ctx, at) ?? generated(schema, ctx),
    schema,
  }
}

/**
 * 3.x: the names of the `examples` entries of a response's preferred media type, when it has more
 * than one (each becomes a `Prefer: example=<name>` variant); [] otherwise.
 *
 * @example
 * exampleNames(doc.paths['/pets'].get.responses['200'], ctx) // ['cat', 'dog']
 */
export function exampleNames(node: unknown, ctx: ResponseContext): string[] {
  if (ctx.version === '2.0') return []
  const response = ctx.resolver.deref(node)?.value
  const content = isObject(response) && isObject(response['content']) ? response['content'] : {}
  const mediaType = pickMediaType(Object.keys(content))
  const media = mediaType === undefined ? undefined : ctx.resolver.deref(content[mediaType])?.value
  const examples =
    isObject(media) && isObject(media['examples']) ? Object.keys(media['examples']) : []
  return examples.length > 1 ? examples : []
}

function namedExample(
  media: Record<string, unknown>,
  name: string,
  ctx: ResponseContext,
  at: string,
): ExampleSource | undefined {
  if (!isObject(media['examples'])) return undefined
  const exampleAt = joinPointer(joinPointer(at, 'examples'), name)
  const example = ctx.resolver.deref(media['examples'][name], exampleAt)?.value
  return isObject(example) ? sourceOf(example['value'], ctx, exampleAt) : undefined
}

/** An example value as a source, its `$ref` followed (exampleValueOf); undefined when there is none. */
function sourceOf(value: unknown, ctx: ResponseContext, at: string): ExampleSource | undefined {
  if (value === undefined) return undefined
  const resolved = exampleValueOf(value, ctx.resolver, at)
  return resolved === undefined ? undefined : { value: resolved }
}

function bodyOf2(response: Record<string, unknown>, ctx: ResponseContext): BodyPlan {
  const examples = isObject(response['examples']) ? response['examples'] : {}
  const schemaNode = response['schema']
  // A response without schema and examples has no body, whatever `produces` lists.
  if (schemaNode === undefined && Object.keys(examples).length === 0) {
    return { mediaType: undefined, source: undefined, schema: undefined }
  }
  const types = [...ctx.produces, ...Object.keys(examples).filter((k) => !ctx.produces.includes(k))]
  if (types.length === 0) types.push('application/json')
  const mediaType = pickMediaType(types)
  if (mediaType === undefined) return { mediaType, source: undefined, schema: undefined }
  const schema = ctx.resolver.deref(schemaNode, `${ctx.at}/schema`)?.value
  if (isObject(schema) && schema['type'] === 'file') return { mediaType, source: undefined, schema }
  return {
    mediaType,
    source: sourceOf(examples[mediaType], ctx, `${ctx.at}/examples`) ?? generated(schemaNode, ctx),
    schema: schemaNode,
  }
}

function generated(schema: unknown, ctx: ResponseContext): ExampleSource | undefined {
  if (schema === undefined) return undefined
  const value = generateExample(schema, ctx.resolver)
  return value === undefined ? undefined : { value }
}

/** A 3.x media type's (or header's) own example: `example`, else the first usable `examples` entry. */
function explicitExample(
  media: Record<string, unknown>,
  ctx: ResponseContext,
  at: string,
): ExampleSource | undefined {
  const own = sourceOf(media['example'], ctx, joinPointer(at, 'example'))
  if (own !== undefined) return own
  if (!isObject(media['examples'])) return undefined
  for (const [name, node] of Object.entries(media['examples'])) {
    const exampleAt = joinPointer(joinPointer(at, 'examples'), name)
    const example = ctx.resolver.deref(node, exampleAt)?.value
    if (!isObject(example)) continue
    const value = sourceOf(example['value'], ctx, exampleAt)
    if (value !== undefined) return value
    const external = example['externalValue']
    if (typeof external === 'string' && !/^[a-z][a-z0-9+.-]*:/i.test(external)) {
      const bytes = ctx.resolver.readRaw(external)
      if (bytes !== undefined) return { bytes }
    }
  }
  return undefined
}

// Written by the runtime from the body and `contentType`, or hop-by-hop: never copied from a description.
const skippedHeaders = new Set([
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
])
const tokenPattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const valuePattern = /^[\t\x20-\x7e\x80-\xff]*$/

function buildHeaders(node: unknown, ctx: ResponseContext): Array<{ name: string; value: string }> {
  const headers = ctx.resolver.deref(node)?.value
  if (!isObject(headers)) return []
  const out: Array<{ name: string; value: string }> = []
  for (const [name, headerNode] of Object.entries(headers)) {
    if (skippedHeaders.has(name.toLowerCase()) || !tokenPattern.test(name)) continue
    const header = ctx.resolver.deref(
      headerNode,
      joinPointer(joinPointer(ctx.at, 'headers'), name),
    )?.value
    if (!isObject(header)) continue
    let source: ExampleSource | undefined
    if (ctx.version === '2.0') {
      // A 2.0 header object is itself a schema (type, format, enum, default).
      source =
        header['x-example'] !== undefined ? { value: header['x-example'] } : generated(header, ctx)
    } else {
      source = explicitExample(header, ctx, ctx.at) ?? generated(header['schema'], ctx)
    }
    const value = source !== undefined && 'value' in source ? headerValue(source.value) : undefined
    if (value !== undefined && valuePattern.test(value)) out.push({ name, value })
  }
  return out
}

/** A header value from an example: scalars as text, arrays of scalars comma-separated (style `simple`). */
function headerValue(value: unknown): string | undefined {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return String(value)
  }
  if (
    Array.isArray(value) &&
    value.every((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
  ) {
    return value.join(',')
  }
  return undefined
}
