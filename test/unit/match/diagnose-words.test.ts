import { describe, expect, it } from 'vitest'
import { failureInWords } from '../../../src/match/index.js'
import { matcherOf, request, txn } from '../fixtures/match.js'

/** The words of the closest transaction's failed matchers, as the sandbox shows them. */
function words(definition: unknown, req: ReturnType<typeof request>): string[] {
  return (matcherOf(definition).diagnose(req, 1)[0]?.failed ?? []).map(failureInWords)
}

describe('failureInWords: the near-miss diagnosis in words (sandbox matchingLog)', () => {
  it('names the method, the path, a header, a missing query parameter and the body', () => {
    const definition = [
      txn('it', {
        method: 'GET',
        url: { matcherName: 'equals_url', matchingValue: '/orders' },
        headers: [{ key: 'Accept', matcherName: 'contains', matchingValue: 'json' }],
        queryParams: [{ key: 'q', matcherName: 'equals', matchingValue: '1' }],
        body: [{ matcherName: 'contains', matchingValue: 'order' }],
      }),
    ]
    expect(
      words(definition, request('POST', '/items', { accept: 'application/xml' }, 'nothing')),
    ).toEqual([
      'Request method POST did not match GET',
      'Request path /items did not match equals_url /orders',
      'Request query parameter q is missing (expected equals 1)',
      'Request header accept application/xml did not match contains json',
      'Request body nothing did not match contains order',
    ])
  })

  it('says when an item that must be absent is present', () => {
    expect(
      words(
        [txn('it', { headers: [{ key: 'X-Debug', matcherName: 'absent' }] })],
        request('GET', '/', { 'x-debug': '1' }),
      ),
    ).toEqual(['Request header x-debug is present but must be absent'])
  })
})
