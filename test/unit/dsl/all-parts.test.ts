import { describe, expect, it } from 'vitest'
import { readDefinition } from '../../../src/dsl/index.js'
import { thrown } from '../fixtures/match.js'

// `allParts` (WireMock's multipart matchingType ALL): a body matcher without key on every part.

const withBody = (matcher: Record<string, unknown>): unknown => ({
  requestDsl: { body: [matcher] },
  responseDsl: {},
})

describe('allParts', () => {
  it('is read on a keyless body matcher comparing text', () => {
    const read = readDefinition(
      withBody({ matcherName: 'matches', matchingValue: '[a-z]+', allParts: true }),
    )
    expect(JSON.stringify(read)).toContain('"allParts":true')
  })

  it.each([
    [{ key: 'file', matcherName: 'contains', matchingValue: 'x', allParts: true }],
    [{ matcherName: 'equals_json', matchingValue: '{}', allParts: true }],
  ])('is refused with a key or on a structured matcher: %j', (matcher) => {
    const details = thrown(() => readDefinition(withBody(matcher))).details as Array<{
      path: string
    }>
    expect(details.map((d) => d.path)).toContain('/requestDsl/body/0/allParts')
  })

  it('is refused outside the body', () => {
    const details = thrown(() =>
      readDefinition({
        requestDsl: {
          headers: [{ key: 'a', matcherName: 'equals', matchingValue: 'b', allParts: true }],
        },
        responseDsl: {},
      }),
    ).details as Array<{ path: string }>
    expect(details.map((d) => d.path)).toEqual(['/requestDsl/headers/0/allParts'])
  })
})
