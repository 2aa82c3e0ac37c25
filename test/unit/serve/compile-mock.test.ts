import { describe, expect, it } from 'vitest'
import { compileMock } from '../../../src/serve/compile-mock.js'
import { readDefinition } from '../../../src/dsl/index.js'

const options = { proxyTimeout: 1000, journalBodyBytes: 4 }

const docWith = (responseDsl: Record<string, unknown>) =>
  readDefinition([
    { dsl: { requestDsl: { path: '/a' }, responseDsl: { text: 'hello', ...responseDsl } } },
  ])

describe('compileMock', () => {
  it('keeps the head of each response body for the journal, flagged when cut', () => {
    const mock = compileMock(docWith({}), options)
    const served = mock.matcher.active[0]?.payload
    expect(served?.journalBody.toString()).toBe('hell')
    expect(served?.journalTruncated).toBe(true)
    const whole = compileMock(docWith({}), { ...options, journalBodyBytes: 100 }).matcher.active[0]
      ?.payload
    expect(whole?.journalBody).toBe(whole?.body)
    expect(whole?.journalTruncated).toBe(false)
  })

  it('compiles the mock service settings: think time, capacity and the no-match policy', () => {
    const doc = readDefinition({
      id: 9,
      thinkTime: 25,
      capacity: 3,
      noMatchingRequestPreference: 'returnTransaction',
      noMatchingRequestTxnId: 4,
      transactions: [{ id: 4, dsl: { requestDsl: { path: '/a' }, responseDsl: { text: 'a' } } }],
    })
    const mock = compileMock(doc, options)
    expect(mock.serviceMockId).toBe(9)
    expect(mock.capacity).toBe(3)
    expect(mock.thinkTime?.()).toBe(25)
    expect(mock.noMatch.kind).toBe('returnTransaction')
  })

  // Was a bug (fixed in src/serve/compile-mock.ts): Node refuses such values in writeHead, which then
  // threw on every request, leaked the capacity place, and crashed the process after a think time.
  it.each([
    [{ headers: [{ name: 'X-Price', value: '5 €' }] }, '/0/dsl/responseDsl/headers/0/value'],
    [
      {
        headers: [
          { name: 'X-A', value: 'ok' },
          { name: 'X-B', value: 'a\r\nSet-Cookie: x=1' },
        ],
      },
      '/0/dsl/responseDsl/headers/1/value',
    ],
    [{ statusMessage: 'Fine\nHTTP/1.1 200 OK' }, '/0/dsl/responseDsl/statusMessage'],
  ])(
    'rejects a response Node cannot write (%j) with ERR_DSL_INVALID naming the field',
    (responseDsl, path) => {
      let thrown: unknown
      try {
        compileMock(docWith(responseDsl), options)
      } catch (err) {
        thrown = err
      }
      expect(thrown).toMatchObject({
        code: 'ERR_DSL_INVALID',
        details: [expect.objectContaining({ path })],
      })
    },
  )

  it('accepts Latin-1 and tab characters in header values and reason phrases', () => {
    expect(() =>
      compileMock(
        docWith({ statusMessage: 'Très bien', headers: [{ name: 'X-A', value: 'café\tau lait' }] }),
        options,
      ),
    ).not.toThrow()
  })
})
