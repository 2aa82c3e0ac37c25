import { randomUUID } from 'node:crypto'
import type { SchemaObject } from 'ajv'
import type { JsonObject } from '../../store/index.js'
import { fieldCheckOf, invalidField } from '../validation.js'

/*
 * Checks of monitoring request bodies: JSON Schemas compiled once (src/api/validation.ts,
 * `fieldCheckOf`), with the normalization Go clients and the product's exports need done in code
 * around them. Each failure is a 400 ERR_API_VALIDATION naming the first failing field by JSON
 * pointer (`/steps/0/duration`) in the schema node's own words (`failure`). Unknown attributes are
 * kept as sent: the product's own exports carry more than its documentation lists (`args`,
 * `fragment`, `data`), and a GET followed by a PUT of the same body must succeed.
 */

const STEP_TYPES = ['request', 'pause', 'condition', 'subtest', 'external-ui-test'] as const
/** The vendor name of the external UI test step in the product's exports, kept as an alias. */
const STEP_TYPE_ALIASES: Readonly<Record<string, string>> = {
  'ghost-inspector': 'external-ui-test',
}
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE'])
/** Schedule intervals of the product. */
const INTERVALS = ['1m', '5m', '15m', '30m', '1h', '6h', '1d'] as const

/** `1h` or `1.0h` (the form the product reads back) -> `1h`; undefined for anything else. */
export function shortInterval(value: string): string | undefined {
  const short = value.replace(/^(\d+)\.0([mhd])$/, '$1$2')
  return (INTERVALS as readonly string[]).includes(short) ? short : undefined
}

/** The attributes each step type shows (null when not sent, as the product shows them). */
export const STEP_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  request: [
    'method',
    'url',
    'body',
    'assertions',
    'variables',
    'auth',
    'headers',
    'form',
    'scripts',
    'before_scripts',
    'note',
    'skipped',
  ],
  pause: ['duration', 'note', 'skipped'],
  condition: ['left_value', 'comparison', 'right_value', 'steps', 'note', 'skipped'],
  subtest: [
    'test_uuid',
    'environment_uuid',
    'bucket_key',
    'use_parent_environment',
    'variables',
    'assertions',
    'note',
    'skipped',
  ],
  'external-ui-test': [
    'integration_id',
    'suite_id',
    'test_id',
    'is_custom_start_url',
    'start_url',
    'assertions',
    'variables',
    'note',
    'skipped',
  ],
}

/**
 * Go clients send every field of their structs, unset strings as `""` (`"parent_environment_id": ""`,
 * `"emails": {"notify_on": ""}`): an empty string in an optional field means "not sent".
 */
function dropEmptyStrings(o: JsonObject, keys: readonly string[]): void {
  for (const key of keys) if (o[key] === '') delete o[key]
}

/** Optional string attributes of a step (of any type) that Go clients send empty. */
const OPTIONAL_STEP_STRINGS = [
  'step_type',
  'method',
  'comparison',
  'left_value',
  'right_value',
  'integration_id',
  'suite_id',
  'test_id',
  'test_uuid',
  'environment_uuid',
  'bucket_key',
  'start_url',
]

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** An optional string attribute (null allowed unless `nullable` is false). */
function str(nullable = true): SchemaObject {
  return { type: nullable ? ['string', 'null'] : 'string', failure: 'must be a string' }
}

const bool: SchemaObject = { type: ['boolean', 'null'], failure: 'must be a boolean' }

const stringArray: SchemaObject = {
  type: ['array', 'null'],
  failure: 'must be an array of strings',
  items: { type: 'string', failure: 'must be a string' },
}

/** Header or form map: name to a string or an array of strings (numbers are taken as sent). */
const valueMap: SchemaObject = {
  type: ['object', 'null'],
  failure: 'must be an object of strings or arrays of strings',
  additionalProperties: {
    anyOf: [
      { type: ['string', 'number'] },
      { type: 'array', items: { type: ['string', 'number'] } },
    ],
    failure: 'must be a string or an array of strings',
  },
}

/** Assertions or variables: objects with the `required` strings, and `property` a string when sent. */
function objectArray(required: readonly string[]): SchemaObject {
  const properties: Record<string, SchemaObject> = {}
  for (const field of required) {
    properties[field] = {
      type: 'string',
      minLength: 1,
      failure: 'is required and must be a string',
    }
  }
  properties['property'] = { type: ['string', 'null'], failure: 'must be a string' }
  return {
    type: ['array', 'null'],
    failure: 'must be an array',
    items: { type: 'object', failure: 'must be an object', required, properties },
  }
}

/** Attributes every step type may carry, checked first. */
const commonStep = { note: str(), skipped: bool }

/** The schema of each step type (the type itself is read in code: it has aliases). */
const checkStepOf: Readonly<
  Record<(typeof STEP_TYPES)[number], (step: JsonObject, at: string) => void>
> = {
  request: fieldCheckOf({
    type: 'object',
    properties: {
      ...commonStep,
      method: {
        type: 'string',
        enum: [...METHODS],
        failure: `must be an HTTP method (${[...METHODS].join(', ')})`,
      },
      url: str(),
      body: str(),
      headers: valueMap,
      form: valueMap,
      scripts: stringArray,
      before_scripts: stringArray,
      assertions: objectArray(['source']),
      variables: objectArray(['name', 'source']),
      auth: {
        type: ['object', 'null'],
        failure: 'must be an object',
        properties: {
          auth_type: {
            enum: ['basic', 'oauth_1', 'oauth_2', 'client_certificate', ''],
            failure: 'must be basic, oauth_1, oauth_2 or client_certificate',
          },
        },
      },
    },
  }),
  pause: fieldCheckOf({
    type: 'object',
    required: ['duration'],
    properties: {
      ...commonStep,
      duration: {
        type: 'integer',
        minimum: 1,
        maximum: 120,
        failure: 'must be an integer number of seconds from 1 to 120',
      },
    },
  }),
  condition: fieldCheckOf({
    type: 'object',
    properties: {
      ...commonStep,
      left_value: str(),
      right_value: str(),
      comparison: str(),
      steps: { type: ['array', 'null'], failure: 'must be an array of steps' },
    },
  }),
  subtest: fieldCheckOf({
    type: 'object',
    properties: {
      ...commonStep,
      environment_uuid: str(),
      bucket_key: str(),
      use_parent_environment: bool,
    },
  }),
  'external-ui-test': fieldCheckOf({
    type: 'object',
    properties: {
      ...commonStep,
      integration_id: str(),
      suite_id: str(),
      test_id: str(),
      start_url: str(),
      is_custom_start_url: bool,
      assertions: objectArray(['source']),
      variables: objectArray(['name', 'source']),
    },
  }),
}

/**
 * A step as it will be stored: validated, given an id (kept when `keepId` and it has one), with
 * only the attributes sent. Condition steps are checked recursively.
 *
 * @example
 * const step = readStep({ step_type: 'pause', duration: 5 }, '')
 */
export function readStep(value: unknown, path: string, keepId = false, depth = 0): JsonObject {
  if (!isObject(value)) throw invalidField(path || '/', 'must be a step object')
  if (depth > 10) throw invalidField(path, 'nests conditions too deeply (at most 10 levels)')
  const step: JsonObject = { ...value }
  dropEmptyStrings(step, OPTIONAL_STEP_STRINGS)
  const rawType = step['step_type'] ?? 'request'
  if (typeof rawType !== 'string') {
    throw invalidField(`${path}/step_type`, `must be one of ${STEP_TYPES.join(', ')}`)
  }
  const type = STEP_TYPE_ALIASES[rawType] ?? rawType
  if (!(STEP_TYPES as readonly string[]).includes(type)) {
    throw invalidField(
      `${path}/step_type`,
      `must be one of ${STEP_TYPES.join(', ')}, not "${rawType}"`,
    )
  }
  step['step_type'] = type
  const known = type as (typeof STEP_TYPES)[number]
  if (typeof step['method'] === 'string') step['method'] = step['method'].toUpperCase()
  checkStepOf[known](step, path)
  if (known === 'condition') {
    const steps = (step['steps'] ?? []) as unknown[]
    step['steps'] = steps.map((s, i) => readStep(s, `${path}/steps/${i}`, keepId, depth + 1))
  } else if (known === 'subtest') {
    // `test_id` stands for `test_uuid` when that is absent (older exports): a schema cannot say so.
    const target = step['test_uuid'] ?? step['test_id']
    if (typeof target !== 'string' || target === '') {
      throw invalidField(`${path}/test_uuid`, 'is required: the id of the test to run')
    }
  }
  if (!keepId || typeof step['id'] !== 'string' || step['id'] === '') step['id'] = randomUUID()
  return step
}

/** `steps` of a test body: an array of steps. */
function readSteps(value: unknown, path: string, keepIds: boolean): JsonObject[] {
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

const NAME = {
  type: 'string',
  maxLength: 200,
  pattern: '\\S',
  failure: 'is required: a string of 1 to 200 characters',
}

/** The checks of a body on create (`required` sent) and on update (only what is sent changes). */
function createAndUpdate(
  failure: string,
  required: string[],
  properties: Record<string, SchemaObject>,
): Record<'create' | 'update', (value: unknown, at?: string) => void> {
  const schema = (create: boolean): SchemaObject => ({
    type: 'object',
    failure,
    required: create ? required : [],
    properties,
  })
  return { create: fieldCheckOf(schema(true)), update: fieldCheckOf(schema(false)) }
}

const checkTest = createAndUpdate('must be a test object', ['name'], {
  name: NAME,
  description: { type: ['string', 'null'], failure: 'must be a string or null' },
  default_environment_id: str(),
  steps: { type: ['array', 'null'], failure: 'must be an array of steps' },
})

/**
 * A test body: `name` required on create (a string of 1 to 200 characters), `description` a string
 * or null, `steps` an array of steps, `default_environment_id` a string.
 */
export function readTest(body: unknown, path: string, create: boolean): TestInput {
  if (!isObject(body)) throw invalidField(path || '/', 'must be a test object')
  const value: JsonObject = { ...body }
  dropEmptyStrings(value, ['description', 'default_environment_id'])
  checkTest[create ? 'create' : 'update'](value, path)
  const out: TestInput = {}
  if (typeof value['name'] === 'string') out.name = value['name']
  const description = value['description']
  if (description !== undefined) out.description = description as string | null
  const env = value['default_environment_id']
  if (typeof env === 'string') out.default_environment_id = env
  if (value['steps'] !== undefined && value['steps'] !== null) {
    out.steps = readSteps(value['steps'], `${path}/steps`, !create)
  }
  if (create && Array.isArray(value['environments'])) out.environments = value['environments']
  return out
}

const ENV_BOOLEANS = [
  'preserve_cookies',
  'verify_ssl',
  'stop_on_failure',
  'retry_on_failure',
  'force_h2c',
] as const

/**
 * `http_version_support` of an environment: `h1_1` HTTP/1.1 only (the default); `h2` HTTP/2 where
 * an https server offers it (ALPN), else 1.1. `force_h2c` makes plain http:// requests HTTP/2 with
 * prior knowledge (h2c), for servers that speak only that.
 */
const HTTP_VERSIONS = ['h1_1', 'h2'] as const

const checkEnvironment = createAndUpdate('must be an environment object', ['name'], {
  name: NAME,
  initial_variables: {
    type: ['object', 'null'],
    failure: 'must be an object of variable names to strings',
    additionalProperties: { type: ['string', 'number', 'boolean'], failure: 'must be a string' },
  },
  headers: valueMap,
  ...Object.fromEntries(ENV_BOOLEANS.map((key) => [key, bool])),
  script: str(),
  parent_environment_id: str(),
  http_version_support: {
    enum: [...HTTP_VERSIONS, null],
    failure: `must be one of ${HTTP_VERSIONS.join(', ')}`,
  },
  regions: stringArray,
  webhooks: {
    ...stringArray,
    items: {
      allOf: [
        { type: 'string', failure: 'must be a string' },
        { pattern: '^[hH][tT][tT][pP][sS]?://', failure: 'must be an http or https URL' },
      ],
    },
  },
  emails: {
    type: ['object', 'null'],
    failure: 'must be an object',
    properties: {
      notify_all: bool,
      notify_on: {
        enum: ['all', 'failures', 'threshold', 'switch', null],
        failure: 'must be all, failures, threshold or switch',
      },
      notify_threshold: {
        type: ['integer', 'null'],
        minimum: 0,
        failure: 'must be a non-negative integer',
      },
      recipients: { type: ['array', 'null'], failure: 'must be an array' },
    },
  },
})

/**
 * An environment body (create: `name` required; update: only what is sent changes). Returns the
 * attributes to store, without `id` and `test_id`, which the service owns.
 */
export function readEnvironment(value: unknown, path: string, create: boolean): JsonObject {
  if (!isObject(value)) throw invalidField(path || '/', 'must be an environment object')
  const env: JsonObject = { ...value }
  delete env['id']
  delete env['test_id']
  delete env['exported_at']
  dropEmptyStrings(
    env,
    Object.keys(env).filter((k) => k !== 'name' || !create),
  )
  if (isObject(env['emails'])) {
    env['emails'] = { ...env['emails'] }
    dropEmptyStrings(env['emails'] as JsonObject, Object.keys(env['emails'] as JsonObject))
  }
  checkEnvironment[create ? 'create' : 'update'](env, path)
  const vars = env['initial_variables']
  if (isObject(vars)) {
    for (const [k, v] of Object.entries(vars)) {
      // Defined, not assigned: a variable named `__proto__` must not reach the prototype setter.
      if (typeof v === 'number' || typeof v === 'boolean') {
        Object.defineProperty(vars, k, {
          value: String(v),
          enumerable: true,
          writable: true,
          configurable: true,
        })
      }
    }
  }
  const emails = env['emails']
  if (isObject(emails) && Array.isArray(emails['recipients'])) {
    // A recipient is an address or `{email}`: the pointer names `email` either way, as the product does.
    emails['recipients'].forEach((r, i) => {
      const email = typeof r === 'string' ? r : isObject(r) ? r['email'] : undefined
      if (typeof email !== 'string' || !email.includes('@')) {
        throw invalidField(`${path}/emails/recipients/${i}/email`, 'must be an e-mail address')
      }
    })
  }
  return env
}

const checkSchedule = createAndUpdate('must be a schedule object', ['environment_id', 'interval'], {
  environment_id: {
    type: 'string',
    minLength: 1,
    failure: 'is required: the id of an environment of the test or its bucket',
  },
  interval: {
    enum: [...INTERVALS, ...INTERVALS.map((i) => i.replace(/(\d+)/, '$1.0'))],
    failure: `must be one of ${INTERVALS.join(', ')} (or ${INTERVALS.map((i) => i.replace(/(\d+)/, '$1.0')).join(', ')})`,
  },
  note: { type: ['string', 'null'], failure: 'must be a string or null' },
})

/** A schedule body: `environment_id` (string), `interval` (one of INTERVALS), `note`. */
export function readSchedule(
  body: unknown,
  create: boolean,
): { environment_id?: string; interval?: string; note?: string | null } {
  if (!isObject(body)) throw invalidField('/', 'must be a schedule object')
  const value: JsonObject = { ...body }
  dropEmptyStrings(value, create ? ['note'] : ['note', 'environment_id', 'interval'])
  checkSchedule[create ? 'create' : 'update'](value)
  const out: { environment_id?: string; interval?: string; note?: string | null } = {}
  if (typeof value['environment_id'] === 'string') out.environment_id = value['environment_id']
  if (typeof value['interval'] === 'string') {
    out.interval = shortInterval(value['interval']) ?? value['interval']
  }
  if (value['note'] !== undefined) out.note = value['note'] as string | null
  return out
}
