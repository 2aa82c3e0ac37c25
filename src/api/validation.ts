import { Ajv, type ErrorObject, type SchemaObject } from 'ajv'
import { createError, type ErrorDetail } from '../errors/index.js'
import { dslSchemas } from '../dsl/index.js'

// One ajv for every request schema of the API, each compiled once when its module loads. The DSL's
// schemas are registered so that a request schema can take a DSL field as the DSL defines it
// (`{ $ref: 'understudy:cors' }`), rather than a copy that could drift.
const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false })
for (const schema of dslSchemas) ajv.addSchema(schema)

/**
 * A validator for request bodies: returns the value typed when it holds, else throws 400
 * ERR_API_VALIDATION listing every failing field by JSON pointer.
 *
 * @example
 * const readService = validatorOf<{ name: string }>({ type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } })
 * const input = readService(await ctx.json())
 */
export function validatorOf<T>(schema: SchemaObject): (value: unknown) => T {
  const validate = ajv.compile(schema)
  return (value: unknown): T => {
    if (validate(value)) return value as T
    const details = (validate.errors ?? []).map(detailOf)
    const first = details[0]
    const summary =
      first === undefined
        ? 'invalid body'
        : `${first.path === '' ? 'the body' : first.path} ${first.message}`
    throw createError('ERR_API_VALIDATION', [summary], { details })
  }
}

function detailOf(e: ErrorObject): ErrorDetail {
  const params = e.params as { missingProperty?: string; additionalProperty?: string }
  if (e.keyword === 'required' && params.missingProperty !== undefined) {
    return { path: `${e.instancePath}/${params.missingProperty}`, message: 'is required' }
  }
  if (e.keyword === 'additionalProperties' && params.additionalProperty !== undefined) {
    return {
      path: `${e.instancePath}/${params.additionalProperty}`,
      message: 'is not a known property',
    }
  }
  return { path: e.instancePath, message: e.message ?? 'is invalid' }
}

/** A 400 naming one field, for checks a schema cannot express. */
export function invalidField(path: string, message: string) {
  return createError('ERR_API_VALIDATION', [`${path} ${message}`], { details: [{ path, message }] })
}

// The monitoring API answers one failing field at a time, in words of its own (the product's error
// shape has one message): this ajv stops at the first error (allErrors off) and keeps the failing
// schema (verbose) to read the message it names.
const firstFailureAjv = new Ajv({
  allErrors: false,
  strict: false,
  coerceTypes: false,
  verbose: true,
})

/** A schema node's own words for a value that fails it: `{ type: 'string', failure: 'must be a string' }`. */
interface WithFailure {
  failure?: string
  properties?: Record<string, WithFailure>
}

/**
 * A check of a request body against a schema whose nodes say, in `failure`, what their value must
 * be: it throws 400 ERR_API_VALIDATION naming the first failing field (under `at`, a JSON pointer
 * prefix) with that message. A missing required property is named with its own node's `failure`.
 * A node without `failure` (a branch of `anyOf`) passes the error on to the enclosing node's.
 *
 * @example
 * const checkNote = fieldCheckOf({ type: 'object', properties: { note: { type: 'string', failure: 'must be a string' } } })
 * checkNote({ note: 1 }, '/steps/0') // throws "/steps/0/note must be a string"
 */
export function fieldCheckOf(schema: SchemaObject): (value: unknown, at?: string) => void {
  const validate = firstFailureAjv.compile(schema)
  return (value: unknown, at = ''): void => {
    if (validate(value)) return
    const errors = validate.errors ?? []
    for (const e of errors) {
      const parent = e.parentSchema as WithFailure | undefined
      const missing = (e.params as { missingProperty?: string }).missingProperty
      if (e.keyword === 'required' && missing !== undefined) {
        const failure = parent?.properties?.[missing]?.failure
        if (failure !== undefined) throw invalidField(`${at}${e.instancePath}/${missing}`, failure)
      } else if (parent?.failure !== undefined) {
        throw invalidField(`${at}${e.instancePath}` || '/', parent.failure)
      }
    }
    const first = errors[0]
    const detail = first === undefined ? { path: '', message: 'is invalid' } : detailOf(first)
    throw invalidField(`${at}${detail.path}` || '/', detail.message)
  }
}
