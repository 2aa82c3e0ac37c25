import { describe, expect, it, onTestFinished } from 'vitest'
import { importFile, openApiRequestValidator } from '../../../importers/index.js'
import { loadRuntimeOptions } from '../../../src/config/index.js'
import { createSilentLogger } from '../../../src/log/index.js'
import { startRuntime } from '../../../src/serve/index.js'
import { startCli } from '../../helpers/cli.js'
import { describeRealworld, realworldPath } from '../../helpers/realworld.js'

/*
 * OpenAPI request validation (opt-in): a request that breaks its operation gets 422 naming each
 * violation; a valid one is answered as without validation. `Prefer: code=N` chooses a documented
 * response like `X-Understudy-Status: N`.
 */

const description = `openapi: 3.0.3
info: { title: orders, version: '1' }
servers: [{ url: /api }]
components:
  securitySchemes:
    key: { type: apiKey, in: header, name: X-API-Key }
  schemas:
    Order:
      type: object
      required: [item, quantity]
      properties:
        item: { type: string }
        quantity: { type: integer, minimum: 1 }
        note: { type: string, nullable: true }
security: [{ key: [] }]
paths:
  /orders/{orderId}:
    get:
      parameters:
        - { name: orderId, in: path, required: true, schema: { type: integer } }
        - { name: X-Request-Id, in: header, required: true, schema: { type: string, format: uuid } }
        - { name: expand, in: query, schema: { type: string, enum: [items, customer] } }
      responses:
        '200': { description: ok, content: { application/json: { example: { id: 1 } } } }
        '404': { description: gone, content: { application/json: { example: { error: gone } } } }
  /orders:
    post:
      requestBody:
        required: true
        content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } }
      responses:
        '201': { description: created, content: { application/json: { example: { id: 2 } } } }
  /health:
    get:
      security: []
      responses: { '200': { description: ok } }
  /pets:
    get:
      security: []
      responses:
        '200':
          description: pets
          content:
            application/json:
              examples:
                cat: { value: [{ name: Tom }] }
                dog: { value: [{ name: Rex }] }
        '404': { description: none, content: { application/json: { example: { error: none } } } }
        '409':
          description: conflict
          content:
            application/json:
              examples:
                locked: { value: { error: locked } }
                busy: { value: { error: busy } }
`

async function serveWithValidation(bytes: Buffer, fileName: string): Promise<string> {
  const input = { bytes, fileName }
  const { document } = importFile(input)
  const { validate } = openApiRequestValidator([input])
  const runtime = await startRuntime({
    document,
    options: loadRuntimeOptions({ port: 0, logLevel: 'silent' }),
    log: createSilentLogger(),
    requestCheck: validate,
  })
  onTestFinished(() => runtime.close())
  return runtime.urls.http
}

interface Problem {
  status: number
  code: string
  errors?: Array<{ path: string; message: string }>
}

describe('request validation on an inline description', () => {
  const key = { 'x-api-key': 'k' }
  const id = { 'x-request-id': '123e4567-e89b-12d3-a456-426614174000' }

  it('answers a valid request as usual', async () => {
    const url = await serveWithValidation(Buffer.from(description), 'orders.yaml')
    const res = await fetch(`${url}/api/orders/7?expand=items`, { headers: { ...key, ...id } })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ id: 1 })
    const created = await fetch(`${url}/api/orders`, {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/json' },
      body: JSON.stringify({ item: 'tea', quantity: 2, note: null }),
    })
    expect(created.status).toBe(201)
    expect((await fetch(`${url}/api/health`)).status).toBe(200)
  })

  it('names every violation: path and query types, a required header, credentials (401 first when they lack)', async () => {
    const url = await serveWithValidation(Buffer.from(description), 'orders.yaml')
    const res = await fetch(`${url}/api/orders/seven?expand=everything`)
    expect(res.status).toBe(401)
    expect(res.headers.get('content-type')).toContain('application/problem+json')
    const problem = (await res.json()) as Problem
    expect(problem.code).toBe('ERR_SERVE_CREDENTIALS_REQUIRED')
    expect(problem.errors?.map((e) => e.path).sort()).toEqual([
      '/header/x-request-id',
      '/path/orderId',
      '/query/expand',
      '/security',
    ])
    expect(problem.errors?.find((e) => e.path === '/security')?.message).toContain('X-API-Key')
  })

  it('checks the body against its schema, and its presence', async () => {
    const url = await serveWithValidation(Buffer.from(description), 'orders.yaml')
    const post = async (body?: string) =>
      await fetch(`${url}/api/orders`, {
        method: 'POST',
        headers: { ...key, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body }),
      })
    const wrong = (await (await post(JSON.stringify({ item: 5, quantity: 0 }))).json()) as Problem
    expect(wrong.errors).toEqual(
      expect.arrayContaining([
        { path: '/body/item', message: 'must be string' },
        { path: '/body/quantity', message: 'must be >= 1' },
      ]),
    )
    const missing = await post()
    expect(missing.status).toBe(422)
    expect(((await missing.json()) as Problem).errors).toEqual([
      { path: '/body', message: 'a request body is required' },
    ])
    expect(((await (await post('{')).json()) as Problem).errors).toEqual([
      { path: '/body', message: 'the body must be JSON' },
    ])
  })

  it('leaves requests outside the description to matching (404 there)', async () => {
    const url = await serveWithValidation(Buffer.from(description), 'orders.yaml')
    expect((await fetch(`${url}/api/nothing`)).status).toBe(404)
  })

  it('chooses a documented response with Prefer: code=404, as with X-Understudy-Status', async () => {
    const url = await serveWithValidation(Buffer.from(description), 'orders.yaml')
    const headers = { ...key, ...id }
    const preferred = await fetch(`${url}/api/orders/7`, {
      headers: { ...headers, prefer: 'code=404' },
    })
    expect(preferred.status).toBe(404)
    expect(await preferred.json()).toEqual({ error: 'gone' })
    expect(
      (
        await fetch(`${url}/api/orders/7`, {
          headers: { ...headers, 'x-understudy-status': '404' },
        })
      ).status,
    ).toBe(404)
    expect(
      (
        await fetch(`${url}/api/orders/7`, {
          headers: { ...headers, prefer: 'respond-async, code=404' },
        })
      ).status,
    ).toBe(404)
  })
})

const recursive = `openapi: 3.0.3
info: { title: trees, version: '1' }
components:
  schemas:
    Node:
      type: object
      required: [name]
      properties:
        name: { type: string }
        children: { type: array, items: { $ref: '#/components/schemas/Node' } }
    Parent:
      type: object
      properties:
        child: { $ref: '#/components/schemas/Child' }
    Child:
      type: object
      properties:
        parent: { $ref: '#/components/schemas/Parent' }
        age: { type: integer }
paths:
  /trees:
    post:
      requestBody:
        required: true
        content: { application/json: { schema: { $ref: '#/components/schemas/Node' } } }
      responses: { '201': { description: created } }
  /families:
    post:
      requestBody:
        content: { application/json: { schema: { $ref: '#/components/schemas/Parent' } } }
      responses: { '201': { description: created } }
`

describe('recursive schemas', () => {
  const nest = (depth: number, leaf: unknown): unknown => {
    let node = leaf
    for (let i = 0; i < depth; i++) node = { name: `n${i}`, children: [node] }
    return node
  }
  const post = async (url: string, path: string, body: string) =>
    await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })

  it('validates a tree at every depth, not only the first level', async () => {
    const url = await serveWithValidation(Buffer.from(recursive), 'trees.yaml')
    expect((await post(url, '/trees', JSON.stringify(nest(40, { name: 'leaf' })))).status).toBe(201)
    // The bad node is 30 levels down: found and named by its path.
    const deepWrong = await post(url, '/trees', JSON.stringify(nest(30, { name: 7 })))
    expect(deepWrong.status).toBe(422)
    const problem = (await deepWrong.json()) as Problem
    expect(problem.errors).toEqual([
      { path: `/body${'/children/0'.repeat(30)}/name`, message: 'must be string' },
    ])
    const missing = await post(url, '/trees', JSON.stringify(nest(5, { children: [] })))
    expect(((await missing.json()) as Problem).errors?.[0]?.message).toBe(
      'must have property "name"',
    )
    // Mutual recursion (Parent -> Child -> Parent) is checked as deep too.
    expect(
      (await post(url, '/families', JSON.stringify({ child: { parent: { child: { age: 3 } } } })))
        .status,
    ).toBe(201)
    const family = await post(
      url,
      '/families',
      JSON.stringify({ child: { parent: { child: { parent: { child: { age: 'three' } } } } } }),
    )
    expect(((await family.json()) as Problem).errors).toEqual([
      { path: '/body/child/parent/child/parent/child/age', message: 'must be integer' },
    ])
  })

  it('refuses a hostile deep body with a 422, not a 500', async () => {
    const url = await serveWithValidation(Buffer.from(recursive), 'trees.yaml')
    const hostile =
      '{"name":"a","children":['.repeat(100_000) + '{"name":"z"}' + ']}'.repeat(100_000)
    const res = await post(url, '/trees', hostile)
    expect(res.status).toBe(422)
    expect(((await res.json()) as Problem).errors).toEqual([
      { path: '/body', message: 'must not nest deeper than 256 levels' },
    ])
    // The runtime is unharmed.
    expect((await post(url, '/trees', JSON.stringify(nest(3, { name: 'ok' })))).status).toBe(201)
  })
})

describe('Prefer: example=name', () => {
  it('chooses a named example of the main response, the first one without it', async () => {
    const url = await serveWithValidation(Buffer.from(description), 'orders.yaml')
    expect(await (await fetch(`${url}/api/pets`)).json()).toEqual([{ name: 'Tom' }])
    expect(
      await (await fetch(`${url}/api/pets`, { headers: { prefer: 'example=dog' } })).json(),
    ).toEqual([{ name: 'Rex' }])
    expect(
      await (await fetch(`${url}/api/pets`, { headers: { 'x-understudy-example': 'dog' } })).json(),
    ).toEqual([{ name: 'Rex' }])
    // a status asked for wins over an example of the main response
    const both = await fetch(`${url}/api/pets`, { headers: { prefer: 'code=404, example=dog' } })
    expect(both.status).toBe(404)
  })

  it('chooses a named example of any documented response, with Prefer: code=', async () => {
    const url = await serveWithValidation(Buffer.from(description), 'orders.yaml')
    const ask = async (prefer: string) => {
      const res = await fetch(`${url}/api/pets`, { headers: { prefer } })
      return [res.status, await res.json()]
    }
    expect(await ask('code=409, example=busy')).toEqual([409, { error: 'busy' }])
    expect(await ask('example=locked, code=409')).toEqual([409, { error: 'locked' }])
    // without an example, or with one the response does not document: its first example
    expect(await ask('code=409')).toEqual([409, { error: 'locked' }])
    expect(await ask('code=409, example=dog')).toEqual([409, { error: 'locked' }])
    const explicit = await fetch(`${url}/api/pets`, {
      headers: { 'x-understudy-status': '409', 'x-understudy-example': 'busy' },
    })
    expect(await explicit.json()).toEqual({ error: 'busy' })
  })
})

describeRealworld(
  'Prefer: code= and example= on a real description (shutterstock, served by the command line)',
  () => {
    it('answers the named example of a response that is not the main one', async () => {
      // POST /v2/audio/collections documents 200 (its main response, no example) and 201 (a named
      // example). The corpus has no response with several named examples: the inline test above
      // covers choosing among them.
      const file = realworldPath('openapi', 'shutterstock-v3.oas30.yaml')
      const server = await startCli(['serve', file, '--port', '0'])
      const post = async (prefer?: string) =>
        await fetch(`${server.url}/v2/audio/collections`, {
          method: 'POST',
          headers: prefer === undefined ? {} : { prefer },
        })
      const main = await post()
      expect(main.status).toBe(200)
      const chosen = await post('code=201, example=response')
      expect(chosen.status).toBe(201)
      expect(await chosen.json()).toEqual({ id: '48433105' })
      // an example asked for without its status stays on the main response
      expect((await post('example=response')).status).toBe(200)
      await server.stop()
    })
  },
)

describeRealworld(
  'request validation on a real description (petstore-v3, served by the command line)',
  () => {
    it('refuses a missing required body and a wrong body type, answers a valid request', async () => {
      const file = realworldPath('openapi', 'petstore-v3.oas30.yaml')
      const server = await startCli(['serve', file, '--port', '0', '--validate-requests'])
      const post = async (body?: string) =>
        await fetch(`${server.url}/v2/pets`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body }),
        })
      const missing = await post()
      expect(missing.status).toBe(422)
      expect(((await missing.json()) as Problem).errors).toEqual([
        { path: '/body', message: 'a request body is required' },
      ])
      const wrongType = await post(JSON.stringify({ name: 5 }))
      expect(wrongType.status).toBe(422)
      expect(((await wrongType.json()) as Problem).errors).toEqual([
        { path: '/body/name', message: 'must be string' },
      ])
      expect((await post(JSON.stringify({ name: 'Rex', tag: 'dog' }))).status).toBe(200)
      const badLimit = await fetch(`${server.url}/v2/pets?limit=ten`)
      expect(((await badLimit.json()) as Problem).errors).toEqual([
        { path: '/query/limit', message: 'must be integer' },
      ])
      expect((await fetch(`${server.url}/v2/pets?limit=10&tags=a,b`)).status).toBe(200)
      expect((await fetch(`${server.url}/v2/pets/abc`)).status).toBe(422)
    })
  },
)
