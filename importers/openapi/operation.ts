import {
  DEFAULT_PRIORITY,
  joinPointer,
  type MatcherInput,
  type RequestDslInput,
  type ResponseDslInput,
  type TransactionInput,
} from '../../src/dsl/index.js'
import { matchPath, type ServerBase } from './paths.js'
import { isObject, type RefResolver } from './resolver.js'
import { buildResponse, exampleNames, planResponses, type ResponseChoice } from './responses.js'

/**
 * The request header that selects a documented non-default response: `X-Understudy-Status: 404`
 * answers with the operation's `404` response, `X-Understudy-Status: 4XX` with its `4XX` range,
 * `X-Understudy-Status: default` with its `default` response.
 */
export const STATUS_HEADER = 'X-Understudy-Status'

/**
 * The request header that selects a named example of a response that documents several:
 * `X-Understudy-Example: dog` (the runtime sets it from `Prefer: example=dog`); of the main
 * response alone, or with STATUS_HEADER of the response that status selects.
 */
const EXAMPLE_HEADER = 'X-Understudy-Example'

/**
 * Priority of the header-selected variants: one above the default priority of the main
 * transaction (a smaller number wins, docs/dsl.md#order). A variant carries the extra header
 * matcher, so it never matches without the header; with the header it must beat the main
 * transaction, which matches that request too.
 */
export const VARIANT_PRIORITY = DEFAULT_PRIORITY - 1

/**
 * Priority of a named example of a non-main response: it carries both headers, so it matches
 * only a request that asks for both, and must then beat the status variant (which matches too).
 */
const EXAMPLE_OF_VARIANT_PRIORITY = VARIANT_PRIORITY - 1

/** Everything an operation's transactions depend on. */
interface OperationInput {
  method: string
  /** The key under `paths`, such as `/pets/{petId}`. */
  pathKey: string
  operation: Record<string, unknown>
  base: ServerBase
  version: '2.0' | '3.0' | '3.1'
  resolver: RefResolver
  produces: string[]
  /** JSON pointer of the operation. */
  at: string
  warn: (message: string, at?: string) => void
}

/**
 * The transactions of one operation: the main one (lowest 2xx, see planResponses) with the
 * default priority, then one per other documented response, selected by the STATUS_HEADER
 * request header and given VARIANT_PRIORITY. Requests are matched on method and path (plus
 * any query the path key pins); parameters, headers and bodies are not matched, so any request
 * to the operation gets its example answer.
 *
 * @example
 * operationTransactions({ method: 'get', pathKey: '/pets/{petId}', operation, base: { prefix: '/v1' }, ... })
 * // [{ name: 'GET /v1/pets/{petId}', dsl: {...} }, { name: 'GET /v1/pets/{petId} [404]', dsl: { priority: 9, requestDsl: { headers: [{ key: 'X-Understudy-Status', ... }] } } }]
 */
export function operationTransactions(input: OperationInput): TransactionInput[] {
  const { operation, at, warn } = input
  const method = input.method.toUpperCase()
  const path = matchPath(input.base.prefix, input.pathKey)
  const name = `${method} ${path.path}${path.querySuffix}`
  const requestDsl: RequestDslInput = { method, path: path.path, url: path.url }
  if (input.base.host !== undefined) requestDsl.host = input.base.host
  if (path.queryParams.length > 0) requestDsl.queryParams = path.queryParams
  const common: Pick<TransactionInput, 'description' | 'tags'> = {}
  const description = describe(operation)
  if (description !== undefined) common.description = description
  const tags = Array.isArray(operation['tags'])
    ? operation['tags'].filter((t): t is string => typeof t === 'string')
    : []
  if (tags.length > 0) common.tags = tags
  if (isObject(operation['callbacks'])) {
    warn(
      `${name}: its callbacks (${Object.keys(operation['callbacks']).join(', ')}) are requests the API makes, not answers; they are not imported`,
      `${at}/callbacks`,
    )
  }

  const responsesAt = `${at}/responses`
  const responses = input.resolver.deref(operation['responses'], responsesAt)?.value
  const plan = isObject(responses) ? planResponses(responses) : undefined
  for (const s of plan?.skipped ?? []) {
    warn(`${name}: response "${s.key}" ${s.reason}; skipped`, joinPointer(responsesAt, s.key))
  }
  if (plan?.main === undefined) {
    warn(
      `${name}: the operation documents no response; it answers 200 with an empty body`,
      responsesAt,
    )
    return [{ name, ...common, dsl: { requestDsl, responseDsl: { status: 200 } } }]
  }
  const build = (choice: ResponseChoice, example?: string): ResponseDslInput => {
    const choiceAt = joinPointer(responsesAt, choice.key)
    const context = {
      version: input.version,
      resolver: input.resolver,
      produces: input.produces,
      at: choiceAt,
    }
    const built = buildResponse(
      choice.node,
      choice.status,
      example === undefined ? context : { ...context, example },
    )
    for (const note of built.notes) warn(`${name}: response "${choice.key}": ${note}`, choiceAt)
    return built.responseDsl
  }
  const out: TransactionInput[] = [
    { name, ...common, dsl: { requestDsl, responseDsl: build(plan.main) } },
  ]
  // Named examples of the main response first: a status variant (later, so newer) wins a request
  // that asks for both.
  for (const example of exampleNames(plan.main.node, {
    version: input.version,
    resolver: input.resolver,
    produces: input.produces,
    at: responsesAt,
  })) {
    out.push({
      name: `${name} [example=${example}]`,
      ...common,
      dsl: {
        priority: VARIANT_PRIORITY,
        requestDsl: {
          ...requestDsl,
          headers: [{ key: EXAMPLE_HEADER, matcherName: 'equals', matchingValue: example }],
        },
        responseDsl: build(plan.main, example),
      },
    })
  }
  for (const variant of plan.variants) {
    const status: MatcherInput = {
      key: STATUS_HEADER,
      matcherName: 'equals',
      matchingValue: variant.key,
    }
    out.push({
      name: `${name} [${variant.key}]`,
      ...common,
      dsl: {
        priority: VARIANT_PRIORITY,
        requestDsl: { ...requestDsl, headers: [status] },
        responseDsl: build(variant),
      },
    })
    // `Prefer: code=404, example=gone`: a named example of this response.
    for (const example of exampleNames(variant.node, {
      version: input.version,
      resolver: input.resolver,
      produces: input.produces,
      at: responsesAt,
    })) {
      out.push({
        name: `${name} [${variant.key}] [example=${example}]`,
        ...common,
        dsl: {
          priority: EXAMPLE_OF_VARIANT_PRIORITY,
          requestDsl: {
            ...requestDsl,
            headers: [
              status,
              { key: EXAMPLE_HEADER, matcherName: 'equals', matchingValue: example },
            ],
          },
          responseDsl: build(variant, example),
        },
      })
    }
  }
  return out
}

/** The summary, else the operationId, else the first line of the description, at most 200 characters. */
function describe(operation: Record<string, unknown>): string | undefined {
  for (const key of ['summary', 'operationId', 'description']) {
    const value = operation[key]
    if (typeof value === 'string' && value.trim() !== '') {
      const line = value.trim().split('\n')[0] ?? ''
      return line.length > 200 ? `${line.slice(0, 199)}…` : line
    }
  }
  return undefined
}
