import { createError } from '../errors/index.js'

/** A path parameter that is an integer id: 400 ERR_API_VALIDATION naming it otherwise. */
export function pathInt(
  params: Readonly<Record<string, string | undefined>>,
  name: string,
): number {
  const raw = params[name] ?? ''
  if (!/^\d{1,15}$/.test(raw)) {
    throw createError('ERR_API_VALIDATION', [`${name} must be a positive integer, not "${raw}"`], {
      details: [{ path: `/${name}`, message: 'must be a positive integer' }],
    })
  }
  return Number(raw)
}

/**
 * An integer query parameter: `fallback` when absent or empty, 400 ERR_API_VALIDATION naming it
 * when not an integer or below `min`, and at most `max` (a larger value is capped, as paging
 * parameters are).
 *
 * @example
 * queryInt(new URLSearchParams('limit=5000'), 'limit', 50, 0, 1000) // 1000
 */
export function queryInt(
  query: URLSearchParams,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = query.get(name)
  if (raw === null || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min) {
    throw createError('ERR_API_VALIDATION', [`${name} must be an integer >= ${min}`], {
      details: [{ path: `/${name}`, message: `must be an integer >= ${min}` }],
    })
  }
  return Math.min(value, max)
}
