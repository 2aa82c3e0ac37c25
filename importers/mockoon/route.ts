import type { DslInput, RequestDslInput, ResponseDslInput } from '../../src/dsl/index.js'
import { joinPointer } from '../../src/dsl/index.js'
import type { Draft } from '../shared/build.js'
import { isObject, str, type Loose } from '../shared/structured.js'
import { routePath, type RoutePath } from './path.js'
import { responseOf, type EnvironmentParts } from './response.js'
import { applyEffect, ruleOf, rulesOf, type RuleEffect } from './rules.js'

/*
 * One Mockoon route as transactions. Mockoon picks the first route whose method and path match,
 * then, in its default mode, the first response whose rules hold, else the route's default
 * response. The importer reproduces that order with strictly increasing priorities (route by
 * route; within a route, each response's rule alternatives, then the default unconditionally).
 * `SEQUENTIAL` responses and `request_number` rules count the route's requests with a scenario
 * of the route; `RANDOM` has no equivalent and serves the default response.
 */

/** What converting a route needs. */
interface RouteContext {
  env: EnvironmentParts
  prefix: string
  /** The next priority in Mockoon's order. */
  nextPriority: () => number
  note: (message: string, at: string) => void
}

/** One way a response's rules can hold: the effects that must all hold, and a request number. */
interface Alternative {
  effects: RuleEffect[]
  requestNumber?: number
}

/**
 * The drafts of one route, in Mockoon's order of precedence.
 *
 * @example
 * draftsOfRoute(env.routes[0], '/routes/0', ctx).length
 */
export function draftsOfRoute(route: Loose, pointer: string, ctx: RouteContext): Draft[] {
  const type = str(route['type']) ?? 'http'
  const endpoint = str(route['endpoint']) ?? ''
  const method = (str(route['method']) ?? 'get').toUpperCase()
  const path = routePath(ctx.prefix, endpoint)
  const label = `route ${method} ${path.display}`
  if (type === 'ws') {
    ctx.note(`${label}: WebSocket routes have no equivalent; skipped`, pointer)
    return []
  }
  const responses = Array.isArray(route['responses']) ? route['responses'] : []
  if (responses.length === 0) {
    ctx.note(`${label}: has no response; skipped`, pointer)
    return []
  }
  if (type === 'crud') {
    ctx.note(
      `${label}: a CRUD route is served read-only: GET answers its data bucket, other methods and item paths are not generated`,
      pointer,
    )
  }
  const base: RequestDslInput = { url: path.url }
  if (type === 'crud') base.method = 'GET'
  else if (method !== 'ALL') base.method = method
  const defaultIndex = Math.max(
    0,
    responses.findIndex((r) => isObject(r) && r['default'] === true),
  )
  const mode = modeOf(route)
  const built = new Map<number, ResponseDslInput>()
  const build = (
    index: number,
    request: RequestDslInput,
    scenario?: DslInput['scenario'],
  ): Draft | undefined => {
    const res = responses[index]
    const at = joinPointer(`${pointer}/responses`, index)
    if (!isObject(res)) {
      ctx.note(`${label}: response ${index} is not an object; skipped`, at)
      return undefined
    }
    // a response served under several rule alternatives is read (and noted) once
    let read = built.get(index)
    if (read === undefined) {
      read = responseOf(res, ctx.env, (m) => ctx.note(`${label}: ${m}`, at))
      built.set(index, read)
    }
    const responseDsl = structuredClone(read)
    const dsl: DslInput = { priority: ctx.nextPriority(), requestDsl: request, responseDsl }
    if (scenario !== undefined) dsl.scenario = scenario
    const name = nameOf(method === 'ALL' ? 'ANY' : method, path, res, responseDsl.status ?? 200)
    return { name, dsl, pointer: at, label: `${label} response ${index}` }
  }
  const scenarioName = `mockoon ${str(route['uuid']) ?? label}`
  const drafts: Array<Draft | undefined> = []
  if (mode === 'SEQUENTIAL') {
    const count = responses.length
    for (let i = 0; i < count; i++) {
      drafts.push(
        build(i, copy(base), {
          name: scenarioName,
          requiredState: stateName(i + 1),
          newState: stateName(((i + 1) % count) + 1),
        }),
      )
    }
    return drafts.filter((d): d is Draft => d !== undefined)
  }
  if (mode === 'RANDOM') {
    ctx.note(
      `${label}: random responses have no equivalent; the default response is always served`,
      pointer,
    )
  }
  const withRules =
    mode === 'RANDOM' || mode === 'DISABLE_RULES'
      ? []
      : responses.map((r, i) => ({
          index: i,
          alternatives: alternativesOf(r, path, (m) =>
            ctx.note(`${label}: ${m}`, joinPointer(`${pointer}/responses`, i)),
          ),
        }))
  const fallback = mode === 'FALLBACK' ? undefined : defaultIndex
  const counted = Math.max(
    0,
    ...withRules.flatMap((r) => r.alternatives.map((a) => a.requestNumber ?? 0)),
  )
  if (counted === 0) {
    for (const { index, alternatives } of withRules) {
      for (const alt of alternatives) drafts.push(build(index, requestWith(base, alt)))
    }
    if (fallback !== undefined) drafts.push(build(fallback, copy(base)))
    return drafts.filter((d): d is Draft => d !== undefined)
  }
  // the route's requests are counted 1..counted, and every later one is counted + 1
  for (let n = 1; n <= counted + 1; n++) {
    const scenario = {
      name: scenarioName,
      requiredState: stateName(n),
      newState: stateName(Math.min(n + 1, counted + 1)),
    }
    for (const { index, alternatives } of withRules) {
      for (const alt of alternatives) {
        if (alt.requestNumber === undefined || alt.requestNumber === n) {
          drafts.push(build(index, requestWith(base, alt), scenario))
        }
      }
    }
    if (fallback !== undefined) drafts.push(build(fallback, copy(base), scenario))
  }
  return drafts.filter((d): d is Draft => d !== undefined)
}

/** The response mode, from `responseMode` or the flags of early releases. */
function modeOf(route: Loose): string | null {
  const mode = str(route['responseMode'])
  if (mode !== undefined) return mode
  if (route['sequentialResponse'] === true) return 'SEQUENTIAL'
  if (route['randomResponse'] === true) return 'RANDOM'
  return null
}

/**
 * The ways a response's rules can hold: AND combines every rule into one alternative (a rule with
 * no equivalent makes the response unreachable, noted); OR makes one alternative of each form of
 * each rule (a rule with no equivalent is dropped, noted). A response without rules has none.
 */
function alternativesOf(
  res: unknown,
  path: RoutePath,
  note: (message: string) => void,
): Alternative[] {
  if (!isObject(res)) return []
  const rules = rulesOf(res)
  if (rules.length === 0) return []
  const operator = str(res['rulesOperator']) === 'AND' ? 'AND' : 'OR'
  const outcomes = rules.map((rule) => ruleOf(rule, path))
  if (operator === 'AND') {
    const effects: RuleEffect[] = []
    for (const outcome of outcomes) {
      if ('unsupported' in outcome) {
        note(
          `${outcome.unsupported}; the response's rules (AND) cannot all be checked, so it is served only as a default`,
        )
        return []
      }
      const first = outcome.effects[0]
      if (first !== undefined) effects.push(first)
    }
    const numbers = new Set(effects.flatMap((e) => (e.part === 'requestNumber' ? [e.n] : [])))
    if (numbers.size > 1) return []
    return [alternative(effects, numbers.values().next().value)]
  }
  const alternatives: Alternative[] = []
  for (const outcome of outcomes) {
    if ('unsupported' in outcome) {
      note(`${outcome.unsupported}; that rule is left out`)
      continue
    }
    for (const effect of outcome.effects) {
      alternatives.push(
        alternative([effect], effect.part === 'requestNumber' ? effect.n : undefined),
      )
    }
  }
  return alternatives
}

function alternative(effects: RuleEffect[], requestNumber: number | undefined): Alternative {
  return requestNumber === undefined ? { effects } : { effects, requestNumber }
}

function requestWith(base: RequestDslInput, alt: Alternative): RequestDslInput {
  const request = copy(base)
  for (const effect of alt.effects) applyEffect(request, effect)
  return request
}

function copy(request: RequestDslInput): RequestDslInput {
  return structuredClone(request)
}

/** Scenario states: the first request is `Started` (every scenario's first state), then `2`, `3`, ... */
function stateName(n: number): string {
  return n === 1 ? 'Started' : String(n)
}

function nameOf(method: string, path: RoutePath, res: Loose, status: number): string {
  const label = str(res['label']) ?? ''
  return `${method} ${path.display} ${label === '' ? String(status) : `(${label})`}`
}
