import { describe, expect, it } from 'vitest'
import { importOpenApi } from '../../../importers/openapi/index.js'
import { compileMatcher, MatchRequest } from '../../../src/match/index.js'

const description = `
openapi: 3.0.3
info: { title: order, version: '1' }
paths:
  /pets/mine:
    get:
      responses:
        '200': { description: mine, content: { application/json: { example: { mine: true } } } }
  /pets/{id}:
    get:
      parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
      responses:
        '200': { description: one, content: { application/json: { example: { id: 1 } } } }
`

describe('importOpenApi ordering', () => {
  it('lets a concrete path win over a template that also matches it, as OpenAPI requires', () => {
    const { document } = importOpenApi({ bytes: Buffer.from(description), fileName: 'order.yaml' })
    const matcher = compileMatcher(document, (txn) => txn.name)
    expect(matcher.match(new MatchRequest('GET', '/pets/mine', {}, null))?.payload).toBe(
      'GET /pets/mine',
    )
    expect(matcher.match(new MatchRequest('GET', '/pets/7', {}, null))?.payload).toBe(
      'GET /pets/{id}',
    )
  })
})
