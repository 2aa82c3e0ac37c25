/**
 * How far a request path is from a transaction's path: an edit distance over `/` segments, where
 * inserting or deleting a segment costs 1 and replacing one costs the share of its characters
 * that differ (0.1 for a `{name}` placeholder against any non-empty segment, so that a literal
 * equal segment fits better). `/v1/customer` is
 * 0.11 from `/v1/customers`, 0.5 from `/v2/customers`, and further from `/v1/coupons`.
 *
 * @example
 * pathDistance(segmentsOf('/v1/customer'), segmentsOf('/v1/customers')) // 0.111
 */
export function pathDistance(request: readonly string[], template: readonly string[]): number {
  const n = template.length
  let previous = new Array<number>(n + 1)
  let current = new Array<number>(n + 1)
  for (let j = 0; j <= n; j++) previous[j] = j
  for (let i = 1; i <= request.length; i++) {
    current[0] = i
    const segment = request[i - 1] as string
    for (let j = 1; j <= n; j++) {
      const replace = (previous[j - 1] as number) + segmentCost(segment, template[j - 1] as string)
      const remove = (previous[j] as number) + 1
      const insert = (current[j - 1] as number) + 1
      current[j] = Math.min(replace, remove, insert)
    }
    const swap = previous
    previous = current
    current = swap
  }
  return previous[n] as number
}

/**
 * Segments and characters compared at most: a request's path is attacker-chosen (up to the header
 * limit), and diagnosis runs once per transaction, so its cost must not grow with the path.
 */
const MAX_SEGMENTS = 32
const MAX_CHARS = 64

/** The segments of a path (no empty first one), at most 32: `/a/b` -> ['a', 'b']. */
export function segmentsOf(path: string): string[] {
  const q = path.indexOf('?')
  const bare = q === -1 ? path : path.slice(0, q)
  return bare
    .split('/', MAX_SEGMENTS + 1)
    .filter((s, i) => i > 0 || s !== '')
    .slice(0, MAX_SEGMENTS)
}

/** A `{name}` placeholder fits any segment, but a literal equal segment fits better. */
const PLACEHOLDER_COST = 0.1

function segmentCost(actual: string, expected: string): number {
  if (actual === expected) return 0
  if (expected.length > 2 && expected.startsWith('{') && expected.endsWith('}') && actual !== '') {
    return PLACEHOLDER_COST
  }
  const longest = Math.max(actual.length, expected.length)
  return longest === 0 ? 0 : characterDistance(actual, expected) / longest
}

/** Levenshtein distance of two short strings (path segments), on their first 64 characters. */
export function characterDistance(longA: string, longB: string): number {
  if (longA === longB) return 0
  const a = longA.length > MAX_CHARS ? longA.slice(0, MAX_CHARS) : longA
  const b = longB.length > MAX_CHARS ? longB.slice(0, MAX_CHARS) : longB
  if (a.length === 0) return b.length
  if (b.length === 0) return a.length
  let previous = new Array<number>(b.length + 1)
  let current = new Array<number>(b.length + 1)
  for (let j = 0; j <= b.length; j++) previous[j] = j
  for (let i = 1; i <= a.length; i++) {
    current[0] = i
    const ca = a.charCodeAt(i - 1)
    for (let j = 1; j <= b.length; j++) {
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1
      current[j] = Math.min(
        (previous[j - 1] as number) + cost,
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
      )
    }
    const swap = previous
    previous = current
    current = swap
  }
  return previous[b.length] as number
}
