import type { DslInput, ResponseDslInput } from '../../src/dsl/index.js'
import { isObject, str, type Loose } from '../shared/structured.js'

/*
 * WireMock features beyond a fixed answer, mapped onto the DSL's: response templating,
 * faults, scenarios and webhook post-serve actions.
 */

const faultByWireMock: Record<string, string> = {
  CONNECTION_RESET_BY_PEER: 'connection_reset',
  EMPTY_RESPONSE: 'empty_response',
  MALFORMED_RESPONSE_CHUNK: 'malformed_chunk',
  RANDOM_DATA_THEN_CLOSE: 'random_data_then_close',
}

/** The DSL fault of a WireMock `fault`, or undefined (with the reason) when there is none. */
export function faultOf(value: unknown): { fault: string } | { unknown: string } {
  const name = typeof value === 'string' ? faultByWireMock[value] : undefined
  return name === undefined ? { unknown: JSON.stringify(value) } : { fault: name }
}

/** `transformers: ["response-template"]` makes a templated response; other transformers are reported. */
export function applyTransformers(
  res: Loose,
  out: ResponseDslInput,
  note: (message: string) => void,
): void {
  const transformers = res['transformers']
  if (transformers === undefined) return
  if (!Array.isArray(transformers)) {
    note('response transformers must be an array; ignored')
    return
  }
  for (const t of transformers) {
    if (t === 'response-template') out.template = true
    else note(`response transformer ${JSON.stringify(t)} is not supported; ignored`)
  }
}

/** `scenarioName`, `requiredScenarioState`, `newScenarioState` as the DSL's `scenario`. */
export function applyScenario(stub: Loose, dsl: DslInput): void {
  const name = str(stub['scenarioName'])
  if (name === undefined) return
  const scenario: NonNullable<DslInput['scenario']> = { name }
  const required = str(stub['requiredScenarioState'])
  const next = str(stub['newScenarioState'])
  if (required !== undefined) scenario.requiredState = required
  if (next !== undefined) scenario.newState = next
  dsl.scenario = scenario
}

/** `postServeActions` / `serveEventListeners` of type webhook as `postServe` calls. */
export function applyWebhooks(
  stub: Loose,
  out: ResponseDslInput,
  note: (message: string) => void,
): void {
  const actions = [
    ...(Array.isArray(stub['postServeActions']) ? stub['postServeActions'] : []),
    ...(Array.isArray(stub['serveEventListeners']) ? stub['serveEventListeners'] : []),
  ]
  const calls: NonNullable<ResponseDslInput['postServe']> = []
  for (const action of actions) {
    const params = isObject(action) && isObject(action['parameters']) ? action['parameters'] : null
    const url = params === null ? undefined : str(params['url'])
    if (
      !isObject(action) ||
      action['name'] !== 'webhook' ||
      params === null ||
      url === undefined ||
      !/^https?:\/\//.test(url)
    ) {
      note('a post-serve action that is not a webhook with an absolute url is not run')
      continue
    }
    const call: NonNullable<ResponseDslInput['postServe']>[number] = {
      url,
      method: str(params['method']) ?? 'POST',
    }
    if (isObject(params['headers'])) {
      call.headers = Object.entries(params['headers']).map(([name, value]) => ({
        name,
        value: String(value),
      }))
    }
    const body = str(params['body'])
    if (body !== undefined) call.body = body
    const delay = params['delay']
    if (isObject(delay) && typeof delay['milliseconds'] === 'number') {
      call.delay = Math.max(0, Math.round(delay['milliseconds']))
    } else if (delay !== undefined) {
      note(
        'a webhook delay other than a fixed {"milliseconds": N} is not supported; sent without delay',
      )
    }
    calls.push(call)
  }
  if (calls.length > 0) out.postServe = calls
}
