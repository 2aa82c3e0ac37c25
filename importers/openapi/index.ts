import { joinPointer, type TransactionInput } from '../../src/dsl/index.js'
import {
  checkSize,
  detailAt,
  finishImport,
  guardImport,
  importInvalid,
  orderBySpecificity,
  parseStructured,
  uniqueNames,
  type Locate,
} from '../shared/index.js'
import type { ImportContext, ImportInput, ImportResult, ImportWarning } from '../types.js'
import { operationTransactions } from './operation.js'
import { serverBase, swaggerBase, type ServerBase } from './paths.js'
import { isObject, RefResolver } from './resolver.js'

export { generateExample } from './example.js'
export { RefResolver } from './resolver.js'
export { STATUS_HEADER, VARIANT_PRIORITY } from './operation.js'

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

type Version = '2.0' | '3.0' | '3.1'

/**
 * Imports an OpenAPI 3.0 or 3.1 description (dsl type OPENAPI_DSL) or a Swagger 2.0 one
 * (SWAGGER_DSL), JSON or YAML: one transaction per operation answering with its lowest 2xx
 * response, plus one per other documented response, selected by the request header
 * `X-Understudy-Status: <key>`. Bodies come from the description's examples, else from a
 * deterministic example generated from the schema. `$ref`s are followed lazily, to other files
 * through `ctx.readFile`. See docs/importers/openapi.md for every mapping decision.
 *
 * @example
 * const result = importOpenApi({ bytes: readFileSync('petstore.yaml'), fileName: 'petstore.yaml' })
 * result.dslType // 'OPENAPI_DSL'
 * result.document.transactions.map((t) => t.name) // ['GET /v2/pets', 'GET /v2/pets [default]', ...]
 */
export function importOpenApi(input: ImportInput, ctx: ImportContext = {}): ImportResult {
  const fileName = input.fileName
  return guardImport(fileName, () => {
    checkSize(input, ctx)
    const parsed = parseStructured(input)
    const doc = parsed.value
    if (!isObject(doc)) {
      throw importInvalid(
        fileName,
        'not an OpenAPI description: expected an object with "openapi: 3.x" or "swagger: 2.0"',
        [detailAt(fileName, '', 'must be an object', parsed.locate)],
      )
    }
    const version = detectVersion(doc, fileName, parsed.locate)
    const warnings: ImportWarning[] = []
    const warn = (message: string, at?: string): void => {
      warnings.push(
        at === undefined ? { message, file: fileName } : { message, file: fileName, at },
      )
    }
    const resolver = new RefResolver(doc, { fileName, readFile: ctx.readFile, warn })
    const paths = pathsOf(doc, version, fileName, parsed.locate)
    const rootBase = version === '2.0' ? swaggerBase(doc) : serverBase(doc['servers'])
    const rootProduces = stringList(doc['produces'])

    const transactions: TransactionInput[] = []
    for (const [key, itemNode] of Object.entries(paths)) {
      if (key.startsWith('x-')) continue
      const at = joinPointer('/paths', key)
      const item = resolver.deref(itemNode, at)?.value
      if (!isObject(item)) {
        warn(`path ${key} is not an object; skipped`, at)
        continue
      }
      for (const method of methods) {
        const operation = item[method]
        if (operation === undefined) continue
        const opAt = joinPointer(at, method)
        if (!isObject(operation)) {
          warn(`${method.toUpperCase()} ${key} is not an object; skipped`, opAt)
          continue
        }
        transactions.push(
          ...operationTransactions({
            method,
            pathKey: key,
            operation,
            base: baseFor(version, rootBase, item, operation),
            version,
            resolver,
            produces: stringList(operation['produces']) ?? rootProduces ?? [],
            at: opAt,
            warn,
          }),
        )
      }
    }
    if (isObject(doc['webhooks'])) {
      for (const name of Object.keys(doc['webhooks'])) {
        warn(
          `webhook "${name}" is a request the API sends, with no path to serve; skipped`,
          joinPointer('/webhooks', name),
        )
      }
    }
    if (transactions.length === 0) warn('the description has no operations to serve')

    const names = uniqueNames(transactions.map((t) => t.name ?? ''))
    transactions.forEach((t, i) => {
      t.name = names[i] ?? null
    })
    const info = isObject(doc['info']) ? doc['info'] : {}
    const fields: { name?: string } = {}
    if (typeof info['title'] === 'string' && info['title'] !== '') fields.name = info['title']
    return finishImport({
      format: 'openapi',
      dslType: version === '2.0' ? 'SWAGGER_DSL' : 'OPENAPI_DSL',
      fileName,
      transactions: orderBySpecificity(concreteLast(transactions)),
      warnings,
      fields,
    })
  })
}

/**
 * OpenAPI matches concrete paths before templated ones (`/pets/mine` before `/pets/{id}`); in the
 * DSL, at equal priority the later transaction wins. So transactions are ordered by the number of
 * `{placeholders}` in their path, most first (a stable sort keeps the document's order otherwise).
 */
function concreteLast(transactions: TransactionInput[]): TransactionInput[] {
  const placeholders = (t: TransactionInput): number =>
    (t.dsl.requestDsl.url?.matchingValue ?? t.dsl.requestDsl.path ?? '').split('{').length - 1
  return transactions
    .map((txn, index) => ({ txn, index, count: placeholders(txn) }))
    .sort((a, b) => b.count - a.count || a.index - b.index)
    .map((e) => e.txn)
}

function detectVersion(doc: Record<string, unknown>, fileName: string, locate: Locate): Version {
  const swagger = doc['swagger']
  if (swagger !== undefined) {
    if (String(swagger) === '2.0' || swagger === 2) return '2.0'
    throw importInvalid(
      fileName,
      `unsupported Swagger version ${JSON.stringify(swagger)}: expected "2.0"`,
      [detailAt(fileName, '/swagger', 'must be "2.0"', locate)],
    )
  }
  const openapi = doc['openapi']
  if (openapi === undefined) {
    throw importInvalid(
      fileName,
      'not an OpenAPI description: expected an "openapi: 3.x" or "swagger: 2.0" member at the top level',
      [detailAt(fileName, '', 'must have property "openapi" or "swagger"', locate)],
    )
  }
  const text = String(openapi)
  if (/^3\.0(\.|$)/.test(text)) return '3.0'
  if (/^3\.[1-9]\d*(\.|$)/.test(text)) return '3.1'
  throw importInvalid(
    fileName,
    `unsupported OpenAPI version ${JSON.stringify(openapi)}: expected 3.0.x or 3.1.x`,
    [detailAt(fileName, '/openapi', 'must be 3.0.x or 3.1.x', locate)],
  )
}

function pathsOf(
  doc: Record<string, unknown>,
  version: Version,
  fileName: string,
  locate: Locate,
): Record<string, unknown> {
  const paths = doc['paths']
  // 3.1 made `paths` optional: a description may hold only webhooks or components.
  if (paths === undefined && version === '3.1') return {}
  if (isObject(paths)) return paths
  const message = paths === undefined ? 'must have property "paths"' : 'must be an object'
  const pointer = paths === undefined ? '' : '/paths'
  throw importInvalid(
    fileName,
    `invalid OpenAPI description: ${pointer === '' ? '/' : pointer} ${message}`,
    [detailAt(fileName, pointer, message, locate)],
  )
}

/** 3.x: the operation's `servers`, else its path item's, else the document's (already in `root`). */
function baseFor(
  version: Version,
  root: ServerBase,
  item: Record<string, unknown>,
  operation: Record<string, unknown>,
): ServerBase {
  if (version === '2.0') return root
  for (const servers of [operation['servers'], item['servers']]) {
    if (Array.isArray(servers) && servers.length > 0) return serverBase(servers)
  }
  return root
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined
}
