import { createError, isUnderstudyError } from '../../errors/index.js'
import { queryInt } from '../../httpkit/index.js'
import {
  filterFromQuery,
  filterParams,
  mergeVerifications,
  newestFirst,
  readVerification,
  type InspectionDetail,
  type InspectionListEntry,
  type UnmatchedEntry,
  type VerificationResult,
} from '../../inspect/index.js'
import { adminRequest, type RuntimeAdmin } from '../admin-client.js'

/** One pod of a mock service and its runtime's admin API. */
export interface PodAdmin {
  /** The pod's name (its address when the Endpoints do not name it). */
  name: string
  admin: RuntimeAdmin
}

/** The pods of a mock service as the cluster lists them at the time of a call. */
export interface PodSet {
  /** Pods the Deployment wants (its `spec.replicas`); 0 when it is stopped or absent. */
  wanted: number
  /** Ready pods behind the Service: those that take traffic. */
  ready: PodAdmin[]
  /** Pods listed but not ready (starting, restarting, failing their probe). */
  notReady: string[]
}

/** What a fanned-in call answers: the members of the runtime's envelope besides `error`. */
export interface FannedInAnswer {
  result: unknown
  skip?: number
  limit?: number
  total?: number
}

/**
 * The runtime admin API of a mock service served by several pods, answered as one runtime would
 * (docs/deploy.md "Kubernetes", "Verification and inspection"): inspection lists merged newest
 * first, counts and verifications summed, a detail asked of the pod its id names. Fails closed:
 * when fewer pods are ready than the Deployment wants, or one does not answer in time, the call
 * throws 503 ERR_API_UNAVAILABLE naming the pod rather than answer for part of the traffic.
 */
export interface MockServiceAdmin {
  /**
   * One admin call: `method`, the path with its query (`/inspection?path=/pets&limit=10`), the
   * JSON body. Throws an UnderstudyError: ERR_API_VALIDATION for bad input, ERR_INSPECT_NOT_FOUND,
   * ERR_API_NOT_FOUND for a path that is not fanned in, ERR_API_UNAVAILABLE (503).
   */
  request: (method: string, path: string, body?: unknown) => Promise<FannedInAnswer>
}

/*
 * Every pod numbers its records from 1, so the ids a client sees carry the pod: id = local id *
 * POD_SLOTS + the pod's slot, the slot derived from the pod's name (stable while the pod lives,
 * whoever asks, an agent restart included). Local ids stay below 2^33 (8 billion requests a pod).
 */
const POD_SLOTS = 2 ** 20
/** Most entries one `GET /inspection` of a runtime answers: deeper pages are read in steps. */
const RUNTIME_PAGE = 1000
const DEFAULT_PAGE = 50
/** Codes of a pod's answer that say the pod cannot answer, not that the request is wrong. */
const podFailures = new Set<string>([
  'ERR_API_UNAVAILABLE',
  'ERR_API_UNAUTHORIZED',
  'ERR_API_FORBIDDEN',
])

/** FNV-1a of the pod's name: its preferred slot. */
function slotHash(name: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash % POD_SLOTS
}

/** Each pod's slot: its hash, or the next free one in name order when two pods' hashes meet. */
function slotsOf(pods: readonly PodAdmin[]): Map<PodAdmin, number> {
  const taken = new Set<number>()
  const out = new Map<PodAdmin, number>()
  for (const pod of [...pods].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    let slot = slotHash(pod.name)
    while (taken.has(slot)) slot = (slot + 1) % POD_SLOTS
    taken.add(slot)
    out.set(pod, slot)
  }
  return out
}

/**
 * The admin API of a mock service over its pods, read at every call from `podsOf` (the driver's
 * view of the Deployment and the admin Service's Endpoints), each pod asked within `timeoutMs`.
 *
 * @example
 * const admin = fanInAdmin(7, async () => await driver.podSet(7), 10_000)
 * (await admin.request('POST', '/inspection/verify', { request: { path: '/orders' }, count: 1 })).result
 */
export function fanInAdmin(
  mockServiceId: number,
  podsOf: () => Promise<PodSet>,
  timeoutMs: number,
): MockServiceAdmin {
  /** The ready pods, when they are every pod the Deployment wants: otherwise 503. */
  const allPods = async (): Promise<Array<{ pod: PodAdmin; slot: number }>> => {
    const set = await podsOf()
    if (set.wanted === 0) {
      throw createError('ERR_API_UNAVAILABLE', [
        `mock service ${mockServiceId} has no pod running (stopped, or not deployed)`,
      ])
    }
    if (set.ready.length < set.wanted) {
      const named = set.notReady.length === 0 ? '' : ` (not ready: ${set.notReady.join(', ')})`
      throw createError('ERR_API_UNAVAILABLE', [
        `${set.ready.length} of the ${set.wanted} pods of mock service ${mockServiceId} are ready${named}: an answer now would leave out the requests the others served`,
      ])
    }
    const slots = slotsOf(set.ready)
    return set.ready.map((pod) => ({ pod, slot: slots.get(pod) ?? 0 }))
  }

  /** One pod's answer; a pod that does not answer, or fails on its side, fails the whole call. */
  const ask = async (
    pod: PodAdmin,
    method: string,
    path: string,
    json?: unknown,
  ): Promise<Record<string, unknown>> => {
    try {
      return await adminRequest(pod.admin, path, {
        method,
        ...(json === undefined ? {} : { json }),
        timeoutMs,
        unavailable: 'ERR_API_UNAVAILABLE',
      })
    } catch (err) {
      // A pod refusing the admin token (its Secret changed under it) is not the caller's fault.
      if (isUnderstudyError(err) && podFailures.has(err.code)) {
        throw createError(
          'ERR_API_UNAVAILABLE',
          [`pod ${pod.name} of mock service ${mockServiceId}: ${err.message}`],
          { cause: err },
        )
      }
      throw err
    }
  }

  const seenId = (slot: number, local: number): number => local * POD_SLOTS + slot
  const withId = <T extends { id: number }>(slot: number, entries: T[]): T[] =>
    entries.map((e) => ({ ...e, id: seenId(slot, e.id) }))

  /** The newest `count` entries of one pod matching `filter` (in steps of a runtime page). */
  const newestOf = async (
    pod: PodAdmin,
    filter: URLSearchParams,
    count: number,
  ): Promise<{ entries: InspectionListEntry[]; total: number }> => {
    const entries: InspectionListEntry[] = []
    let total = 0
    do {
      const query = new URLSearchParams(filter)
      query.set('skip', String(entries.length))
      query.set('limit', String(Math.min(RUNTIME_PAGE, count - entries.length)))
      const page = await ask(pod, 'GET', `/inspection?${query.toString()}`)
      const got = page['result'] as InspectionListEntry[]
      total = Number(page['total'] ?? 0)
      entries.push(...got)
      if (got.length === 0) break
    } while (entries.length < Math.min(count, total))
    return { entries, total }
  }

  const list = async (query: URLSearchParams): Promise<FannedInAnswer> => {
    const skip = queryInt(query, 'skip', 0, 0, Number.MAX_SAFE_INTEGER)
    const limit = queryInt(query, 'limit', DEFAULT_PAGE, 0, RUNTIME_PAGE)
    const filter = filtersOf(query)
    const pods = await allPods()
    const pages = await Promise.all(
      pods.map(async ({ pod, slot }) => {
        const page = await newestOf(pod, filter, skip + limit)
        return { entries: withId(slot, page.entries), total: page.total }
      }),
    )
    const entries = newestFirst(pages.flatMap((p) => p.entries)).slice(skip, skip + limit)
    return { result: entries, skip, limit, total: sum(pages.map((p) => p.total)) }
  }

  const detail = async (raw: string): Promise<FannedInAnswer> => {
    const id = Number(raw)
    const pods = await allPods()
    const owner =
      Number.isSafeInteger(id) && id > 0 ? pods.find((p) => p.slot === id % POD_SLOTS) : undefined
    if (owner === undefined) throw createError('ERR_INSPECT_NOT_FOUND', [raw])
    try {
      const local = Math.floor(id / POD_SLOTS)
      const found = (await ask(owner.pod, 'GET', `/inspection/${local}`))['result']
      return { result: { ...(found as InspectionDetail), id } }
    } catch (err) {
      if (isUnderstudyError(err) && err.code === 'ERR_INSPECT_NOT_FOUND') {
        throw createError('ERR_INSPECT_NOT_FOUND', [raw])
      }
      throw err
    }
  }

  const count = async (query: URLSearchParams): Promise<FannedInAnswer> => {
    const filter = filtersOf(query)
    const pods = await allPods()
    const counts = await Promise.all(
      pods.map(async ({ pod }) => {
        const answer = await ask(pod, 'GET', `/inspection/count?${filter.toString()}`)
        return (answer['result'] as { count: number }).count
      }),
    )
    return { result: { count: sum(counts) } }
  }

  const unmatched = async (query: URLSearchParams): Promise<FannedInAnswer> => {
    const filter = filtersOf(query)
    // As the runtime reads it: 1 to 1,000, 50 when absent or not a number.
    const limit = Math.min(Math.max(Number(query.get('limit') ?? 50) || 50, 1), RUNTIME_PAGE)
    filter.set('limit', String(limit))
    const pods = await allPods()
    const pages = await Promise.all(
      pods.map(async ({ pod, slot }) => {
        const page = await ask(pod, 'GET', `/inspection/unmatched?${filter.toString()}`)
        return {
          entries: withId(slot, page['result'] as UnmatchedEntry[]),
          total: Number(page['total'] ?? 0),
        }
      }),
    )
    return {
      result: newestFirst(pages.flatMap((p) => p.entries)).slice(0, limit),
      total: sum(pages.map((p) => p.total)),
    }
  }

  const verify = async (body: unknown): Promise<FannedInAnswer> => {
    const verification = readVerification(body)
    const pods = await allPods()
    const results = await Promise.all(
      pods.map(async ({ pod, slot }) => {
        const answer = await ask(pod, 'POST', '/inspection/verify', body)
        const result = answer['result'] as VerificationResult
        return {
          ...result,
          matching: withId(slot, result.matching),
          nearest: withId(slot, result.nearest),
        }
      }),
    )
    return { result: mergeVerifications(verification, results) }
  }

  /* A reset is never half-reported as done: every pod must forget its records. */
  const clear = async (): Promise<FannedInAnswer> => {
    const pods = await allPods()
    const deleted = await Promise.all(
      pods.map(async ({ pod }) => {
        const answer = await ask(pod, 'DELETE', '/inspection')
        return (answer['result'] as { deleted: number }).deleted
      }),
    )
    return { result: { deleted: sum(deleted) } }
  }

  return {
    request: async (method, path, body) => {
      const { route, query } = routeOf(path)
      const verb = method.toUpperCase()
      if (route === '/inspection' && verb === 'GET') return await list(query)
      if (route === '/inspection' && verb === 'DELETE') return await clear()
      if (route === '/inspection/count' && verb === 'GET') return await count(query)
      if (route === '/inspection/unmatched' && verb === 'GET') return await unmatched(query)
      if (route === '/inspection/verify' && verb === 'POST') return await verify(body)
      const id = /^\/inspection\/([^/]+)$/.exec(route)?.[1]
      if (id !== undefined && verb === 'GET') return await detail(decodeURIComponent(id))
      throw createError('ERR_API_NOT_FOUND', [
        `${verb} ${route} over the pods of a mock service (fanned in: GET/DELETE /inspection, GET /inspection/{id}, GET /inspection/count, GET /inspection/unmatched, POST /inspection/verify)`,
      ])
    },
  }
}

function routeOf(path: string): { route: string; query: URLSearchParams } {
  const url = new URL(path, 'http://mock-service.invalid')
  return {
    route: url.pathname.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1'),
    query: url.searchParams,
  }
}

/**
 * Whether a call is answered over every pod (the inspection ring and verification); the other
 * admin calls (scenarios, recordings, health) ask one ready pod.
 *
 * @example
 * isFannedIn('POST', '/inspection/verify') // true
 * isFannedIn('GET', '/scenarios') // false
 */
export function isFannedIn(method: string, path: string): boolean {
  const { route } = routeOf(path)
  const verb = method.toUpperCase()
  if (route === '/inspection') return verb === 'GET' || verb === 'DELETE'
  if (route === '/inspection/verify') return verb === 'POST'
  return verb === 'GET' && /^\/inspection\/[^/]+$/.test(route)
}

/** The filter parameters of a query, validated here (400 naming the parameter) before any pod is asked. */
function filtersOf(query: URLSearchParams): URLSearchParams {
  filterFromQuery(query)
  const out = new URLSearchParams()
  for (const name of filterParams) {
    const value = query.get(name)
    if (value !== null) out.set(name, value)
  }
  return out
}

function sum(values: number[]): number {
  let total = 0
  for (const v of values) total += v
  return total
}
