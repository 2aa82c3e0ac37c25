import { randomUUID } from 'node:crypto'
import type { JsonObject } from '../../store/index.js'
import { invalidField } from '../validation.js'

/*
 * Checks of monitoring request bodies. Each failure is a 400 ERR_API_VALIDATION naming the field
 * by JSON pointer (`/steps/0/duration`). Unknown attributes are kept as sent: the product's own
 * exports carry more than its documentation lists (`args`, `fragment`, `data`), and a GET followed
 * by a PUT of the same body must succeed.
 */

const STEP_TYPES = ['request', 'pause', 'condition', 'subtest', 'external-ui-test'] as const
/** The vendor name of the external UI test step in the product's exports, kept as an alias. */
const STEP_TYPE_ALIASES: Readonly<Record<string, string>> = { 'ghost-inspector': 'external-ui-test' }
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE'])
/** Schedule intervals of the product. */
const INTERVALS = ['1m', '5m', '15m', '30m', '1h', '6h', '1d'] as const

/** `1h` or `1.0h` (the form the product reads back) -> `1h`; undefined for anything else. */
export function shortInterval (value: string): string | undefined {
  const short = value.replace(/^(\d+)\.0([mhd])$/, '$1$2')
  return (INTERVALS as readonly string[]).includes(short) ? short : undefined
}

/** The attributes each step type shows (null when not sent, spec/000). */
export const STEP_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  request: ['method', 'url', 'body', 'assertions', 'variables', 'auth', 'headers', 'form', 'scripts', 'before_scripts', 'note', 'skipped'],
  pause: ['duration', 'note', 'skipped'],
  condition: ['left_value', 'comparison', 'right_value', 'steps', 'note', 'skipped'],
  subtest: ['test_uuid', 'environment_uuid', 'bucket_key', 'use_parent_environment', 'variables', 'assertions', 'note', 'skipped'],
  'external-ui-test': ['integration_id', 'suite_id', 'test_id', 'is_custom_start_url', 'start_url', 'assertions', 'variables', 'note', 'skipped'],
}

/**
 * Go clients send every field of their structs, unset strings as `""` (`"parent_environment_id": ""`,
 * `"emails": {"notify_on": ""}`): an empty string in an optional field means "not sent".
 */
function dropEmptyStrings (o: JsonObject, keys: readonly string[]): void {
  for (const key of keys) if (o[key] === '') delete o[key]
}

/** Optional string attributes of a step (of any type) that Go clients send empty. */
const OPTIONAL_STEP_STRINGS = ['step_type', 'method', 'comparison', 'left_value', 'right_value', 'integration_id', 'suite_id', 'test_id', 'test_uuid', 'environment_uuid', 'bucket_key', 'start_url']

export function isObject (value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function optionalString (o: JsonObject, key: string, path: string, nullable = true): void {
  const v = o[key]
  if (v === undefined || (nullable && v === null)) return
  if (typeof v !== 'string') throw invalidField(`${path}/${key}`, 'must be a string')
}

function optionalBoolean (o: JsonObject, key: string, path: string): void {
  const v = o[key]
  if (v !== undefined && v !== null && typeof v !== 'boolean') throw invalidField(`${path}/${key}`, 'must be a boolean')
}

function optionalStringArray (o: JsonObject, key: string, path: string): void {
  const v = o[key]
  if (v === undefined || v === null) return
  if (!Array.isArray(v)) throw invalidField(`${path}/${key}`, 'must be an array of strings')
  v.forEach((item, i) => { if (typeof item !== 'string') throw invalidField(`${path}/${key}/${i}`, 'must be a string') })
}

/** Header or form map: name to a string or an array of strings. */
function optionalValueMap (o: JsonObject, key: string, path: string): void {
  const v = o[key]
  if (v === undefined || v === null) return
  if (!isObject(v)) throw invalidField(`${path}/${key}`, 'must be an object of strings or arrays of strings')
  for (const [name, value] of Object.entries(v)) {
    const ok = typeof value === 'string' || typeof value === 'number' || (Array.isArray(value) && value.every((x) => typeof x === 'string' || typeof x === 'number'))
    if (!ok) throw invalidField(`${path}/${key}/${name}`, 'must be a string or an array of strings')
  }
}

function optionalObjectArray (o: JsonObject, key: string, path: string, required: readonly string[]): void {
  const v = o[key]
  if (v === undefined || v === null) return
  if (!Array.isArray(v)) throw invalidField(`${path}/${key}`, 'must be an array')
  v.forEach((item, i) => {
    if (!isObject(item)) throw invalidField(`${path}/${key}/${i}`, 'must be an object')
    for (const field of required) {
      if (typeof item[field] !== 'string' || item[field] === '') throw invalidField(`${path}/${key}/${i}/${field}`, 'is required and must be a string')
    }
    if (item['property'] !== undefined && item['property'] !== null && typeof item['property'] !== 'string') throw invalidField(`${path}/${key}/${i}/property`, 'must be a string')
  })
}

/**
 * A step as it will be stored: validated, given an id (kept when `keepId` and it has one), with
 * only the attributes sent. Condition steps are checked recursively.
 *
 * @example
 * const step = readStep({ step_type: 'pause', duration: 5 }, '')
 */
export function readStep (value: unknown, path: string, keepId = false, depth = 0): JsonObject {
  if (!isObject(value)) throw invalidField(path || '/', 'must be a step object')
  if (depth > 10) throw invalidField(path, 'nests conditions too deeply (at most 10 levels)')
  const step: JsonObject = { ...value }
  dropEmptyStrings(step, OPTIONAL_STEP_STRINGS)
  const rawType = step['step_type'] ?? 'request'
  if (typeof rawType !== 'string') throw invalidField(`${path}/step_type`, `must be one of ${STEP_TYPES.join(', ')}`)
  const type = STEP_TYPE_ALIASES[rawType] ?? rawType
  if (!(STEP_TYPES as readonly string[]).includes(type)) throw invalidField(`${path}/step_type`, `must be one of ${STEP_TYPES.join(', ')}, not "${rawType}"`)
  step['step_type'] = type
  optionalString(step, 'note', path)
  optionalBoolean(step, 'skipped', path)
  switch (type) {
    case 'request': {
      if (step['method'] !== undefined) {
        if (typeof step['method'] !== 'string' || !METHODS.has(step['method'].toUpperCase())) throw invalidField(`${path}/method`, `must be an HTTP method (${[...METHODS].join(', ')})`)
        step['method'] = step['method'].toUpperCase()
      }
      optionalString(step, 'url', path)
      optionalString(step, 'body', path)
      optionalValueMap(step, 'headers', path)
      optionalValueMap(step, 'form', path)
      optionalStringArray(step, 'scripts', path)
      optionalStringArray(step, 'before_scripts', path)
      optionalObjectArray(step, 'assertions', path, ['source'])
      optionalObjectArray(step, 'variables', path, ['name', 'source'])
      if (step['auth'] !== undefined && step['auth'] !== null && !isObject(step['auth'])) throw invalidField(`${path}/auth`, 'must be an object')
      if (isObject(step['auth']) && step['auth']['auth_type'] !== undefined && !['basic', 'oauth_1', 'oauth_2', 'client_certificate', ''].includes(String(step['auth']['auth_type']))) {
        throw invalidField(`${path}/auth/auth_type`, 'must be basic, oauth_1, oauth_2 or client_certificate')
      }
      break
    }
    case 'pause': {
      const d = step['duration']
      if (typeof d !== 'number' || !Number.isInteger(d) || d < 1 || d > 120) throw invalidField(`${path}/duration`, 'must be an integer number of seconds from 1 to 120')
      break
    }
    case 'condition': {
      optionalString(step, 'left_value', path)
      optionalString(step, 'right_value', path)
      optionalString(step, 'comparison', path)
      const steps = step['steps'] ?? []
      if (!Array.isArray(steps)) throw invalidField(`${path}/steps`, 'must be an array of steps')
      step['steps'] = steps.map((s, i) => readStep(s, `${path}/steps/${i}`, keepId, depth + 1))
      break
    }
    case 'subtest': {
      const target = step['test_uuid'] ?? step['test_id']
      if (typeof target !== 'string' || target === '') throw invalidField(`${path}/test_uuid`, 'is required: the id of the test to run')
      optionalString(step, 'environment_uuid', path)
      optionalString(step, 'bucket_key', path)
      optionalBoolean(step, 'use_parent_environment', path)
      break
    }
    case 'external-ui-test':
      optionalString(step, 'integration_id', path)
      optionalString(step, 'suite_id', path)
      optionalString(step, 'test_id', path)
      optionalString(step, 'start_url', path)
      optionalBoolean(step, 'is_custom_start_url', path)
      optionalObjectArray(step, 'assertions', path, ['source'])
      optionalObjectArray(step, 'variables', path, ['name', 'source'])
      break
  }
  if (!keepId || typeof step['id'] !== 'string' || step['id'] === '') step['id'] = randomUUID()
  return step
}

/** `steps` of a test body: an array of steps. */
function readSteps (value: unknown, path: string, keepIds: boolean): JsonObject[] {
  if (!Array.isArray(value)) throw invalidField(path, 'must be an array of steps')
  return value.map((s, i) => readStep(s, `${path}/${i}`, keepIds))
}

/** What a test POST or PUT may set. */
export interface TestInput {
  name?: string
  description?: string | null
  default_environment_id?: string
  steps?: JsonObject[]
  environments?: unknown[]
}

/**
 * A test body: `name` required on create (a string of 1 to 200 characters), `description` a string
 * or null, `steps` an array of steps, `default_environment_id` a string.
 */
export function readTest (body: unknown, path: string, create: boolean): TestInput {
  if (!isObject(body)) throw invalidField(path || '/', 'must be a test object')
  const value: JsonObject = { ...body }
  dropEmptyStrings(value, ['description', 'default_environment_id'])
  const out: TestInput = {}
  const name = value['name']
  if (name !== undefined || create) {
    if (typeof name !== 'string' || name.trim() === '' || name.length > 200) throw invalidField(`${path}/name`, 'is required: a string of 1 to 200 characters')
    out.name = name
  }
  const description = value['description']
  if (description !== undefined) {
    if (description !== null && typeof description !== 'string') throw invalidField(`${path}/description`, 'must be a string or null')
    out.description = description
  }
  const env = value['default_environment_id']
  if (env !== undefined && env !== null) {
    if (typeof env !== 'string') throw invalidField(`${path}/default_environment_id`, 'must be a string')
    out.default_environment_id = env
  }
  if (value['steps'] !== undefined && value['steps'] !== null) out.steps = readSteps(value['steps'], `${path}/steps`, !create)
  if (create && Array.isArray(value['environments'])) out.environments = value['environments']
  return out
}

const ENV_BOOLEANS = ['preserve_cookies', 'verify_ssl', 'stop_on_failure', 'retry_on_failure', 'force_h2c'] as const

/**
 * `http_version_support` of an environment: `h1_1` HTTP/1.1 only (the default); `h2` HTTP/2 where
 * an https server offers it (ALPN), else 1.1. `force_h2c` makes plain http:// requests HTTP/2 with
 * prior knowledge (h2c), for servers that speak only that.
 */
const HTTP_VERSIONS = ['h1_1', 'h2'] as const

/**
 * An environment body (create: `name` required; update: only what is sent changes). Returns the
 * attributes to store, without `id` and `test_id`, which the service owns.
 */
export function readEnvironment (value: unknown, path: string, create: boolean): JsonObject {
  if (!isObject(value)) throw invalidField(path || '/', 'must be an environment object')
  const env: JsonObject = { ...value }
  delete env['id']
  delete env['test_id']
  delete env['exported_at']
  dropEmptyStrings(env, Object.keys(env).filter((k) => k !== 'name' || !create))
  if (isObject(env['emails'])) {
    env['emails'] = { ...env['emails'] }
    dropEmptyStrings(env['emails'] as JsonObject, Object.keys(env['emails'] as JsonObject))
  }
  if (create || env['name'] !== undefined) {
    if (typeof env['name'] !== 'string' || env['name'].trim() === '' || env['name'].length > 200) throw invalidField(`${path}/name`, 'is required: a string of 1 to 200 characters')
  }
  const vars = env['initial_variables']
  if (vars !== undefined && vars !== null) {
    if (!isObject(vars)) throw invalidField(`${path}/initial_variables`, 'must be an object of variable names to strings')
    for (const [k, v] of Object.entries(vars)) {
      // Defined, not assigned: a variable named `__proto__` must not reach the prototype setter.
      if (typeof v === 'number' || typeof v === 'boolean') Object.defineProperty(vars, k, { value: String(v), enumerable: true, writable: true, configurable: true })
      else if (typeof v !== 'string') throw invalidField(`${path}/initial_variables/${k}`, 'must be a string')
    }
  }
  optionalValueMap(env, 'headers', path)
  for (const key of ENV_BOOLEANS) optionalBoolean(env, key, path)
  optionalString(env, 'script', path)
  optionalString(env, 'parent_environment_id', path)
  const version = env['http_version_support']
  if (version !== undefined && version !== null && !(HTTP_VERSIONS as readonly unknown[]).includes(version)) {
    throw invalidField(`${path}/http_version_support`, `must be one of ${HTTP_VERSIONS.join(', ')}`)
  }
  optionalStringArray(env, 'regions', path)
  optionalStringArray(env, 'webhooks', path)
  if (Array.isArray(env['webhooks'])) {
    (env['webhooks'] as string[]).forEach((hook, i) => {
      if (!/^https?:\/\//i.test(hook)) throw invalidField(`${path}/webhooks/${i}`, 'must be an http or https URL')
    })
  }
  const emails = env['emails']
  if (emails !== undefined && emails !== null) {
    if (!isObject(emails)) throw invalidField(`${path}/emails`, 'must be an object')
    optionalBoolean(emails, 'notify_all', `${path}/emails`)
    const on = emails['notify_on']
    if (on !== undefined && on !== null && !['all', 'failures', 'threshold', 'switch'].includes(String(on))) {
      throw invalidField(`${path}/emails/notify_on`, 'must be all, failures, threshold or switch')
    }
    const threshold = emails['notify_threshold']
    if (threshold !== undefined && threshold !== null && (typeof threshold !== 'number' || !Number.isInteger(threshold) || threshold < 0)) {
      throw invalidField(`${path}/emails/notify_threshold`, 'must be a non-negative integer')
    }
    const recipients = emails['recipients']
    if (recipients !== undefined && recipients !== null) {
      if (!Array.isArray(recipients)) throw invalidField(`${path}/emails/recipients`, 'must be an array')
      recipients.forEach((r, i) => {
        const email = typeof r === 'string' ? r : isObject(r) ? r['email'] : undefined
        if (typeof email !== 'string' || !email.includes('@')) throw invalidField(`${path}/emails/recipients/${i}/email`, 'must be an e-mail address')
      })
    }
  }
  return env
}

/** A schedule body: `environment_id` (string), `interval` (one of INTERVALS), `note`. */
export function readSchedule (body: unknown, create: boolean): { environment_id?: string; interval?: string; note?: string | null } {
  if (!isObject(body)) throw invalidField('/', 'must be a schedule object')
  const value: JsonObject = { ...body }
  dropEmptyStrings(value, create ? ['note'] : ['note', 'environment_id', 'interval'])
  const out: { environment_id?: string; interval?: string; note?: string | null } = {}
  const env = value['environment_id']
  if (env !== undefined || create) {
    if (typeof env !== 'string' || env === '') throw invalidField('/environment_id', 'is required: the id of an environment of the test or its bucket')
    out.environment_id = env
  }
  const interval = value['interval']
  if (interval !== undefined || create) {
    const short = typeof interval === 'string' ? shortInterval(interval) : undefined
    if (short === undefined) throw invalidField('/interval', `must be one of ${INTERVALS.join(', ')} (or ${INTERVALS.map((i) => i.replace(/(\d+)/, '$1.0')).join(', ')})`)
    out.interval = short
  }
  const note = value['note']
  if (note !== undefined) {
    if (note !== null && typeof note !== 'string') throw invalidField('/note', 'must be a string or null')
    out.note = note
  }
  return out
}
