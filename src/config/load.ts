import { Ajv, type ValidateFunction } from 'ajv'
import { createError, type ErrorDetail } from '../errors/index.js'
import { runtimeOptionsSchema, type RuntimeOptions } from './options.js'

const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: false })
// Compiled once at start-up, never per call.
const validateRuntimeOptions: ValidateFunction<RuntimeOptions> = ajv.compile(runtimeOptionsSchema)

/** Recursively freezes a plain value so that options cannot change after validation. */
function deepFreeze<T> (value: T): Readonly<T> {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}

/** What callers may give: any subset of the options, the inspection ones included. */
export type RuntimeOptionsInput = Omit<Partial<RuntimeOptions>, 'inspection'> & { inspection?: Partial<RuntimeOptions['inspection']> }

/**
 * Fills defaults, validates and freezes runtime options. Throws ERR_CONFIG_INVALID listing every
 * problem.
 *
 * @example
 * loadRuntimeOptions({ port: 0 }).bodyLimit // 10485760
 */
export function loadRuntimeOptions (input: RuntimeOptionsInput = {}): Readonly<RuntimeOptions> {
  const copy = structuredClone(input) as unknown
  if (!validateRuntimeOptions(copy)) {
    const details: ErrorDetail[] = (validateRuntimeOptions.errors ?? []).map((e) => ({
      path: e.instancePath,
      message: e.message ?? 'is invalid',
    }))
    throw createError('ERR_CONFIG_INVALID', [details.map((d) => `${d.path || '/'} ${d.message}`).join('; ')], { details })
  }
  return deepFreeze(copy)
}
