import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import { parse } from 'yaml'
import { decodeContent, joinPointer } from '../../../src/dsl/index.js'
import { generateExample, importOpenApi, RefResolver } from '../../../importers/openapi/index.js'
import {
  describeGithubDescription,
  describeRealworld,
  readRealworld,
  realworldFiles,
} from '../../helpers/realworld.js'
import { githubDescriptionFile } from '../../../scripts/github-description.js'
import { SchemaValidator } from './schema-validator.js'

const files = realworldFiles('openapi')

function load(name: string) {
  return importOpenApi({ bytes: readRealworld('openapi', name), fileName: name })
}

function parsed(name: string): Record<string, unknown> {
  const text = readRealworld('openapi', name).toString('utf8')
  return (name.endsWith('.json') ? JSON.parse(text) : parse(text)) as Record<string, unknown>
}

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Every response schema of a description, with the JSON pointer where it is written. */
function responseSchemas(
  doc: Json,
  resolver: RefResolver,
): Array<{ pointer: string; schema: unknown }> {
  const out: Array<{ pointer: string; schema: unknown }> = []
  for (const [path, item] of Object.entries(isObject(doc['paths']) ? doc['paths'] : {})) {
    if (!isObject(item)) continue
    for (const [method, op] of Object.entries(item)) {
      if (!isObject(op) || !isObject(op['responses'])) continue
      for (const [code, node] of Object.entries(op['responses'])) {
        const response = resolver.deref(node)?.value
        if (!isObject(response)) continue
        const base = joinPointer(
          joinPointer(joinPointer(joinPointer('/paths', path), method), 'responses'),
          code,
        )
        if (response['schema'] !== undefined) {
          out.push({ pointer: `${base}/schema`, schema: response['schema'] })
        }
        for (const [type, media] of Object.entries(
          isObject(response['content']) ? response['content'] : {},
        )) {
          if (isObject(media) && media['schema'] !== undefined) {
            out.push({
              pointer: joinPointer(`${base}/content`, type) + '/schema',
              schema: media['schema'],
            })
          }
        }
      }
    }
  }
  return out
}

/**
 * Response schemas that no value can satisfy: the BlazeMeter description declares
 * `ApiResponseResult.result` as a string and then redeclares `result` as an array or an object in
 * the allOf of each response. The generator takes the redeclaration (the author's intent).
 */
const unsatisfiable = new Set([
  'taurus-bzm-api.swagger2.json /paths/~1tests/get/responses/200/schema',
  'taurus-bzm-api.swagger2.json /paths/~1tests/post/responses/200/schema',
  'taurus-bzm-api.swagger2.json /paths/~1tests~1{testId}/get/responses/200/schema',
  'taurus-bzm-api.swagger2.json /paths/~1tests~1{testId}~1start/post/responses/200/schema',
  'taurus-bzm-api.swagger2.json /paths/~1reports/get/responses/200/schema',
  'taurus-bzm-api.swagger2.json /paths/~1reports~1{reportId}/get/responses/200/schema',
])

describeRealworld('importOpenApi on real-world descriptions', () => {
  it('finds the real-world descriptions', () => {
    expect(files.length).toBeGreaterThanOrEqual(10)
  })

  // None of the OpenAPI files is marked INVALID in SOURCES.md: all must import.
  it.each(files)('imports %s without error', (name) => {
    const result = load(name)
    expect(result.format).toBe('openapi')
    expect(result.dslType).toBe(name.includes('swagger') ? 'SWAGGER_DSL' : 'OPENAPI_DSL')
  })

  it('imports petstore-v3 with GET /pets/{id} under the /v2 prefix of its templated server URL', () => {
    const { document } = load('petstore-v3.oas30.yaml')
    expect(document.transactions.map((t) => t.name)).toEqual([
      // templated paths first: at equal priority the later (concrete) transaction wins
      'GET /v2/pets/{id}',
      'GET /v2/pets/{id} [default]',
      'DELETE /v2/pets/{id}',
      'DELETE /v2/pets/{id} [default]',
      'GET /v2/pets',
      'GET /v2/pets [default]',
      'POST /v2/pets',
      'POST /v2/pets [default]',
    ])
    const get = document.transactions.find((t) => t.name === 'GET /v2/pets/{id}')
    expect(get?.dsl.requestDsl.url).toEqual({
      key: 'url',
      matcherName: 'equals_url',
      matchingValue: '/v2/pets/{id}',
    })
    expect(get?.dsl.requestDsl.host).toBe('developer.uspto.gov')
    expect(JSON.parse(decodeContent(get?.dsl.responseDsl.content).toString())).toEqual({
      name: 'string',
      tag: 'string',
      id: 0,
    })
  })

  it('makes one main transaction per operation and one variant per other response', () => {
    // counted from the files: operations, and responses beyond the main one (1xx excluded)
    expect(load('aws-cloudfront-v3.oas30.yaml').document.transactions).toHaveLength(28 + 233)
    expect(load('taurus-petstore.swagger2.json').document.transactions).toHaveLength(21 + 17)
    expect(load('microcks-cars.oas31.yaml').document.transactions).toHaveLength(4 + 1)
  })

  it('writes XML bodies for the XML-only AWS CloudFront description', () => {
    const txn = load('aws-cloudfront-v3.oas30.yaml').document.transactions.find(
      (t) => t.name === 'POST /2017-03-25/origin-access-identity/cloudfront',
    )
    expect(txn?.dsl.responseDsl.status).toBe(201)
    expect(txn?.dsl.responseDsl.contentType).toBe('text/xml')
    expect(decodeContent(txn?.dsl.responseDsl.content).toString()).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<CreateCloudFrontOriginAccessIdentityResult><CloudFrontOriginAccessIdentity><Id>string<\/Id>/,
    )
  })

  it('pins the query of the AWS operations that share a path', () => {
    const names = load('aws-cloudfront-v3.oas30.yaml').document.transactions.map((t) => t.name)
    expect(names).toContain('POST /2017-03-25/tagging?Operation=Tag&Resource')
    expect(names).toContain('POST /2017-03-25/tagging?Operation=Untag&Resource')
  })

  it('skips the webhook of the 3.1 webhooks sample with a warning', () => {
    const result = load('microcks-petstore-webhooks.oas31.yaml')
    expect(result.document.transactions).toEqual([])
    expect(result.warnings[0]?.message).toBe(
      'webhook "newPet" is a request the API sends, with no path to serve; skipped',
    )
  })

  it('generates, for every response schema of every description, an example that the schema accepts', () => {
    const failures: string[] = []
    let checked = 0
    for (const name of files) {
      const doc = parsed(name)
      const resolver = new RefResolver(doc, { fileName: name, warn: () => {} })
      const validator = new SchemaValidator(doc)
      for (const { pointer, schema } of responseSchemas(doc, resolver)) {
        const value = generateExample(schema, resolver)
        if (value === undefined) continue
        checked++
        const validate = validator.compile(schema)
        if (!validate(value)) failures.push(`${name} ${pointer}`)
      }
    }
    expect(checked).toBeGreaterThan(500)
    // exactly the schemas that nothing satisfies fail, so this list cannot rot silently
    expect(failures.sort()).toEqual([...unsatisfiable].sort())
  })
})

const githubDescription = githubDescriptionFile

// How fast and in how much memory it imports is measured by `npm run bench:import`, not here.
describeGithubDescription("GitHub's REST API description (13 MB, @octokit/openapi)", () => {
  it('imports without dereferencing the document up front', () => {
    const bytes = readFileSync(githubDescription)
    const result = importOpenApi({ bytes, fileName: 'api.github.com.json' })
    expect(result.document.transactions.length).toBeGreaterThan(1000)
    const repo = result.document.transactions.find((t) => t.name === 'GET /repos/{owner}/{repo}')
    expect(repo?.dsl.responseDsl.status).toBe(200)
    expect(JSON.parse(decodeContent(repo?.dsl.responseDsl.content).toString())).toMatchObject({
      full_name: expect.any(String) as string,
    })
  })
})
