import type { Matcher, RequestDsl } from '../../dsl/index.js'
import { jsonEquals, normalizePath } from '../../match/index.js'
import type { StoredTransaction } from '../../store/index.js'
import type { Route } from '../http/types.js'
import { optionalIntQuery, serviceNames } from './catalog-lookups.js'
import { transactionView } from './views.js'

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
function urlKey (request: RequestDsl): string {
  const url = request.url
  if (url === undefined) return 'any'
  const name = url.matcherName === 'matches_url' ? 'matches' : url.matcherName
  const value = url.matchingValue ?? ''
  return name === 'equals_url' ? `equals_url ${normalizePath(value).replace(/\{[^{}/]+\}/g, '{}')}` : `${name} ${value}`
}

/** The item a matcher names (`absent` may name it in `matchingValue`), or null for the whole body. */
function itemOf (part: Part, m: Matcher): string | null {
  const key = m.key ?? ''
  const named = key === '' && m.matcherName === 'absent' ? (m.matchingValue ?? '') : key
  if (named === '') return part === 'body' ? null : ''
  return part === 'headers' ? named.toLowerCase() : named
}

const hasPlaceholder = (value: string): boolean => value.includes('${json-unit.')

function parseJson (value: string): { value: unknown } | null {
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
function exclusive (a: Matcher, b: Matcher): boolean {
  if ((a.matcherName === 'absent') !== (b.matcherName === 'absent')) return true
  const va = a.matchingValue ?? ''
  const vb = b.matchingValue ?? ''
  const fixed = (m: Matcher) => m.matcherName === 'equals' || m.matcherName === 'equals_insensitive'
  if (fixed(a) && fixed(b)) {
    const fold = a.matcherName === 'equals_insensitive' || b.matcherName === 'equals_insensitive'
    return fold ? va.toLowerCase() !== vb.toLowerCase() : va !== vb
  }
  if (a.matcherName === 'equals_json' && b.matcherName === 'equals_json' && !hasPlaceholder(va) && !hasPlaceholder(vb)) {
    const ja = parseJson(va)
    const jb = parseJson(vb)
    return ja !== null && jb !== null && !jsonEquals(ja.value, jb.value)
  }
  return false
}

/** True when some matcher pair proves that no request matches both transactions. */
function toldApart (a: RequestDsl, b: RequestDsl): boolean {
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
  const differ = (x: string | undefined, y: string | undefined) => (x ?? '') !== '' && (y ?? '') !== '' && x !== y
  return differ(ca.username, cb.username) || differ(ca.password, cb.password)
}

/** Whether some request could be matched by both (same service and URL key assumed). */
function overlap (a: StoredTransaction, b: StoredTransaction): boolean {
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
export function findConflicts (transactions: readonly StoredTransaction[]): StoredTransaction[][] {
  const buckets = new Map<string, StoredTransaction[]>()
  for (const t of [...transactions].sort((x, y) => x.id - y.id)) {
    const key = `${t.serviceId} ${urlKey(t.dsl.requestDsl)}`
    const bucket = buckets.get(key)
    if (bucket === undefined) buckets.set(key, [t])
    else bucket.push(t)
  }
  const groups: StoredTransaction[][] = []
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
        if (overlap(bucket[i] as StoredTransaction, bucket[j] as StoredTransaction)) parent[root(j)] = root(i)
      }
    }
    const sets = new Map<number, StoredTransaction[]>()
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
export function groupName (serviceName: string, group: readonly StoredTransaction[]): string {
  const methods = [...new Set(group.map((t) => t.dsl.requestDsl.method ?? 'ANY'))].sort().join('|')
  const url = group[0]?.dsl.requestDsl.url
  const where = url === undefined ? 'any URL' : url.matcherName === 'equals_url' ? (url.matchingValue ?? '') : `${url.matcherName} ${url.matchingValue ?? ''}`
  return `${serviceName}: ${methods} ${where}`
}

/**
 * `GET /api/v1/workspaces/{workspaceId}/transactions/conflicts[?serviceId=]`: `result` maps each
 * group name to its conflicting Transactions (a name repeated within a workspace gets ` (2)`,
 * ` (3)`...). `{}` when there is no conflict.
 */
export const conflictRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/workspaces/:workspaceId/transactions/conflicts',
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const serviceId = optionalIntQuery(ctx.query, 'serviceId')
      const page = await ctx.deps.store.transactions.list(workspace.id, serviceId === undefined ? {} : { serviceId }, { limit: -1, skip: 0 })
      const groups = findConflicts(page.items)
      const names = await serviceNames(ctx.deps.store, workspace.id, groups.map((g) => g[0]?.serviceId ?? null))
      const result: Record<string, unknown[]> = {}
      for (const group of groups) {
        const serviceName = names.get(group[0]?.serviceId ?? 0) ?? ''
        const base = groupName(serviceName, group)
        let name = base
        for (let n = 2; Object.hasOwn(result, name); n++) name = `${base} (${n})`
        result[name] = group.map((t) => transactionView(t, serviceName))
      }
      return { result }
    },
  },
]
