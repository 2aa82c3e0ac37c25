import type { Matcher, RequestDsl } from '../dsl/index.js'
import { jsonEquals } from './json.js'
import { normalizePath } from './path.js'

/** What conflict and shadow detection read of a transaction. */
export interface ConflictSubject {
  id: number
  /** Transactions of different services never conflict; absent for one file set. */
  serviceId?: number | null
  name?: string
  dsl: { priority?: number; requestDsl: RequestDsl }
}

/*
 * Conflicting transactions: transactions of one service that some request could match alike, so
 * that which one answers depends on priority and order alone. The definition (docs/api.md,
 * "Conflicts") is deliberately conservative: two transactions are reported unless a matcher pair
 * proves that no single request satisfies both.
 */

/** The request items matchers name: header names fold case, the others do not. */
type Part = 'headers' | 'queryParams' | 'cookies' | 'body'
const parts: readonly Part[] = ['headers', 'queryParams', 'cookies', 'body']

/** `{id}` and `{petId}` are the same template segment; equals_url compares decoded, collapsed paths. */
function urlKey(request: RequestDsl): string {
  const url = request.url
  if (url === undefined) return 'any'
  const name = url.matcherName === 'matches_url' ? 'matches' : url.matcherName
  const value = url.matchingValue ?? ''
  return name === 'equals_url'
    ? `equals_url ${normalizePath(value).replace(/\{[^{}/]+\}/g, '{}')}`
    : `${name} ${value}`
}

/** The item a matcher names (`absent` may name it in `matchingValue`), or null for the whole body. */
function itemOf(part: Part, m: Matcher): string | null {
  const key = m.key ?? ''
  const named = key === '' && m.matcherName === 'absent' ? (m.matchingValue ?? '') : key
  if (named === '') return part === 'body' ? null : ''
  return part === 'headers' ? named.toLowerCase() : named
}

const hasPlaceholder = (value: string): boolean => value.includes('${json-unit.')

function parseJson(value: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(value) as unknown }
  } catch {
    return null
  }
}

/**
 * True when no value of one item can satisfy both matchers (both assumed to hold, i.e. neither
 * optional): `absent` against any matcher that needs the item; `equals` against a different
 * `equals` (without case for `equals_insensitive`); `equals_json` against a semantically
 * different `equals_json` without placeholders.
 */
function exclusive(a: Matcher, b: Matcher): boolean {
  if ((a.matcherName === 'absent') !== (b.matcherName === 'absent')) return true
  const va = a.matchingValue ?? ''
  const vb = b.matchingValue ?? ''
  const fixed = (m: Matcher) => m.matcherName === 'equals' || m.matcherName === 'equals_insensitive'
  if (fixed(a) && fixed(b)) {
    const fold = a.matcherName === 'equals_insensitive' || b.matcherName === 'equals_insensitive'
    return fold ? va.toLowerCase() !== vb.toLowerCase() : va !== vb
  }
  // With equalToJson's flags two different values may both hold for one body: not exclusive.
  const strict = (m: Matcher): boolean =>
    m.ignoreArrayOrder !== true && m.ignoreExtraElements !== true
  if (
    a.matcherName === 'equals_json' &&
    b.matcherName === 'equals_json' &&
    strict(a) &&
    strict(b) &&
    !hasPlaceholder(va) &&
    !hasPlaceholder(vb)
  ) {
    const ja = parseJson(va)
    const jb = parseJson(vb)
    return ja !== null && jb !== null && !jsonEquals(ja.value, jb.value)
  }
  return false
}

/** True when some matcher pair proves that no request matches both transactions. */
function toldApart(a: RequestDsl, b: RequestDsl): boolean {
  for (const part of parts) {
    const mine = (a[part] ?? []).filter((m) => m.optional !== true)
    const theirs = (b[part] ?? []).filter((m) => m.optional !== true)
    for (const m of mine) {
      const item = itemOf(part, m)
      for (const n of theirs) if (itemOf(part, n) === item && exclusive(m, n)) return true
    }
  }
  const ca = a.credentials ?? {}
  const cb = b.credentials ?? {}
  const differ = (x: string | undefined, y: string | undefined) =>
    (x ?? '') !== '' && (y ?? '') !== '' && x !== y
  return differ(ca.username, cb.username) || differ(ca.password, cb.password)
}

/** Whether some request could be matched by both (same service and URL key assumed). */
function overlap(a: ConflictSubject, b: ConflictSubject): boolean {
  const ma = a.dsl.requestDsl.method
  const mb = b.dsl.requestDsl.method
  if (ma !== undefined && mb !== undefined && ma !== mb) return false
  return !toldApart(a.dsl.requestDsl, b.dsl.requestDsl)
}

/**
 * Groups of conflicting transactions: within one service and one URL matcher (matcher name and
 * normalized value), the connected sets of transactions linked by `overlap`, of two or more,
 * each sorted by id, groups in order of their first id.
 *
 * @example
 * findConflicts([getPet, getPetAgain, listPets]) // [[getPet, getPetAgain]]
 */
export function findConflicts<T extends ConflictSubject>(transactions: readonly T[]): T[][] {
  const buckets = new Map<string, T[]>()
  for (const t of [...transactions].sort((x, y) => x.id - y.id)) {
    const key = `${t.serviceId ?? ''} ${urlKey(t.dsl.requestDsl)}`
    const bucket = buckets.get(key)
    if (bucket === undefined) buckets.set(key, [t])
    else bucket.push(t)
  }
  const groups: T[][] = []
  for (const bucket of buckets.values()) {
    if (bucket.length < 2) continue
    // union-find over the bucket's overlapping pairs
    const parent = bucket.map((_, i) => i)
    const root = (i: number): number => {
      let r = i
      while (parent[r] !== r) r = parent[r] ?? r
      return r
    }
    for (let i = 0; i < bucket.length; i++) {
      for (let j = i + 1; j < bucket.length; j++) {
        if (overlap(bucket[i] as T, bucket[j] as T)) parent[root(j)] = root(i)
      }
    }
    const sets = new Map<number, T[]>()
    bucket.forEach((t, i) => {
      const r = root(i)
      const set = sets.get(r)
      if (set === undefined) sets.set(r, [t])
      else set.push(t)
    })
    for (const set of sets.values()) if (set.length > 1) groups.push(set)
  }
  return groups.sort((x, y) => (x[0]?.id ?? 0) - (y[0]?.id ?? 0))
}

/**
 * The name of a conflict group: `<service>: <methods> <url>`, methods `|`-joined (`ANY` for a
 * transaction without one), the URL as its value (`equals_url`) or `<matcherName> <value>`.
 *
 * @example
 * groupName('pets', [a, b]) // 'pets: GET /pets/{id}'
 */
export function groupName(serviceName: string, group: readonly ConflictSubject[]): string {
  const methods = [...new Set(group.map((t) => t.dsl.requestDsl.method ?? 'ANY'))].sort().join('|')
  const url = group[0]?.dsl.requestDsl.url
  const where =
    url === undefined
      ? 'any URL'
      : url.matcherName === 'equals_url'
        ? (url.matchingValue ?? '')
        : `${url.matcherName} ${url.matchingValue ?? ''}`
  return `${serviceName}: ${methods} ${where}`
}

/** A transaction that no request can reach, and the one that answers its requests instead. */
interface Shadowed<T> {
  shadowed: T
  by: T
}

/**
 * Transactions that can never answer: for each, an earlier one in serving order (`ordered`, as
 * the runtime tries them) with a compatible method, the same URL matcher, and no matcher the
 * shadowed one does not have as well: every request the later one matches, the earlier one
 * matches first. Conservative: a pair that might differ is not reported.
 *
 * @example
 * findShadowed([getPet, getPetAgain]) // [{ shadowed: getPetAgain, by: getPet }]
 */
export function findShadowed<T extends ConflictSubject>(ordered: readonly T[]): Array<Shadowed<T>> {
  const buckets = new Map<string, ShadowBucket<T>>()
  const found: Array<Shadowed<T>> = []
  for (const t of ordered) {
    const key = `${t.serviceId ?? ''} ${urlKey(t.dsl.requestDsl)}`
    const keys = matcherKeys(t.dsl.requestDsl)
    let bucket = buckets.get(key)
    if (bucket === undefined) {
      bucket = { kept: [], byMatcher: new Map(), bare: [] }
      buckets.set(key, bucket)
    }
    // A transaction that requires a scenario state is told apart by that state: an earlier one
    // can shadow it only when it requires no state itself or the same one.
    const by = firstCovering(bucket, t, keys)
    if (by !== undefined) {
      found.push({ shadowed: t, by })
      continue
    }
    const position = bucket.kept.length
    bucket.kept.push(t)
    // Indexed by one of its matchers: it can cover only a transaction that has that one too.
    const first = keys[0]
    if (first === undefined) bucket.bare.push(position)
    else {
      const list = bucket.byMatcher.get(first)
      if (list === undefined) bucket.byMatcher.set(first, [position])
      else list.push(position)
    }
  }
  return found
}

/**
 * The transactions kept so far for one URL key, in serving order, indexed so that finding the
 * first that covers another looks only at those whose matchers it could have: 100,000
 * transactions on one path told apart by a header are checked in linear time, not pairwise.
 */
interface ShadowBucket<T> {
  kept: T[]
  /** Positions in `kept` by one matcher of each (its first). */
  byMatcher: Map<string, number[]>
  /** Positions in `kept` of those without a matcher (they may cover anything on the URL). */
  bare: number[]
}

function firstCovering<T extends ConflictSubject>(
  bucket: ShadowBucket<T>,
  t: T,
  keys: readonly string[],
): T | undefined {
  let best = -1
  const consider = (positions: readonly number[] | undefined): void => {
    for (const position of positions ?? []) {
      if (best !== -1 && position >= best) return // ascending: no earlier one further on
      const e = bucket.kept[position] as T
      if (sameState(e, t) && covers(e.dsl.requestDsl, t.dsl.requestDsl)) {
        best = position
        return
      }
    }
  }
  consider(bucket.bare)
  for (const key of new Set(keys)) consider(bucket.byMatcher.get(key))
  return best === -1 ? undefined : bucket.kept[best]
}

/** The keys (matcherKey) of every matcher of a request, in part order. */
function matcherKeys(request: RequestDsl): string[] {
  const keys: string[] = []
  for (const part of parts) for (const m of request[part] ?? []) keys.push(matcherKey(part, m))
  return keys
}

function sameState(a: ConflictSubject, b: ConflictSubject): boolean {
  const sa = (a.dsl as { scenario?: { name?: string; requiredState?: string | null } }).scenario
  const sb = (b.dsl as { scenario?: { name?: string; requiredState?: string | null } }).scenario
  const required = (s: typeof sa): string =>
    s?.requiredState === undefined || s.requiredState === null
      ? ''
      : `${s.name ?? ''}\u0000${s.requiredState}`
  return required(sa) === '' || required(sa) === required(sb)
}

const anyMethod = (method: string | undefined): boolean =>
  method === undefined || method === '' || method.toUpperCase() === 'ANY'

/** True when every request matching `b` also matches `a` (same URL key assumed). */
function covers(a: RequestDsl, b: RequestDsl): boolean {
  if (
    !anyMethod(a.method) &&
    (anyMethod(b.method) || a.method?.toUpperCase() !== b.method?.toUpperCase())
  ) {
    return false
  }
  for (const part of parts) {
    const theirs = new Set((b[part] ?? []).map((m) => matcherKey(part, m)))
    for (const m of a[part] ?? []) if (!theirs.has(matcherKey(part, m))) return false
  }
  const ca = a.credentials ?? {}
  const cb = b.credentials ?? {}
  if ((ca.username ?? '') !== '' && ca.username !== cb.username) return false
  if ((ca.password ?? '') !== '' && ca.password !== cb.password) return false
  return true
}

function matcherKey(part: Part, m: Matcher): string {
  return JSON.stringify([
    itemOf(part, m),
    m.matcherName,
    m.matchingValue ?? null,
    m.optional === true,
  ])
}
