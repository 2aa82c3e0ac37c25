import { describe, expect, it } from 'vitest'
import { loadDefinitionText, readDefinition } from '../../../src/dsl/index.js'
import { thrown } from '../fixtures/match.js'

/*
 * Every shape a definition may take (docs/dsl.md#files): one transaction, a bare
 * dsl, an array of either, `{transactions: [...]}`, or a whole mock-service document.
 */

const dsl = (path: string) => ({ requestDsl: { path }, responseDsl: { text: path } })

describe('accepted shapes', () => {
  it('reads one transaction', () => {
    const doc = readDefinition({ name: 'one', dsl: dsl('/a') })
    expect(doc.transactions.map((t) => t.name)).toEqual(['one'])
    expect(doc).toMatchObject({
      noMatchingRequestPreference: 'return404',
      mockServiceTransactions: [],
    })
  })

  it('reads a bare dsl', () => {
    const doc = readDefinition(dsl('/a'))
    expect(doc.transactions).toHaveLength(1)
    expect(doc.transactions[0]?.dsl.requestDsl.path).toBe('/a')
  })

  it('reads an array mixing transactions and bare dsls, in order', () => {
    const doc = readDefinition([{ name: 'first', dsl: dsl('/a') }, dsl('/b')])
    expect(doc.transactions.map((t) => t.name)).toEqual(['first', 'ANY /b'])
  })

  it('reads an empty array as a document without transactions', () => {
    expect(readDefinition([]).transactions).toEqual([])
  })

  it('reads {transactions: [...]}', () => {
    const doc = readDefinition({ transactions: [{ name: 't', dsl: dsl('/a') }, dsl('/b')] })
    expect(doc.transactions.map((t) => t.name)).toEqual(['t', 'ANY /b'])
  })

  it('reads a mock-service document with its settings', () => {
    const doc = readDefinition({
      id: 12,
      name: 'pets',
      serviceId: 3,
      serviceName: 'Pet store',
      description: 'pets mock',
      type: 'TRANSACTIONAL',
      status: 'RUNNING',
      thinkTime: 100,
      capacity: 50,
      replicas: 2,
      noMatchingRequestPreference: 'returnTransaction',
      noMatchingRequestTxnId: 7,
      liveSystemHost: 'live.example',
      liveSystemPort: 8443,
      endpointPreference: 'HTTPS',
      mockServiceTransactions: [{ txnId: 7, priority: 1 }],
      transactions: [{ id: 7, name: 'fallback', dsl: dsl('/a') }],
    })
    expect(doc).toMatchObject({
      id: 12,
      name: 'pets',
      serviceId: 3,
      serviceName: 'Pet store',
      description: 'pets mock',
      thinkTime: { type: 'fixed', duration: 100 },
      capacity: 50,
      replicas: 2,
      noMatchingRequestPreference: 'returnTransaction',
      noMatchingRequestTxnId: 7,
      liveSystemHost: 'live.example',
      liveSystemPort: 8443,
      endpointPreference: 'HTTPS',
      mockServiceTransactions: [{ txnId: 7, priority: 1 }],
    })
    expect(doc.transactions[0]).toMatchObject({ id: 7, name: 'fallback' })
  })

  it('accepts an exported transaction record with its descriptive fields', () => {
    const doc = readDefinition({
      id: 5,
      name: 'GET pets',
      description: 'lists pets',
      serviceId: 1,
      serviceName: 'svc',
      tags: ['a', 'b'],
      link: 'https://example/txn/5',
      created: 1700000000,
      dsl: { type: 'GENERIC_DSL', nativeId: 'abc', sampleBody: 'x', priority: 3, ...dsl('/pets') },
    })
    expect(doc.transactions[0]).toMatchObject({
      id: 5,
      name: 'GET pets',
      description: 'lists pets',
      serviceId: 1,
      serviceName: 'svc',
      tags: ['a', 'b'],
      link: 'https://example/txn/5',
      dsl: { type: 'GENERIC_DSL', sampleBody: 'x', priority: 3 },
    })
  })

  it('accepts the fields real clients send: type, url.key, optional, sampleBody', () => {
    const doc = readDefinition({
      type: 'HTTP',
      requestDsl: {
        url: { key: 'url', matcherName: 'equals_url', matchingValue: '/a' },
        headers: [{ key: 'x', matcherName: 'equals', matchingValue: '1', optional: true }],
        sampleBody: '{"a": 1}',
      },
    })
    expect(doc.transactions[0]?.dsl).toMatchObject({
      type: 'HTTP',
      requestDsl: {
        url: { key: 'url', matcherName: 'equals_url', matchingValue: '/a' },
        headers: [{ optional: true }],
        sampleBody: '{"a": 1}',
      },
    })
  })

  it('reads the same shapes from YAML and JSON text', () => {
    const yaml = loadDefinitionText(
      '- dsl: {requestDsl: {path: /a}, responseDsl: {text: hi}}\n- requestDsl: {path: /b}\n',
      'a.yaml',
    )
    const json = loadDefinitionText(
      '[{"dsl": {"requestDsl": {"path": "/a"}, "responseDsl": {"text": "hi"}}}, {"requestDsl": {"path": "/b"}}]',
      'a.json',
    )
    expect(yaml.transactions.map((t) => t.name)).toEqual(['ANY /a', 'ANY /b'])
    expect(json).toEqual(yaml)
  })
})

describe('refused shapes', () => {
  it.each([
    { label: 'null', value: null },
    { label: 'a string', value: 'GET /a' },
    { label: 'a number', value: 1 },
    { label: 'an empty object', value: {} },
    {
      label: 'an object with neither dsl, requestDsl nor transactions',
      value: { name: 'x', request: {} },
    },
  ])('refuses $label at the root', ({ value }) => {
    expect(thrown(() => readDefinition(value))).toMatchObject({
      code: 'ERR_DSL_INVALID',
      statusCode: 400,
      details: [{ path: '', message: expect.stringContaining('must be a transaction') }],
    })
  })

  it('refuses each bad array item at its index, reading on', () => {
    const err = thrown(() => readDefinition([dsl('/a'), 3, { nope: 1 }, dsl('/b')]))
    expect(err).toMatchObject({
      code: 'ERR_DSL_INVALID',
      details: [{ path: '/1' }, { path: '/2' }],
    })
  })

  it('refuses a transactions member that is not an array', () => {
    expect(thrown(() => readDefinition({ transactions: {} }))).toMatchObject({
      code: 'ERR_DSL_INVALID',
      details: [{ path: '/transactions', message: 'must be array' }],
    })
  })

  it('refuses bad items of transactions at their pointer', () => {
    expect(thrown(() => readDefinition({ transactions: [dsl('/a'), 'x'] }))).toMatchObject({
      details: [
        { path: '/transactions/1', message: expect.stringContaining('must be a transaction') },
      ],
    })
  })
})
