import type { DocumentInput, DslInput, ResponseDslInput } from './input-types.js'
import type {
  CorsSpec,
  FaultSpec,
  FaultType,
  MockServiceDocument,
  PostServeCall,
  ResponseDsl,
  ScenarioSpec,
  TransactionDsl,
} from './types.js'

/*
 * Normalization of the dynamic-response fields (templates, faults, webhooks, scenarios, CORS), kept apart
 * from normalize.ts so that the fixed-answer DSL stays readable on its own.
 */

type FaultInput = string | { type: string; probability?: number } | null | undefined

/** `fault` / `faults`: a name or `{type, probability}`, lowercased; probability 1 is dropped. */
function normalizeFault(input: FaultInput): FaultSpec | undefined {
  if (input === null || input === undefined) return undefined
  const raw = typeof input === 'string' ? { type: input } : input
  const out: FaultSpec = { type: raw.type.toLowerCase() as FaultType }
  if (raw.probability !== undefined && raw.probability < 1) out.probability = raw.probability
  return out
}

/** Copies the dynamic response fields onto a normalized response. */
export function normalizeDynamicResponse(r: ResponseDslInput, out: ResponseDsl): void {
  if (r.template === true || r.templated === true) out.template = true
  const fault = normalizeFault(r.fault)
  if (fault !== undefined) out.fault = fault
  if (Array.isArray(r.postServe) && r.postServe.length > 0) {
    out.postServe = r.postServe.map((c): PostServeCall => {
      const call: PostServeCall = { url: c.url, method: (c.method ?? 'POST').toUpperCase() }
      if (c.headers !== undefined && c.headers.length > 0) {
        call.headers = c.headers.map((h) => ({ name: h.name, value: h.value }))
      }
      if (c.body !== undefined) call.body = c.body
      if (c.delay !== undefined && c.delay > 0) call.delay = c.delay
      return call
    })
  }
}

/** Copies `scenario` onto a normalized transaction dsl. */
export function normalizeScenario(input: DslInput, out: TransactionDsl): void {
  const s = input.scenario
  if (s === null || s === undefined) return
  const scenario: ScenarioSpec = { name: s.name }
  if (typeof s.requiredState === 'string') scenario.requiredState = s.requiredState
  if (typeof s.newState === 'string') scenario.newState = s.newState
  if (s.instanceKey !== null && s.instanceKey !== undefined) {
    scenario.instanceKey = { part: s.instanceKey.part, key: s.instanceKey.key ?? '' }
  }
  if (typeof s.ttl === 'number') scenario.ttl = s.ttl
  out.scenario = scenario
}

/** `cors: true` allows any origin, the usual methods and any requested header. */
function normalizeCors(input: DocumentInput['cors']): CorsSpec | undefined {
  if (input === null || input === undefined || input === false) return undefined
  const spec = input === true ? {} : input
  return {
    origins: spec.origins ?? ['*'],
    methods: (spec.methods ?? ['GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE']).map((m) =>
      m.toUpperCase(),
    ),
    headers: spec.headers ?? [],
    credentials: spec.credentials ?? false,
    maxAge: spec.maxAge ?? null,
  }
}

/** Copies the mock-service-level fields onto a normalized document. */
export function normalizeDynamicDocument(fields: DocumentInput, doc: MockServiceDocument): void {
  const cors = normalizeCors(fields.cors)
  if (cors !== undefined) doc.cors = cors
  const faults = normalizeFault(fields.faults)
  if (faults !== undefined) doc.faults = faults
  if (typeof fields.templateSeed === 'number') doc.templateSeed = fields.templateSeed
  // Only `true` is kept, so that a document without them reads as before
  if (fields.validateRequests === true) doc.validateRequests = true
  if (fields.matchHost === true) doc.matchHost = true
}
