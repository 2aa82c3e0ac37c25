import type { DocumentInput, TransactionInput } from '../../src/dsl/index.js'

/** One benchmark scenario: a mock-service document and the request(s) autocannon sends. */
export interface Scenario {
  id: string
  title: string
  document: DocumentInput
  request: { method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string }
  /** The fixed body the bare node:http baseline answers with (the matched transaction's body). */
  bareBody: string
  /** Target ratio to bare node:http. */
  target: number
}

const hello = '{"hello":"world"}'

/** S0: one transaction. */
function s0(): Scenario {
  return {
    id: 'S0',
    title: 'one transaction',
    document: {
      transactions: [
        {
          name: 'hello',
          dsl: {
            requestDsl: { method: 'GET', path: '/api/hello' },
            responseDsl: { json: { hello: 'world' } },
          },
        },
      ],
    },
    request: { method: 'GET', path: '/api/hello' },
    bareBody: hello,
    target: 0.8,
  }
}

/**
 * S1: 100 transactions on one path, told apart by a header; with equal priorities the newest is
 * tried first, so the request (tenant-1) is decided after the 98 newer ones are ruled out.
 */
function s1(): Scenario {
  const transactions: TransactionInput[] = []
  for (let i = 0; i < 100; i++) {
    transactions.push({
      name: `tenant-${i}`,
      dsl: {
        requestDsl: {
          method: 'GET',
          path: '/api/orders',
          headers: [{ key: 'X-Tenant', matcherName: 'equals', matchingValue: `tenant-${i}` }],
        },
        responseDsl: { json: { hello: 'world' } },
      },
    })
  }
  // The first transaction (tenant-0) is tried last: it stays ruled out too.
  return {
    id: 'S1',
    title: '100 transactions, decided after 98 path+header ones are ruled out',
    document: { transactions },
    request: { method: 'GET', path: '/api/orders', headers: { 'x-tenant': 'tenant-1' } },
    bareBody: hello,
    target: 0.8,
  }
}

/** S2: a POST matched on a JSON body field, among ten transactions on the same path. */
function s2(): Scenario {
  const kinds = [
    'standard',
    'express',
    'overnight',
    'pickup',
    'locker',
    'drone',
    'bike',
    'freight',
    'return',
    'gift',
  ]
  return {
    id: 'S2',
    title: 'POST matched on a JSON body field',
    document: {
      transactions: kinds.map((kind) => ({
        name: `order-${kind}`,
        dsl: {
          requestDsl: {
            method: 'POST',
            path: '/api/orders',
            body: [{ key: '$.shipping.kind', matcherName: 'equals', matchingValue: kind }],
          },
          responseDsl: { status: 200, json: { hello: 'world' } },
        },
      })),
    },
    request: {
      method: 'POST',
      path: '/api/orders',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        customer: 'c-1042',
        items: [
          { sku: 'A-1', qty: 2 },
          { sku: 'B-7', qty: 1 },
        ],
        shipping: { kind: 'express', address: '1 Main St' },
      }),
    },
    bareBody: hello,
    target: 0.8,
  }
}

/**
 * S3: 10,000 transactions: 9,000 literal paths, 900 templates, 100 regex url matchers. The
 * request hits a literal path in the middle; the index must make its cost independent of the count.
 */
function s3(): Scenario {
  const transactions: TransactionInput[] = []
  for (let i = 0; i < 9000; i++) {
    transactions.push({
      name: `literal-${i}`,
      dsl: {
        requestDsl: { method: 'GET', path: `/api/r${i}/items` },
        responseDsl: { json: { hello: 'world' } },
      },
    })
  }
  for (let i = 0; i < 900; i++) {
    transactions.push({
      name: `template-${i}`,
      dsl: {
        requestDsl: { method: 'GET', path: `/api/t${i}/items/{id}` },
        responseDsl: { json: { template: i } },
      },
    })
  }
  for (let i = 0; i < 100; i++) {
    transactions.push({
      name: `regex-${i}`,
      dsl: {
        requestDsl: {
          method: 'GET',
          url: { matcherName: 'matches', matchingValue: `/api/x${i}/[0-9]+` },
        },
        responseDsl: { json: { regex: i } },
      },
    })
  }
  return {
    id: 'S3',
    title: '10,000 transactions',
    document: { transactions },
    request: { method: 'GET', path: '/api/r4500/items' },
    bareBody: hello,
    target: 0.7,
  }
}

export const scenarios: readonly Scenario[] = [s0(), s1(), s2(), s3()]
