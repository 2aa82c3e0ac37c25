import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { jsonTextDepth } from '../../src/dsl/index.js'
import { parseStructured } from '../shared/index.js'
import type { ImportContext, ImportInput } from '../types.js'
import { matchPath, serverBase, swaggerBase, type ServerBase } from './paths.js'
import { isObject, RefResolver } from './resolver.js'

/** What a request check reads of a request (the runtime's MatchRequest fits). */
interface RequestView {
  readonly method: string
  readonly path: string
  readonly rawQuery: string
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  readonly body: Buffer | null
}

/** One way a request does not fit its operation: `/query/limit`, `/header/x-api-key`, `/body/name`. */
interface Violation {
  path: string
  message: string
  /** For missing credentials: the HTTP authentication schemes that would do (`Bearer`, `Basic`), for `WWW-Authenticate`. */
  challenges?: string[]
}

/** The operation a request is for, and what it breaks of it; null when no operation has its path. */
type RequestValidator = (req: RequestView) => { operation: string; violations: Violation[] } | null

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const
type Json = Record<string, unknown>
type Location = 'path' | 'query' | 'header' | 'cookie'

interface ParameterCheck {
  name: string
  in: Location
  required: boolean
  /** Validates `{ v: value }`, so that ajv coerces the string to the schema's type. */
  validate: ValidateFunction | null
  array: boolean
}

interface OperationCheck {
  name: string
  method: string
  pattern: RegExp
  names: string[]
  placeholders: number
  parameters: ParameterCheck[]
  /** `recursive`: its schema refers to itself, so a body's depth is bounded before ajv recurses into it. */
  body: {
    required: boolean
    validate: ValidateFunction | null
    json: boolean
    recursive: boolean
  } | null
  /** Alternatives (OR) of requirements (AND) of credential checks, each naming what it wants. */
  security: Array<Array<SecurityCheck>>
}

/** One security scheme: whether a request carries its credential, and what that credential is. */
interface SecurityCheck {
  test: (req: RequestView, query: URLSearchParams, cookies: Map<string, string>) => boolean
  wants: string
  /** Its HTTP authentication scheme (`Bearer`, `Basic`), when it is one. */
  challenge?: string
}

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule })
  .default ?? addFormatsModule) as unknown as (ajv: Ajv) => void

/**
 * Request validation against OpenAPI descriptions (opt-in: `serve --validate-requests`), as Prism
 * does: for the operation a request's method and path name, its parameters (path, query,
 * header, cookie: presence and schema, strings coerced to the schema's type), its body (presence
 * and JSON schema) and the presence of credentials its security asks for. Every schema is
 * compiled with ajv here, at load; a request costs a lookup by method and path and the compiled
 * checks. Descriptions that are not OpenAPI are ignored.
 *
 * @example
 * const validate = openApiRequestValidator([{ bytes, fileName: 'petstore.yaml' }])
 * validate(matchRequest)?.violations // [{ path: '/query/limit', message: 'must be integer' }]
 */
export function openApiRequestValidator(
  inputs: readonly ImportInput[],
  ctx: ImportContext = {},
): { validate: RequestValidator; operations: number } {
  // Parameters arrive as strings and are coerced to their schema's type; bodies are JSON, never coerced.
  const ajv = {
    parameters: new Ajv({ strict: false, allErrors: true, coerceTypes: 'array', logger: false }),
    body: new Ajv({ strict: false, allErrors: true, logger: false }),
  }
  addFormats(ajv.parameters)
  addFormats(ajv.body)
  const byMethod = new Map<string, OperationCheck[]>()
  let count = 0
  for (const input of inputs) {
    let doc: unknown
    try {
      doc = parseStructured(input).value
    } catch {
      continue
    }
    if (!isObject(doc) || (doc['openapi'] === undefined && doc['swagger'] === undefined)) continue
    for (const check of operationChecks(doc, input.fileName, ajv, ctx)) {
      const list = byMethod.get(check.method) ?? []
      list.push(check)
      byMethod.set(check.method, list)
      count++
    }
  }
  // literal paths before templated ones: `/pets/mine` is not `/pets/{id}`
  for (const list of byMethod.values()) list.sort((a, b) => a.placeholders - b.placeholders)
  return {
    operations: count,
    validate: (req) => {
      const list = byMethod.get(req.method)
      if (list === undefined) return null
      for (const check of list) {
        const found = check.pattern.exec(req.path)
        if (found !== null) {
          return { operation: check.name, violations: violationsOf(check, req, found) }
        }
      }
      return null
    },
  }
}

function operationChecks(
  doc: Json,
  fileName: string,
  ajv: { parameters: Ajv; body: Ajv },
  ctx: ImportContext,
): OperationCheck[] {
  const swagger = doc['swagger'] !== undefined
  const resolver = new RefResolver(doc, { fileName, readFile: ctx.readFile, warn: () => {} })
  const schema = (node: unknown): Json | null => {
    const resolved = rootSchema(node, resolver)
    return isObject(resolved) ? resolved : null
  }
  const bodyOf = (
    node: unknown,
    required: boolean,
    json: boolean,
  ): NonNullable<OperationCheck['body']> => {
    const resolved = schema(node)
    return {
      required,
      validate: compile(resolved),
      json,
      recursive: resolved?.['$defs'] !== undefined,
    }
  }
  const compile = (node: Json | null, instance: Ajv = ajv.body): ValidateFunction | null => {
    if (node === null) return null
    try {
      return instance.compile(node)
    } catch {
      return null // a schema ajv cannot compile checks nothing, rather than refusing the mock
    }
  }
  const rootBase = swagger ? swaggerBase(doc) : serverBase(doc['servers'])
  const schemes = securitySchemes(doc, resolver, swagger)
  const out: OperationCheck[] = []
  const paths = isObject(doc['paths']) ? doc['paths'] : {}
  for (const [key, itemNode] of Object.entries(paths)) {
    if (key.startsWith('x-')) continue
    const item = resolver.deref(itemNode)?.value
    if (!isObject(item)) continue
    for (const method of methods) {
      const operation = item[method]
      if (!isObject(operation)) continue
      const base = baseOf(swagger, rootBase, item, operation)
      const template = matchPath(base.prefix, key).path
      const { pattern, names } = templatePattern(template)
      const parameters: ParameterCheck[] = []
      let body: OperationCheck['body'] = null
      const declared = new Map<string, Json>()
      for (const list of [item['parameters'], operation['parameters']]) {
        if (!Array.isArray(list)) continue
        for (const p of list) {
          const param = resolver.deref(p)?.value
          if (isObject(param) && typeof param['name'] === 'string') {
            declared.set(`${String(param['in'])} ${param['name']}`, param)
          }
        }
      }
      for (const param of declared.values()) {
        const where = param['in']
        if (where === 'body') {
          body = bodyOf(param['schema'], param['required'] === true, true)
          continue
        }
        if (where !== 'path' && where !== 'query' && where !== 'header' && where !== 'cookie') {
          continue
        }
        const paramSchema = swagger ? swaggerParamSchema(param) : schema(param['schema'])
        parameters.push({
          name: where === 'header' ? String(param['name']).toLowerCase() : String(param['name']),
          in: where,
          required: where === 'path' || param['required'] === true,
          validate:
            paramSchema === null ? null : compile(wrapParameter(paramSchema), ajv.parameters),
          array: paramSchema?.['type'] === 'array',
        })
      }
      if (!swagger) {
        const requestBody = resolver.deref(operation['requestBody'])?.value
        if (isObject(requestBody)) {
          const content = isObject(requestBody['content']) ? requestBody['content'] : {}
          const jsonType = Object.keys(content).find((t) => /json/i.test(t))
          const media = jsonType === undefined ? undefined : content[jsonType]
          body = bodyOf(
            isObject(media) ? media['schema'] : undefined,
            requestBody['required'] === true,
            jsonType !== undefined,
          )
        }
      }
      const requirements = Array.isArray(operation['security'])
        ? operation['security']
        : Array.isArray(doc['security'])
          ? doc['security']
          : []
      const security = requirements
        .filter(isObject)
        .map((requirement) =>
          Object.keys(requirement).map(
            (name) => schemes.get(name) ?? { test: () => true, wants: name },
          ),
        )
      out.push({
        name: `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        pattern,
        names,
        placeholders: names.length,
        parameters,
        body,
        security,
      })
    }
  }
  return out
}

function violationsOf(
  check: OperationCheck,
  req: RequestView,
  found: RegExpExecArray,
): Violation[] {
  const violations: Violation[] = []
  const query = new URLSearchParams(req.rawQuery)
  const cookies = cookiesOf(req.headers['cookie'])
  for (const p of check.parameters) {
    let value: string | string[] | undefined
    if (p.in === 'path') value = decodeSegment(found[check.names.indexOf(p.name) + 1])
    else if (p.in === 'query') {
      value = p.array
        ? query.getAll(p.name).length > 0
          ? query.getAll(p.name).flatMap((v) => v.split(','))
          : undefined
        : (query.get(p.name) ?? undefined)
    } else if (p.in === 'header') value = req.headers[p.name]
    else value = cookies.get(p.name)
    const at = `/${p.in}/${p.name}`
    if (value === undefined) {
      if (p.required) {
        violations.push({ path: at, message: `the ${p.in} parameter "${p.name}" is required` })
      }
      continue
    }
    if (p.validate !== null && !p.validate({ v: value })) {
      for (const e of p.validate.errors ?? []) {
        violations.push({ path: at + e.instancePath.replace(/^\/v/, ''), message: messageOf(e) })
      }
    }
  }
  if (check.body !== null) {
    const empty = req.body === null || req.body.length === 0
    if (empty) {
      if (check.body.required) {
        violations.push({ path: '/body', message: 'a request body is required' })
      }
    } else if (check.body.validate !== null && check.body.json) {
      let parsed: unknown
      let ok = true
      const text = req.body?.toString('utf8') ?? ''
      // A recursive schema is validated as deep as the body goes: bound the depth first, so that a
      // hostile body cannot exhaust the stack (a 422, not a 500).
      if (check.body.recursive && jsonTextDepth(text, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
        violations.push({
          path: '/body',
          message: `must not nest deeper than ${MAX_BODY_DEPTH} levels`,
        })
        return violations
      }
      try {
        parsed = JSON.parse(text)
      } catch {
        ok = false
        violations.push({ path: '/body', message: 'the body must be JSON' })
      }
      if (ok && !check.body.validate(parsed)) {
        for (const e of check.body.validate.errors ?? []) {
          violations.push({ path: `/body${e.instancePath}`, message: messageOf(e) })
        }
      }
    }
  }
  if (
    check.security.length > 0 &&
    !check.security.some((all) => all.every((s) => s.test(req, query, cookies)))
  ) {
    // Each alternative said once: two OAuth schemes both want `Authorization: Bearer`.
    const wanted = [
      ...new Set(check.security.map((all) => [...new Set(all.map((s) => s.wants))].join(' and '))),
    ].join(', or ')
    const challenges = [
      ...new Set(
        check.security.flat().flatMap((s) => (s.challenge === undefined ? [] : [s.challenge])),
      ),
    ]
    violations.push({
      path: '/security',
      message: `credentials are required: ${wanted}`,
      challenges,
    })
  }
  return violations
}

function messageOf(e: ErrorObject): string {
  if (e.keyword === 'required') {
    return `must have property "${String((e.params as { missingProperty?: unknown }).missingProperty)}"`
  }
  if (e.keyword === 'additionalProperties') {
    return `must not have property "${String((e.params as { additionalProperty?: unknown }).additionalProperty)}"`
  }
  if (e.keyword === 'enum') {
    return `must be one of ${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)}`
  }
  return e.message ?? 'is invalid'
}

/** `/pets/{petId}` -> /^\/pets\/([^/]+)$/ and ['petId']. */
function templatePattern(template: string): { pattern: RegExp; names: string[] } {
  const names: string[] = []
  const source = template
    .split(/(\{[^{}]+\})/)
    .map((part) => {
      const name = /^\{([^{}]+)\}$/.exec(part)?.[1]
      if (name !== undefined) {
        names.push(name)
        return '([^/]+)'
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    })
    .join('')
  return { pattern: new RegExp(`^${source}/?$`), names }
}

function baseOf(swagger: boolean, root: ServerBase, item: Json, operation: Json): ServerBase {
  if (swagger) return root
  for (const servers of [operation['servers'], item['servers']]) {
    if (Array.isArray(servers) && servers.length > 0) return serverBase(servers)
  }
  return root
}

/** A Swagger 2.0 non-body parameter is its own schema (type, format, enum, items...). */
function swaggerParamSchema(param: Json): Json | null {
  if (typeof param['type'] !== 'string' || param['type'] === 'file') return null
  const out: Json = {}
  for (const key of [
    'type',
    'format',
    'enum',
    'items',
    'minimum',
    'maximum',
    'minLength',
    'maxLength',
    'pattern',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'minItems',
    'maxItems',
  ]) {
    if (param[key] !== undefined) out[key] = param[key]
  }
  return out
}

/** Deepest request body checked against a recursive schema; deeper ones are refused (422). */
const MAX_BODY_DEPTH = 256

/** A parameter's schema under `{v: ...}` (so that ajv coerces the value in place), its `$defs` kept at the root. */
function wrapParameter(paramSchema: Json): Json {
  const { $defs, ...own } = paramSchema
  return { type: 'object', properties: { v: own }, ...($defs === undefined ? {} : { $defs }) }
}

/**
 * A schema ready for ajv: every `$ref` followed and inlined, except where a schema refers to
 * itself (a tree node whose children are nodes): the reference that closes the cycle becomes a
 * `{$ref: '#/$defs/understudy-recursive-N'}` to a definition added under the root's `$defs`, which ajv compiles as a
 * recursive schema, so that a recursive value is checked at every depth.
 */
function rootSchema(node: unknown, resolver: RefResolver): unknown {
  const defs = new Map<string, string>()
  const root = resolveSchema(node, resolver, new Set(), 0, defs)
  if (defs.size === 0 || !isObject(root)) return root
  const built: Json = {}
  // Expanding a definition may find further cycles: until every named one is built.
  for (let done = 0; done < defs.size;) {
    for (const [ref, name] of [...defs].slice(done)) {
      built[name] = resolveSchema({ $ref: ref }, resolver, new Set(), 0, defs)
      done++
    }
  }
  return { ...root, $defs: { ...(isObject(root['$defs']) ? root['$defs'] : {}), ...built } }
}

/**
 * The schema with every `$ref` followed (a reference already being expanded becomes a reference to
 * a root definition named in `defs`: see rootSchema) and OpenAPI 3.0's `nullable` turned into a
 * JSON Schema type list. Depth is bounded.
 */
function resolveSchema(
  node: unknown,
  resolver: RefResolver,
  expanding: Set<string>,
  depth: number,
  defs: Map<string, string>,
): unknown {
  if (depth > 64) return {}
  if (Array.isArray(node)) {
    return node.map((n) => resolveSchema(n, resolver, expanding, depth + 1, defs))
  }
  if (!isObject(node)) return node
  let value: unknown = node
  let ref: string | undefined
  if (typeof node['$ref'] === 'string') {
    ref = node['$ref']
    if (expanding.has(ref)) {
      let name = defs.get(ref)
      if (name === undefined) {
        name = `understudy-recursive-${defs.size}`
        defs.set(ref, name)
      }
      return { $ref: `#/$defs/${name}` }
    }
    value = resolver.deref(node)?.value
    if (!isObject(value)) return {}
  }
  if (ref !== undefined) expanding.add(ref)
  const out: Json = {}
  for (const [key, inner] of Object.entries(value as Json)) {
    if (
      key === '$ref' ||
      key === 'example' ||
      key === 'examples' ||
      key === 'xml' ||
      key === 'discriminator'
    ) {
      continue
    }
    out[key] =
      key === 'properties' ||
      key === 'patternProperties' ||
      key === 'definitions' ||
      key === '$defs'
        ? Object.fromEntries(
            Object.entries(isObject(inner) ? inner : {}).map(([k, v]) => [
              k,
              resolveSchema(v, resolver, expanding, depth + 1, defs),
            ]),
          )
        : resolveSchema(inner, resolver, expanding, depth + 1, defs)
  }
  if (ref !== undefined) expanding.delete(ref)
  if (out['nullable'] === true && typeof out['type'] === 'string') {
    out['type'] = [out['type'], 'null']
  }
  return out
}

/** Checks of the security schemes by name: the credential each one needs is present. */
function securitySchemes(
  doc: Json,
  resolver: RefResolver,
  swagger: boolean,
): Map<string, SecurityCheck> {
  const source = swagger
    ? doc['securityDefinitions']
    : isObject(doc['components'])
      ? doc['components']['securitySchemes']
      : undefined
  const out = new Map<string, SecurityCheck>()
  if (!isObject(source)) return out
  for (const [name, node] of Object.entries(source)) {
    const scheme = resolver.deref(node)?.value
    if (!isObject(scheme)) continue
    const type = String(scheme['type'])
    const authorization = (req: RequestView): string => {
      const value = req.headers['authorization']
      return typeof value === 'string' ? value : ''
    }
    if (type === 'apiKey' && typeof scheme['name'] === 'string') {
      const key = scheme['name']
      const where = scheme['in']
      if (where === 'header') {
        out.set(name, {
          test: (req) => req.headers[key.toLowerCase()] !== undefined,
          wants: `header ${key}`,
        })
      } else if (where === 'query') {
        out.set(name, { test: (_req, query) => query.has(key), wants: `query parameter ${key}` })
      } else if (where === 'cookie') {
        out.set(name, { test: (_req, _query, cookies) => cookies.has(key), wants: `cookie ${key}` })
      }
    } else if (
      type === 'basic' ||
      (type === 'http' && String(scheme['scheme']).toLowerCase() === 'basic')
    ) {
      out.set(name, {
        test: (req) => /^basic\s+\S/i.test(authorization(req)),
        wants: 'Authorization: Basic',
        challenge: 'Basic',
      })
    } else if (type === 'http') {
      const word = String(scheme['scheme'] ?? 'bearer')
      const challenge = `${word.charAt(0).toUpperCase()}${word.slice(1)}`
      out.set(name, {
        test: (req) => authorization(req).toLowerCase().startsWith(`${word.toLowerCase()} `),
        wants: `Authorization: ${challenge}`,
        challenge,
      })
    } else if (type === 'oauth2' || type === 'openIdConnect') {
      out.set(name, {
        test: (req) => /^bearer\s+\S/i.test(authorization(req)),
        wants: 'Authorization: Bearer',
        challenge: 'Bearer',
      })
    }
  }
  return out
}

function cookiesOf(header: string | string[] | undefined): Map<string, string> {
  const out = new Map<string, string>()
  const text = Array.isArray(header) ? header.join('; ') : (header ?? '')
  for (const part of text.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim())
  }
  return out
}

function decodeSegment(segment: string | undefined): string | undefined {
  if (segment === undefined) return undefined
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}
