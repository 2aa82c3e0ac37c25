import type { ScenarioSpec } from '../../dsl/index.js'
import { compileJsonPath, type MatchRequest, type Predicate } from '../../match/index.js'
import type { ScenarioStates } from './store.js'

/** A transaction's place in a scenario: the state it requires and the transition its answer makes. */
export interface CompiledScenario {
  /** Added to the transaction's predicates when it requires a state. */
  readonly predicate: Predicate | null
  /** Moves the scenario on; call in the same synchronous turn as the match. */
  transition: (req: MatchRequest) => void
}

type InstanceOf = (req: MatchRequest) => string | null

function instanceReader(spec: ScenarioSpec): InstanceOf {
  const key = spec.instanceKey
  if (key === undefined) return () => null
  const first = (v: string | string[] | undefined): string | null =>
    v === undefined ? null : Array.isArray(v) ? (v[0] ?? null) : v
  switch (key.part) {
    case 'header': {
      const name = key.key.toLowerCase()
      return (req) => first(req.headers[name])
    }
    case 'query':
      return (req) => first(req.query()[key.key])
    case 'cookie':
      return (req) => first(req.cookies()[key.key])
    case 'body': {
      if (key.key === '') return (req) => req.text()
      const select = compileJsonPath(key.key)
      return (req) => {
        const json = req.json()
        if (json === undefined) return null
        const found = select(json)[0]
        return found === undefined
          ? null
          : typeof found === 'string'
            ? found
            : JSON.stringify(found)
      }
    }
  }
}

/**
 * Compiles `scenario`. A request whose instance key is missing shares the instance `null` (the
 * scenario's default instance). Throws when the body JSONPath is invalid.
 */
export function compileScenario(spec: ScenarioSpec, store: ScenarioStates): CompiledScenario {
  const instanceOf = instanceReader(spec)
  const name = spec.name
  const ttl = spec.ttl ?? null
  const required = spec.requiredState
  const predicate: Predicate | null =
    required === undefined
      ? null
      : {
          part: 'scenario',
          key: name,
          matcherName: 'equals',
          expected: required,
          pointer: '/dsl/scenario/requiredState',
          test: (req) => store.state(name, instanceOf(req)) === required,
          actual: (req) => store.state(name, instanceOf(req)),
        }
  const next = spec.newState
  return {
    predicate,
    transition:
      next === undefined
        ? ttl === null
          ? () => {}
          : (req) => {
              const instance = instanceOf(req)
              store.set(name, instance, store.state(name, instance), ttl)
            }
        : (req) => store.set(name, instanceOf(req), next, ttl),
  }
}
