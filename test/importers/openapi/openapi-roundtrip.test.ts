import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import { parse } from 'yaml'
import {
  decodeContent,
  type MockServiceDocument,
  type Transaction,
} from '../../../src/dsl/index.js'
import { compileMatcher, MatchRequest } from '../../../src/match/index.js'
import { importOpenApi, RefResolver } from '../../../importers/openapi/index.js'
import { matchPath, serverBase, swaggerBase } from '../../../importers/openapi/paths.js'
import {
  describeGithubDescription,
  describeRealworld,
  readRealworld,
  realworldFiles,
} from '../../helpers/realworld.js'
import { githubDescriptionFile } from '../../../scripts/github-description.js'
import { startServer } from '../../helpers/server.js'
import { SchemaValidator } from './schema-validator.js'

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/** Response schemas that no value satisfies (see openapi-realworld.test.ts). */
const unsatisfiable = /^taurus-bzm-api\.swagger2\.json (GET|POST) \/api\/v4\/(tests|reports)/

/**
 * Answers that do not match their schema because the description's own example does not: the
 * importer serves a documented example as written. Named here so that the list cannot rot.
 */
const inconsistentExamples = [
  // `examples.response.value` is one audio item; the schema is the search result ({data, ...})
  'shutterstock-v3.oas30.yaml GET /v2/audio/search',
  // the example's total_item_count is a string; the schema says integer
  'shutterstock-v3.oas30.yaml GET /v2/videos/collections/sample1',
]

interface Operation {
  method: string
  /** The URL a client calls: documented path parameters filled in with sample values. */
  url: string
  name: string
  responses: Json
}

/** Every operation of a description, with the URL a client would call and its transaction's name. */
function operationsOf(doc: Json): Operation[] {
  const swagger = doc['swagger'] !== undefined
  const base = swagger ? swaggerBase(doc) : serverBase(doc['servers'])
  const out: Operation[] = []
  for (const [key, item] of Object.entries(isObject(doc['paths']) ? doc['paths'] : {})) {
    if (!isObject(item) || key.startsWith('x-')) continue
    for (const method of methods) {
      const operation = item[method]
      if (!isObject(operation)) continue
      const path = matchPath(base.prefix, key)
      const query = path.queryParams
        .map(
          (q) =>
            `${encodeURIComponent(q.key ?? '')}=${q.matcherName === 'equals' ? encodeURIComponent(q.matchingValue ?? '') : 'x'}`,
        )
        .join('&')
      const filled = path.path.replace(/\{[^{}]+\}/g, 'sample1')
      out.push({
        method: method.toUpperCase(),
        url: query === '' ? filled : `${filled}?${query}`,
        name: `${method.toUpperCase()} ${path.path}${path.querySuffix}`,
        responses: isObject(operation['responses']) ? operation['responses'] : {},
      })
    }
  }
  return out
}

/** The JSON schema documented for `status` (or its range, or default), if the answer is JSON. */
function schemaFor(op: Operation, status: number, resolver: RefResolver): unknown {
  const key = [String(status), `${String(status)[0] ?? ''}XX`, 'default'].find(
    (k) => op.responses[k] !== undefined,
  )
  if (key === undefined) return undefined
  const response = resolver.deref(op.responses[key])?.value
  if (!isObject(response)) return undefined
  if (response['schema'] !== undefined) return response['schema']
  const content = isObject(response['content']) ? response['content'] : {}
  const jsonType = Object.keys(content).find((t) => /json/i.test(t))
  const media = jsonType === undefined ? undefined : content[jsonType]
  return isObject(media) ? media['schema'] : undefined
}

/**
 * Calls every operation on a served import and checks the answer: the status and body of the
 * transaction the runtime picked (which is the operation's own unless two templates overlap), and,
 * for the operation's own JSON answers, its documented response schema.
 */
async function roundTrip(
  name: string,
  text: string,
  doc: Json,
  validateSchemas: boolean,
): Promise<{ operations: number; own: number; validated: number; failures: string[] }> {
  const document: MockServiceDocument = importOpenApi({
    bytes: Buffer.from(text),
    fileName: name,
  }).document
  const app = await startServer({ document, options: { inspection: { enabled: false } } })
  const matcher = compileMatcher(document, (t) => t)
  const byName = new Map<string, Transaction>(document.transactions.map((t) => [t.name, t]))
  const resolver = new RefResolver(doc, { fileName: name, warn: () => {} })
  const validator = validateSchemas ? new SchemaValidator(doc) : null
  const failures: string[] = []
  let own = 0
  let validated = 0
  const operations = operationsOf(doc)
  for (const op of operations) {
    // Documented 3xx answers carry documented Location headers, pointing at the real hosts.
    const res = await fetch(app.url + op.url, { method: op.method, redirect: 'manual' })
    const body = Buffer.from(await res.arrayBuffer())
    const answering = matcher.match(new MatchRequest(op.method, op.url, {}, null))?.payload
    const label = `${name} ${op.method} ${op.url}`
    if (answering === undefined) {
      failures.push(`${label}: no transaction answers (${res.status})`)
      continue
    }
    const expectedStatus = answering.dsl.responseDsl.status
    const expectedBody =
      op.method === 'HEAD' || expectedStatus === 204 || expectedStatus === 304
        ? Buffer.alloc(0)
        : decodeContent(answering.dsl.responseDsl.content)
    if (res.status !== expectedStatus || !body.equals(expectedBody)) {
      failures.push(
        `${label}: got ${res.status} with ${body.length} bytes, expected ${expectedStatus} with ${expectedBody.length}`,
      )
    }
    if (answering !== byName.get(op.name)) continue
    own++
    if (validator === null || unsatisfiable.test(`${name} ${op.method} ${op.url}`)) continue
    const schema = schemaFor(op, res.status, resolver)
    const type = res.headers.get('content-type') ?? ''
    if (schema === undefined || !/json/i.test(type) || body.length === 0) continue
    const validate = validator.compile(schema)
    if (!validate(JSON.parse(body.toString('utf8'))) && !inconsistentExamples.includes(label)) {
      failures.push(
        `${label}: the answer does not validate against its schema: ${JSON.stringify(validate.errors?.[0])}`,
      )
    }
    validated++
  }
  await app.close()
  return { operations: operations.length, own, validated, failures }
}

const files = realworldFiles('openapi')

describeRealworld('serving an imported OpenAPI description and calling each operation', () => {
  it.each(files)('answers every operation of %s as documented', async (name) => {
    const text = readRealworld('openapi', name).toString('utf8')
    const doc = (name.endsWith('.json') ? JSON.parse(text) : parse(text)) as Json
    const outcome = await roundTrip(name, text, doc, true)
    expect(outcome.failures).toEqual([])
    // every operation answered by its own transaction: the templates of these descriptions do not overlap
    expect(outcome.own).toBe(outcome.operations)
  })
})

const github = githubDescriptionFile

describeGithubDescription("serving GitHub's REST API description (@octokit/openapi)", () => {
  it('answers each of its operations', { timeout: 120_000 }, async () => {
    const text = readFileSync(github, 'utf8')
    const outcome = await roundTrip('api.github.com.json', text, JSON.parse(text) as Json, false)
    expect(outcome.operations).toBeGreaterThan(900)
    expect(outcome.failures).toEqual([])
    // where templates overlap (/repos/{owner}/{repo}/... and literal siblings), the runtime answers
    // with the most specific one; every other operation is answered by its own transaction
    expect(outcome.own / outcome.operations).toBeGreaterThan(0.95)
  })
})
