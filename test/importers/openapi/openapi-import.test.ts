import { describe, expect, it } from 'vitest'
import { decodeContent, type Transaction } from '../../../src/dsl/index.js'
import { isUnderstudyError, type UnderstudyError } from '../../../src/errors/index.js'
import type { ImportContext } from '../../../importers/types.js'
import { importOpenApi, STATUS_HEADER, VARIANT_PRIORITY } from '../../../importers/openapi/index.js'

function importText(text: string, fileName = 'api.yaml', ctx: ImportContext = {}) {
  return importOpenApi({ bytes: Buffer.from(text), fileName }, ctx)
}

function importError(text: string, fileName = 'api.yaml'): UnderstudyError {
  try {
    importText(text, fileName)
  } catch (err) {
    if (isUnderstudyError(err)) return err
    throw new Error(`expected an UnderstudyError, got ${String(err)}`)
  }
  throw new Error('expected the import to fail')
}

function bodyOf(txn: Transaction | undefined): string {
  return decodeContent(txn?.dsl.responseDsl.content).toString('utf8')
}

function byName(transactions: Transaction[], name: string): Transaction | undefined {
  return transactions.find((t) => t.name === name)
}

/**
 * The selection rule of docs/decisions.md#priority-order, reduced to what these transactions use: method,
 * `equals_url` with `{name}` segment templates, `matches` on the path, and `equals` on headers;
 * ascending priority, and the later transaction among equal priorities.
 */
function select(
  transactions: Transaction[],
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Transaction | undefined {
  const lowerHeaders = Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]),
  )
  const matches = (t: Transaction): boolean => {
    const r = t.dsl.requestDsl
    if (r.method !== undefined && r.method !== method) return false
    const url = r.url
    if (url?.matcherName === 'equals_url') {
      const want = (url.matchingValue ?? '').split('/')
      const got = path.split('/')
      if (
        want.length !== got.length ||
        want.some((s, i) => !(/^\{[^}]+\}$/.test(s) || s === got[i]))
      ) {
        return false
      }
    } else if (
      url?.matcherName === 'matches' &&
      !new RegExp(`^(?:${url.matchingValue ?? ''})$`).test(path)
    ) {
      return false
    }
    return (r.headers ?? []).every(
      (h) => lowerHeaders[(h.key ?? '').toLowerCase()] === h.matchingValue,
    )
  }
  const ordered = transactions
    .map((t, i) => ({ t, i }))
    .sort((a, b) => a.t.dsl.priority - b.t.dsl.priority || b.i - a.i)
  return ordered.find((c) => matches(c.t))?.t
}

const petstore = `
openapi: 3.0.3
info: { title: Petstore, version: '1' }
servers:
  - url: '{scheme}://pets.example.com/{base}/'
    variables:
      scheme: { default: https, enum: [https, http] }
      base: { default: v2 }
paths:
  /pets/{petId}:
    get:
      summary: Info for a pet
      tags: [pets]
      responses:
        '404':
          description: no such pet
          content:
            application/json:
              example: { code: 404, message: not found }
        '200':
          description: the pet
          headers:
            X-Rate-Limit: { schema: { type: integer, minimum: 100 } }
            Content-Type: { schema: { type: string } }
            X-Trace: { example: abc-1 }
          content:
            application/xml:
              schema: { $ref: '#/components/schemas/Pet' }
            application/json:
              schema: { $ref: '#/components/schemas/Pet' }
        '4XX':
          description: client error
        default:
          description: unexpected error
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Error' }
        '100':
          description: continue
components:
  schemas:
    Pet:
      type: object
      required: [id, name]
      properties:
        id: { type: integer, format: int64, minimum: 1 }
        name: { type: string, example: Rex }
    Error:
      type: object
      required: [code, message]
      properties:
        code: { type: integer, format: int32 }
        message: { type: string }
`

describe('importOpenApi: operations and responses', () => {
  const result = importText(petstore)
  const transactions = result.document.transactions

  it('reports the format and the dsl type of OpenAPI 3, and names the document after info.title', () => {
    expect(result.format).toBe('openapi')
    expect(result.dslType).toBe('OPENAPI_DSL')
    expect(result.document.name).toBe('Petstore')
  })

  it('prefixes the path with the first server URL, variables replaced by their defaults, keeping {param} templates', () => {
    const main = byName(transactions, 'GET /v2/pets/{petId}')
    expect(main?.dsl.requestDsl).toEqual({
      method: 'GET',
      host: 'pets.example.com',
      path: '/v2/pets/{petId}',
      url: { key: 'url', matcherName: 'equals_url', matchingValue: '/v2/pets/{petId}' },
    })
    expect(main?.description).toBe('Info for a pet')
    expect(main?.tags).toEqual(['pets'])
  })

  it('answers with the lowest 2xx response in JSON, preferred over XML, generated from the schema', () => {
    const main = byName(transactions, 'GET /v2/pets/{petId}')
    expect(main?.dsl.priority).toBe(10)
    expect(main?.dsl.responseDsl.status).toBe(200)
    expect(main?.dsl.responseDsl.contentType).toBe('application/json')
    expect(JSON.parse(bodyOf(main))).toEqual({ id: 1, name: 'Rex' })
  })

  it('writes documented headers from their example or schema, never Content-Type', () => {
    expect(byName(transactions, 'GET /v2/pets/{petId}')?.dsl.responseDsl.headers).toEqual([
      { name: 'X-Rate-Limit', value: '100' },
      { name: 'X-Trace', value: 'abc-1' },
    ])
  })

  it('turns every other response into a variant selected by the X-Understudy-Status header, with a higher priority', () => {
    expect(STATUS_HEADER).toBe('X-Understudy-Status')
    expect(VARIANT_PRIORITY).toBeLessThan(10)
    const variants = transactions.filter((t) => t.name?.startsWith('GET /v2/pets/{petId} ['))
    expect(
      variants.map((t) => [
        t.name,
        t.dsl.responseDsl.status,
        t.dsl.priority,
        t.dsl.requestDsl.headers,
      ]),
    ).toEqual([
      [
        'GET /v2/pets/{petId} [404]',
        404,
        VARIANT_PRIORITY,
        [{ key: 'X-Understudy-Status', matcherName: 'equals', matchingValue: '404' }],
      ],
      [
        'GET /v2/pets/{petId} [4XX]',
        400,
        VARIANT_PRIORITY,
        [{ key: 'X-Understudy-Status', matcherName: 'equals', matchingValue: '4XX' }],
      ],
      [
        'GET /v2/pets/{petId} [default]',
        500,
        VARIANT_PRIORITY,
        [{ key: 'X-Understudy-Status', matcherName: 'equals', matchingValue: 'default' }],
      ],
    ])
    expect(JSON.parse(bodyOf(variants[0]))).toEqual({ code: 404, message: 'not found' })
    expect(variants[1]?.dsl.responseDsl.content).toBeUndefined()
  })

  it('selects the variant when the header is sent and the main response otherwise, under the DSL priority rule', () => {
    expect(select(transactions, 'GET', '/v2/pets/7')?.dsl.responseDsl.status).toBe(200)
    expect(
      select(transactions, 'GET', '/v2/pets/7', { 'x-understudy-status': '404' })?.dsl.responseDsl
        .status,
    ).toBe(404)
    expect(
      select(transactions, 'GET', '/v2/pets/7', { 'X-Understudy-Status': 'default' })?.dsl
        .responseDsl.status,
    ).toBe(500)
    expect(
      select(transactions, 'GET', '/v2/pets/7', { 'X-Understudy-Status': '418' })?.dsl.responseDsl
        .status,
    ).toBe(200)
  })

  it('skips informational responses with a warning naming the operation', () => {
    expect(result.warnings).toContainEqual({
      message:
        'GET /v2/pets/{petId}: response "100" is an informational (1xx) response, which a mock cannot send; skipped',
      file: 'api.yaml',
      at: '/paths/~1pets~1{petId}/get/responses/100',
    })
  })

  it('gives the same document for the same input, every time', () => {
    expect(importText(petstore).document).toEqual(result.document)
  })
})

describe('importOpenApi: choosing the main response', () => {
  const doc = (responses: string) => `
openapi: 3.0.0
info: { title: t, version: '1' }
paths:
  /x:
    get:
      responses:
${responses}`

  it('serves default as 200 when no 2xx is documented', () => {
    const { document } = importText(
      doc(
        `        default: { description: ok, content: { text/plain: { example: fine } } }\n        '404': { description: gone }`,
      ),
    )
    expect(document.transactions.map((t) => [t.name, t.dsl.responseDsl.status])).toEqual([
      ['GET /x', 200],
      ['GET /x [404]', 404],
    ])
    expect(bodyOf(document.transactions[0])).toBe('fine')
  })

  it('serves the lowest documented status when there is neither 2xx nor default', () => {
    const { document } = importText(
      doc(
        `        '410': { description: gone }\n        '302': { description: moved, headers: { Location: { example: /y } } }`,
      ),
    )
    expect(document.transactions[0]?.dsl.responseDsl).toEqual({
      status: 302,
      headers: [{ name: 'Location', value: '/y' }],
    })
  })

  it('answers 200 with an empty body, and warns, when an operation documents no response', () => {
    const { document, warnings } = importText(doc('        {}'))
    expect(document.transactions[0]?.dsl.responseDsl).toEqual({ status: 200 })
    expect(warnings[0]?.message).toBe(
      'GET /x: the operation documents no response; it answers 200 with an empty body',
    )
  })
})

describe('importOpenApi: examples', () => {
  const doc = `
openapi: 3.1.0
info: { title: t, version: '1' }
paths:
  /media-example:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { type: object, example: { from: schema } }
              example: { from: media }
              examples: { one: { value: { from: examples } } }
  /named-examples:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { type: object, example: { from: schema } }
              examples:
                remote: { externalValue: 'https://example.com/x.json' }
                first: { $ref: '#/components/examples/First' }
  /schema-example:
    get:
      responses:
        '200': { description: ok, content: { application/json: { schema: { type: object, example: { from: schema } } } } }
  /json-text:
    get:
      responses:
        '200': { description: ok, content: { application/json: { example: '{"already": "json"}' } } }
  /external:
    get:
      responses:
        '200': { description: ok, content: { image/png: { examples: { logo: { externalValue: img/logo.png } } } } }
  /binary:
    get:
      responses:
        '200': { description: ok, content: { application/octet-stream: { schema: { type: string, format: binary } } } }
  /vendor:
    get:
      responses:
        '200': { description: ok, content: { application/vnd.acme.v1: { schema: { type: object, properties: { ok: { type: boolean } } } } } }
components:
  examples:
    First: { value: { from: components } }
`
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47])
  const result = importText(doc, 'api.yaml', {
    readFile: (p) => (p === 'img/logo.png' ? png : undefined),
  })
  const body = (name: string) => bodyOf(byName(result.document.transactions, name))

  it('prefers the media type example, then its first usable examples entry, then the schema example', () => {
    expect(JSON.parse(body('GET /media-example'))).toEqual({ from: 'media' })
    expect(JSON.parse(body('GET /named-examples'))).toEqual({ from: 'components' })
    expect(JSON.parse(body('GET /schema-example'))).toEqual({ from: 'schema' })
  })

  it('uses a string example that holds JSON text as the body itself', () => {
    expect(body('GET /json-text')).toBe('{"already": "json"}')
  })

  it('reads an externalValue file through the import context and keeps it as binary bytes', () => {
    const txn = byName(result.document.transactions, 'GET /external')
    expect(txn?.dsl.responseDsl).toMatchObject({ contentType: 'image/png', binary: true })
    expect(decodeContent(txn?.dsl.responseDsl.content)).toEqual(png)
  })

  it('leaves a binary body empty with a warning when no file gives it', () => {
    expect(byName(result.document.transactions, 'GET /binary')?.dsl.responseDsl).toEqual({
      status: 200,
      contentType: 'application/octet-stream',
      binary: true,
    })
    expect(result.warnings.map((w) => w.message)).toContain(
      'GET /binary: response "200": the application/octet-stream body is binary and no externalValue file gives it, so it is left empty',
    )
  })

  it('writes a structured example of an unknown vendor type as JSON', () => {
    expect(body('GET /vendor')).toBe('{"ok":true}')
  })
})

describe('importOpenApi: example values given by $ref', () => {
  // GitHub's description writes `value: {$ref: '#/components/examples/issue'}` in 29 operations.
  const doc = `
openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /issue:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { type: object }
              examples:
                default: { value: { $ref: '#/components/examples/issue' } }
  /named:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              examples:
                table: { value: { $ref: '#/components/examples/view' } }
                board: { value: { $ref: '#/components/examples/chained' } }
  /media-example:
    get:
      responses:
        '200': { description: ok, content: { application/json: { example: { $ref: '#/components/examples/issue' } } } }
  /schema-example:
    get:
      responses:
        '200': { description: ok, content: { application/json: { schema: { type: object, example: { $ref: '#/components/examples/issue' } } } } }
  /plain-value:
    get:
      responses:
        '200': { description: ok, content: { application/json: { example: { $ref: '#/components/schemas/NotAnExample' } } } }
  /dangling:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { type: object, properties: { fallback: { type: boolean } } }
              examples: { broken: { value: { $ref: '#/components/examples/missing' } } }
components:
  schemas:
    NotAnExample: { literal: true }
  examples:
    issue: { summary: an issue, value: { id: 1, title: Found a bug } }
    view: { value: { layout: table } }
    chained: { value: { $ref: '#/components/examples/view' } }
`
  const result = importText(doc)
  const body = (name: string) =>
    JSON.parse(bodyOf(byName(result.document.transactions, name))) as unknown

  it('serves the value an examples entry refers to, never the $ref object', () => {
    expect(body('GET /issue')).toEqual({ id: 1, title: 'Found a bug' })
    expect(body('GET /named [example=table]')).toEqual({ layout: 'table' })
    expect(body('GET /named [example=board]')).toEqual({ layout: 'table' })
  })

  it('follows a $ref given as a media type or schema example; a target that is no Example Object is the value itself', () => {
    expect(body('GET /media-example')).toEqual({ id: 1, title: 'Found a bug' })
    expect(body('GET /schema-example')).toEqual({ id: 1, title: 'Found a bug' })
    expect(body('GET /plain-value')).toEqual({ literal: true })
  })

  it('falls back to the schema, with a warning, when the $ref points at nothing', () => {
    expect(body('GET /dangling')).toEqual({ fallback: true })
    expect(result.warnings.map((w) => w.message).join('\n')).toContain(
      '#/components/examples/missing',
    )
  })
})

describe('importOpenApi: Swagger 2.0', () => {
  const swagger = JSON.stringify({
    swagger: '2.0',
    info: { title: 'Legacy', version: '1' },
    host: 'legacy.example.com',
    basePath: '/api/',
    produces: ['application/xml', 'application/json'],
    paths: {
      '/users/{id}': {
        get: {
          responses: {
            200: {
              description: 'ok',
              schema: { $ref: '#/definitions/User' },
              headers: { 'X-Count': { type: 'integer', minimum: 3 } },
            },
            404: { description: 'missing', examples: { 'application/json': { error: 'nope' } } },
          },
        },
      },
      '/report': {
        get: {
          produces: ['text/csv'],
          responses: { 200: { description: 'ok', examples: { 'text/csv': 'a,b\n1,2' } } },
        },
      },
      '/download': {
        get: {
          produces: ['application/pdf'],
          responses: { 200: { description: 'ok', schema: { type: 'file' } } },
        },
      },
    },
    definitions: {
      User: {
        type: 'object',
        required: ['id'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          email: { type: 'string', format: 'email' },
        },
      },
    },
  })
  const result = importText(swagger, 'legacy.json')

  it('reports the SWAGGER_DSL type and prefixes paths with basePath, recording host', () => {
    expect(result.dslType).toBe('SWAGGER_DSL')
    expect(result.document.transactions[0]?.dsl.requestDsl).toMatchObject({
      host: 'legacy.example.com',
      path: '/api/users/{id}',
    })
  })

  it('answers in JSON when produces lists it, from definitions, with headers generated from their own schema', () => {
    const main = byName(result.document.transactions, 'GET /api/users/{id}')
    expect(main?.dsl.responseDsl.contentType).toBe('application/json')
    expect(JSON.parse(bodyOf(main))).toEqual({
      id: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
      email: 'user@example.com',
    })
    expect(main?.dsl.responseDsl.headers).toEqual([{ name: 'X-Count', value: '3' }])
  })

  it('uses the response examples map, and the operation produces over the document one', () => {
    expect(
      JSON.parse(bodyOf(byName(result.document.transactions, 'GET /api/users/{id} [404]'))),
    ).toEqual({ error: 'nope' })
    const report = byName(result.document.transactions, 'GET /api/report')
    expect(report?.dsl.responseDsl.contentType).toBe('text/csv')
    expect(bodyOf(report)).toBe('a,b\n1,2')
  })

  it('serves a file response with its media type and no body', () => {
    expect(byName(result.document.transactions, 'GET /api/download')?.dsl.responseDsl).toEqual({
      status: 200,
      contentType: 'application/pdf',
    })
  })
})

describe('importOpenApi: paths', () => {
  const doc = `
openapi: 3.0.0
info: { title: t, version: '1' }
servers: [{ url: /base }]
paths:
  /files/{name}.json:
    get: { responses: { '200': { description: ok } } }
  /tagging#Operation=Tag&Resource:
    post: { responses: { '204': { description: ok } } }
  /tagging:
    post: { responses: { '200': { description: ok } } }
  /override:
    servers: [{ url: 'https://other.example.com/v9' }]
    get: { responses: { '200': { description: ok } } }
`
  const { document } = importText(doc)

  it('matches a template that shares its segment with text by a regex', () => {
    expect(
      byName(document.transactions, 'GET /base/files/{name}.json')?.dsl.requestDsl.url,
    ).toEqual({ key: 'url', matcherName: 'matches', matchingValue: '/base/files/[^/]+\\.json' })
  })

  it('pins the query that a path key carries after # or ?, and lists the pinned transaction after the plain one', () => {
    const names = document.transactions.map((t) => t.name)
    expect(names.indexOf('POST /base/tagging')).toBeLessThan(
      names.indexOf('POST /base/tagging?Operation=Tag&Resource'),
    )
    expect(
      byName(document.transactions, 'POST /base/tagging?Operation=Tag&Resource')?.dsl.requestDsl
        .queryParams,
    ).toEqual([
      { key: 'Operation', matcherName: 'equals', matchingValue: 'Tag' },
      { key: 'Resource', matcherName: 'matches', matchingValue: '.*' },
    ])
  })

  it('uses the servers of a path item over the document ones', () => {
    expect(byName(document.transactions, 'GET /v9/override')?.dsl.requestDsl.host).toBe(
      'other.example.com',
    )
  })
})

describe('importOpenApi: references', () => {
  const main = `
openapi: 3.0.0
info: { title: t, version: '1' }
paths:
  /pets:
    get:
      responses:
        '200': { $ref: 'responses/pets.yaml#/PetList' }
  /broken:
    get:
      responses:
        '200': { description: ok, content: { application/json: { schema: { $ref: 'missing.yaml#/X' } } } }
  /tree:
    get:
      responses:
        '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Tree' } } } }
components:
  schemas:
    Tree:
      type: object
      properties:
        label: { type: string }
        children: { type: array, items: { $ref: '#/components/schemas/Tree' } }
`
  const files: Record<string, string> = {
    'responses/pets.yaml': `
PetList:
  description: pets
  content:
    application/json:
      schema: { type: array, items: { $ref: '../schemas/pet.yaml#/Pet' } }
`,
    'schemas/pet.yaml': `
Pet:
  type: object
  required: [name, owner]
  properties:
    name: { type: string, example: Rex }
    owner: { $ref: '#/Owner' }
Owner:
  type: object
  required: [id]
  properties: { id: { type: integer, example: 9 } }
`,
  }
  const readFile = (path: string) => (path in files ? Buffer.from(files[path] ?? '') : undefined)

  it('follows references into other files, relative to the file that holds them', () => {
    const { document } = importText(main, 'index.yaml', { readFile })
    expect(JSON.parse(bodyOf(byName(document.transactions, 'GET /pets')))).toEqual([
      { name: 'Rex', owner: { id: 9 } },
    ])
  })

  it('reports a reference to a file that does not exist, once, and serves what it can', () => {
    const { document, warnings } = importText(main, 'index.yaml', { readFile })
    expect(byName(document.transactions, 'GET /broken')?.dsl.responseDsl).toEqual({
      status: 200,
      contentType: 'application/json',
    })
    expect(warnings.map((w) => w.message)).toEqual([
      '$ref "missing.yaml#/X" names the file missing.yaml, which cannot be read (the file does not exist); it is treated as absent',
    ])
  })

  it('reports references to other files as unreadable when the input is a single file', () => {
    const { warnings } = importText(main, 'index.yaml')
    expect(warnings.map((w) => w.message)).toContainEqual(
      expect.stringContaining('only a directory or an archive can supply other files'),
    )
  })

  it('follows a reference from another file back into the main file by its name', () => {
    const withBackReference: Record<string, string> = {
      ...files,
      'schemas/pet.yaml': 'Pet: { $ref: "../index.yaml#/components/schemas/Tree" }',
    }
    const { document } = importText(main, 'specs/index.yaml', {
      readFile: (p) =>
        p in withBackReference ? Buffer.from(withBackReference[p] ?? '') : undefined,
    })
    expect(JSON.parse(bodyOf(byName(document.transactions, 'GET /pets')))).toEqual([
      { label: 'string', children: [] },
    ])
  })

  it('does not follow remote or anchor references, and reports each once', () => {
    const { warnings } = importText(`
openapi: 3.1.0
info: { title: t, version: '1' }
paths:
  /a: { get: { responses: { '200': { description: ok, content: { application/json: { schema: { $ref: 'https://example.com/s.json#/X' } } } } } } }
  /b: { get: { responses: { '200': { description: ok, content: { application/json: { schema: { $ref: 'https://example.com/s.json#/X' } } } } } } }
  /c: { get: { responses: { '200': { description: ok, content: { application/json: { schema: { $ref: '#thing' } } } } } } }
`)
    expect(warnings.map((w) => w.message)).toEqual([
      '$ref "https://example.com/s.json#/X" is remote; Understudy reads no network, so it is treated as absent',
      '$ref "#thing" uses an anchor, which is not supported; it is treated as absent',
    ])
  })

  it('reads percent-escaped and ~-escaped JSON pointers', () => {
    const { document } = importText(`
openapi: 3.0.0
info: { title: t, version: '1' }
paths:
  /a/{id}:
    get: { responses: { '200': { description: ok, content: { application/json: { schema: { type: string, example: found } } } } } }
  /copy:
    get: { responses: { '200': { $ref: '#/paths/~1a~1%7Bid%7D/get/responses/200' } } }
`)
    expect(bodyOf(byName(document.transactions, 'GET /copy'))).toBe('"found"')
  })

  it('cuts a recursive schema instead of looping', () => {
    const { document } = importText(main, 'index.yaml', { readFile })
    expect(JSON.parse(bodyOf(byName(document.transactions, 'GET /tree')))).toEqual({
      label: 'string',
      children: [],
    })
  })

  it('rejects a referenced file that does not parse, naming that file and line', () => {
    const err = (() => {
      try {
        importText(main, 'index.yaml', {
          readFile: (p) =>
            p === 'responses/pets.yaml' ? Buffer.from('PetList: [unclosed') : undefined,
        })
      } catch (e) {
        return e as UnderstudyError
      }
      return undefined
    })()
    expect(err?.code).toBe('ERR_IMPORT_INVALID')
    expect(err?.message).toMatch(
      /^Cannot import responses\/pets\.yaml: not valid JSON or YAML: .*\(line 1, column \d+\)$/,
    )
  })
})

describe('importOpenApi: what is not served', () => {
  it('skips 3.1 webhooks and operation callbacks with warnings, and accepts a 3.1 document without paths', () => {
    const { document, warnings } = importText(`
openapi: 3.1.0
info: { title: hooks, version: '1' }
webhooks:
  newPet: { post: { responses: { '200': { description: ok } } } }
`)
    expect(document.transactions).toEqual([])
    expect(warnings.map((w) => w.message)).toEqual([
      'webhook "newPet" is a request the API sends, with no path to serve; skipped',
      'the description has no operations to serve',
    ])
  })

  it('warns about callbacks and still serves the operation', () => {
    const { document, warnings } = importText(`
openapi: 3.0.0
info: { title: t, version: '1' }
paths:
  /subscribe:
    post:
      callbacks: { onEvent: { '{$request.body#/url}': { post: { responses: { '200': { description: ok } } } } } }
      responses: { '201': { description: ok } }
`)
    expect(document.transactions.map((t) => t.name)).toEqual(['POST /subscribe'])
    expect(warnings[0]?.message).toMatch(
      /^POST \/subscribe: its callbacks \(onEvent\) are requests the API makes/,
    )
  })
})

describe('importOpenApi: XML bodies', () => {
  it('writes a simple XML body from the schema, honouring xml name, attribute, wrapped and namespace', () => {
    const { document } = importText(`
openapi: 3.0.0
info: { title: t, version: '1' }
paths:
  /book:
    get:
      responses:
        '200': { description: ok, content: { text/xml: { schema: { $ref: '#/components/schemas/Book' } } } }
components:
  schemas:
    Book:
      type: object
      xml: { namespace: 'http://example.com/ns' }
      properties:
        id: { type: integer, xml: { attribute: true } }
        title: { type: string, example: 'Tom & Jerry' }
        authors: { type: array, xml: { wrapped: true }, items: { type: string, xml: { name: author } } }
`)
    const txn = document.transactions[0]
    expect(txn?.dsl.responseDsl.contentType).toBe('text/xml')
    expect(bodyOf(txn)).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<Book xmlns="http://example.com/ns" id="0"><title>Tom &amp; Jerry</title><authors><author>string</author></authors></Book>',
    )
  })
})

describe('importOpenApi: input checks', () => {
  it('rejects YAML that does not parse, naming the file and line', () => {
    const err = importError('openapi: 3.0.0\npaths: {\n', 'broken.yaml')
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toMatch(
      /^Cannot import broken\.yaml: not valid JSON or YAML: .*\(line \d+, column \d+\)$/,
    )
  })

  it('rejects a document that is neither OpenAPI 3 nor Swagger 2', () => {
    expect(importError('{"info": {"title": "x"}}', 'x.json').message).toBe(
      'Cannot import x.json: not an OpenAPI description: expected an "openapi: 3.x" or "swagger: 2.0" member at the top level (line 1, column 1)',
    )
    expect(importError('swagger: "1.2"\n').message).toMatch(
      /unsupported Swagger version "1\.2": expected "2\.0"/,
    )
    expect(importError('openapi: 4.0.0\n').message).toMatch(/unsupported OpenAPI version "4\.0\.0"/)
    expect(importError('- a list\n').message).toMatch(/not an OpenAPI description/)
  })

  it('rejects paths that are not an object, pointing at them', () => {
    const err = importError('openapi: 3.0.0\ninfo: { title: t, version: "1" }\npaths: [1]\n')
    expect(err.message).toBe(
      'Cannot import api.yaml: invalid OpenAPI description: /paths must be an object (line 3, column 8)',
    )
    expect(err.details).toEqual([
      { path: '/paths', message: 'must be an object', file: 'api.yaml', line: 3, column: 8 },
    ])
  })
})
