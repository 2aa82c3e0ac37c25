import { Ajv, type ValidateFunction } from 'ajv'
import { createError, type ErrorDetail } from '../errors/index.js'
import {
  platformOptionsSchema,
  runtimeOptionsSchema,
  type PlatformFlagOptions,
  type RuntimeOptions,
} from './options.js'

// Without ajv's code optimisation passes: the schemas compile in less time, which start-up pays.
const ajv = new Ajv({
  allErrors: true,
  useDefaults: true,
  coerceTypes: false,
  code: { optimize: false },
})
// Each compiled once, when first used (a runtime never reads platform options, nor the platform
// runtime ones), never per call.
let runtimeValidator: ValidateFunction<RuntimeOptions> | null = null
let platformValidator: ValidateFunction<PlatformFlagOptions> | null = null
const validateRuntimeOptions = (): ValidateFunction<RuntimeOptions> =>
  (runtimeValidator ??= ajv.compile(runtimeOptionsSchema))
const validatePlatformOptions = (): ValidateFunction<PlatformFlagOptions> =>
  (platformValidator ??= ajv.compile(platformOptionsSchema))

/** Recursively freezes a plain value so that options cannot change after validation. */
function deepFreeze<T>(value: T): Readonly<T> {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}

/** What callers may give: any subset of the options, the inspection ones included. */
export type RuntimeOptionsInput = Omit<Partial<RuntimeOptions>, 'inspection'> & {
  inspection?: Partial<RuntimeOptions['inspection']>
}

/**
 * Fills defaults, validates and freezes runtime options. Throws ERR_CONFIG_INVALID listing every
 * problem.
 *
 * @example
 * loadRuntimeOptions({ port: 0 }).bodyLimit // 10485760
 */
export function loadRuntimeOptions(input: RuntimeOptionsInput = {}): Readonly<RuntimeOptions> {
  return loadOptions(validateRuntimeOptions(), input)
}

/**
 * Fills defaults, validates and freezes the platform's options, as `loadRuntimeOptions` does a
 * runtime's. Throws ERR_CONFIG_INVALID listing every problem.
 *
 * @example
 * loadPlatformOptions({ port: 0 }).uploadLimit // 67108864
 */
export function loadPlatformOptions(
  input: Partial<PlatformFlagOptions> = {},
): Readonly<PlatformFlagOptions> {
  return loadOptions(validatePlatformOptions(), input)
}

function loadOptions<T>(validate: ValidateFunction<T>, input: unknown): Readonly<T> {
  const copy = structuredClone(input)
  if (!validate(copy)) {
    const details: ErrorDetail[] = (validate.errors ?? []).map((e) => ({
      path: e.instancePath,
      // an enum names its values: `--log-level must be one of fatal, error, ...`
      message:
        e.keyword === 'enum'
          ? `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`
          : (e.message ?? 'is invalid'),
    }))
    throw createError(
      'ERR_CONFIG_INVALID',
      [details.map((d) => `${d.path || '/'} ${d.message}`).join('; ')],
      { details },
    )
  }
  return deepFreeze(copy)
}
