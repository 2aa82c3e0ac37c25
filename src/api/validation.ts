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
export function validatorOf<T> (schema: SchemaObject): (value: unknown) => T {
  const validate = ajv.compile(schema)
  return (value: unknown): T => {
    if (validate(value)) return value as T
    const details = (validate.errors ?? []).map(detailOf)
    const first = details[0]
    const summary = first === undefined ? 'invalid body' : `${first.path === '' ? 'the body' : first.path} ${first.message}`
    throw createError('ERR_API_VALIDATION', [summary], { details })
  }
}

function detailOf (e: ErrorObject): ErrorDetail {
  const params = e.params as { missingProperty?: string; additionalProperty?: string }
  if (e.keyword === 'required' && params.missingProperty !== undefined) {
    return { path: `${e.instancePath}/${params.missingProperty}`, message: 'is required' }
  }
  if (e.keyword === 'additionalProperties' && params.additionalProperty !== undefined) {
    return { path: `${e.instancePath}/${params.additionalProperty}`, message: 'is not a known property' }
  }
  return { path: e.instancePath, message: e.message ?? 'is invalid' }
}

/** A 400 naming one field, for checks a schema cannot express. */
export function invalidField (path: string, message: string) {
  return createError('ERR_API_VALIDATION', [`${path} ${message}`], { details: [{ path, message }] })
}
