import { describe, expect, it } from 'vitest'
import { readDefinition } from '../../../src/dsl/index.js'
import { renderTransaction } from '../../../src/serve/wiremock/render.js'

// A transaction of another format, as GET /__admin/mappings lists it: WireMock's JSON for what has
// an equivalent, and metadata.understudy naming the parts that have none.

function render(dsl: unknown): Record<string, unknown> {
  const doc = readDefinition([{ name: 't', dsl }])
  const txn = doc.transactions[0]
  if (txn === undefined) throw new Error('no transaction')
  return renderTransaction(txn)
}

describe('renderTransaction', () => {
  it("renders matchers, response and delay in WireMock's words", () => {
    const out = render({
      priority: 3,
      requestDsl: {
        method: 'post',
        url: { matcherName: 'equals_url', matchingValue: '/orders/{id}' },
        headers: [
          { key: 'Accept', matcherName: 'equals_insensitive', matchingValue: 'JSON' },
          { key: 'Accept', matcherName: 'contains', matchingValue: 'j' },
        ],
        queryParams: [{ key: 'q', matcherName: 'absent', matchingValue: 'q' }],
        cookies: [{ key: 's', matcherName: 'not_matches', matchingValue: 'x.*' }],
        credentials: { username: 'u', password: 'p' },
        body: [
          { key: '$.total', matcherName: 'equals', matchingValue: '3' },
          { matcherName: 'equals_json', matchingValue: '{"a":1}', ignoreArrayOrder: true },
          { key: 'field', matcherName: 'contains', matchingValue: 'v' },
        ],
      },
      responseDsl: {
        status: 201,
        headers: [
          { name: 'X-A', value: '1' },
          { name: 'X-A', value: '2' },
        ],
        json: { ok: true },
        responseDelay: { type: 'uniform', lower: 1, upper: 5 },
        template: true,
      },
    })
    expect(out).toMatchObject({
      name: 't',
      priority: 1,
      request: {
        method: 'POST',
        urlPathTemplate: '/orders/{id}',
        headers: {
          Accept: { and: [{ equalTo: 'JSON', caseInsensitive: true }, { contains: 'j' }] },
        },
        queryParameters: { q: { absent: true } },
        cookies: { s: { doesNotMatch: 'x.*' } },
        basicAuthCredentials: { username: 'u', password: 'p' },
        bodyPatterns: [
          { matchesJsonPath: { expression: '$.total', equalTo: '3' } },
          { equalToJson: '{"a":1}', ignoreArrayOrder: true },
        ],
        formParameters: { field: { contains: 'v' } },
      },
      response: {
        status: 201,
        headers: { 'X-A': ['1', '2'] },
        body: '{"ok":true}',
        delayDistribution: { type: 'uniform', lower: 1, upper: 5 },
        transformers: ['response-template'],
      },
      metadata: { understudy: { source: 'transaction', transaction: { name: 't' } } },
    })
    expect(
      (out['metadata'] as { understudy: Record<string, unknown> }).understudy['notRendered'],
    ).toBeUndefined()
  })

  it('names the parts WireMock has no words for, and renders binary bodies as base64Body', () => {
    const out = render({
      requestDsl: {
        path: '/a',
        headers: [{ key: 'X', matcherName: 'equals', matchingValue: 'v', optional: true }],
        body: [
          {
            matcherName: 'matches_xml_schema',
            matchingValue:
              '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="a"/></xs:schema>',
          },
        ],
      },
      responseDsl: {
        status: 200,
        binary: true,
        content: Buffer.from([0xff, 0x00]).toString('base64'),
        fault: { type: 'connection_reset' },
      },
    })
    expect(out['request']).toEqual({ method: 'ANY', urlPath: '/a' })
    expect(out['response']).toMatchObject({ status: 200, base64Body: '/wA=' })
    expect(
      (out['metadata'] as { understudy: Record<string, unknown> }).understudy['notRendered'],
    ).toEqual(['/dsl/requestDsl/headers/0', '/dsl/requestDsl/body/0', '/dsl/responseDsl/fault'])
  })
})
