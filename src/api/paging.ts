import { createError } from '../errors/index.js'
import type { ListQuery } from '../store/index.js'

/** Page size when `limit` is absent; the administration specification's samples show 10, the mock services one none: 50 for both. */
const DEFAULT_LIMIT = 50
/** The most a list returns at once; `limit=0`, `-1` or larger ask for "all" and get this many (docs/decisions.md#lists). */
const MAX_LIMIT = 1000

/**
 * `limit`, `skip` and `sort` of a list request, validated (400 naming the parameter). `sort` may
 * be `name`, `-updated`, or `sort[]=...` (v4): only fields in `sortable` are accepted.
 *
 * @example
 * listQueryOf(new URLSearchParams('limit=10&skip=20&sort=-name'), ['name', 'created'])
 */
export function listQueryOf(query: URLSearchParams, sortable: readonly string[]): ListQuery {
  const limit = intOf(query, 'limit', DEFAULT_LIMIT)
  const skip = intOf(query, 'skip', 0)
  if (skip < 0) throw invalid('skip', 'must be an integer >= 0')
  const out: ListQuery = { limit: limit <= 0 || limit > MAX_LIMIT ? MAX_LIMIT : limit, skip }
  const sort = query.get('sort') ?? query.get('sort[]')
  if (sort !== null && sort !== '') {
    const field = sort.replace(/^[-+]/, '')
    if (!sortable.includes(field)) {
      throw invalid('sort', `must be one of ${sortable.join(', ')} (with - for descending)`)
    }
    out.sort = sort.startsWith('-') ? `-${field}` : field
  }
  return out
}

function intOf(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name)
  if (raw === null || raw === '') return fallback
  if (!/^-?\d+$/.test(raw)) throw invalid(name, 'must be an integer')
  return Number(raw)
}

function invalid(name: string, message: string) {
  return createError('ERR_API_VALIDATION', [`${name} ${message}`], {
    details: [{ path: `/${name}`, message }],
  })
}
