import type { SchemaObject } from 'ajv'
import { dateTruncationNames } from '../date-format.js'
import { delayTypes, faultTypes, matcherNames } from '../types.js'

/**
 * JSON Schemas of the DSL as users and existing clients write it (before normalization). Strict
 * where a typo would silently change behaviour (`requestDsl`, `responseDsl`, matchers), lenient
 * on the resource fields that only describe (`id`, `link`, timestamps of an exported record).
 */

const caseInsensitive = (values: readonly string[]): string =>
  '^(' +
  values
    .map((v) => v.replace(/[A-Za-z]/g, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`))
    .join('|') +
  ')$'

const matcherSchema: SchemaObject = {
  $id: 'understudy:matcher',
  type: 'object',
  additionalProperties: false,
  required: ['matcherName'],
  properties: {
    key: { type: 'string' },
    matcherName: { type: 'string', enum: [...matcherNames] },
    matchingValue: { type: 'string' },
    optional: { type: 'boolean' },
    // --- product DSL compatibility ---
    sampleBody: { type: ['string', 'null'] },
    namespaces: {
      type: ['array', 'null'],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['prefix', 'uri'],
        properties: {
          prefix: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_.-]*$' },
          uri: { type: 'string' },
        },
      },
    },
    cdataXpath: { type: ['string', 'null'] },
    // equals_json options, as WireMock's equalToJson has them
    ignoreArrayOrder: { type: 'boolean' },
    ignoreExtraElements: { type: 'boolean' },
    // date matcher options, as WireMock's date operators have them
    dateFormat: { type: 'string' },
    truncateExpected: { type: 'string', enum: [...dateTruncationNames] },
    truncateActual: { type: 'string', enum: [...dateTruncationNames] },
    // every part of a form or multipart body (WireMock's multipart matchingType ALL)
    allParts: { type: 'boolean' },
  },
}

// --- product DSL compatibility ---
/** `statusCodeConditions` entries: the first whose (body) matcher holds sets the status. */
const statusCodeConditionsSchema: SchemaObject = {
  $id: 'understudy:status-code-conditions',
  type: ['array', 'null'],
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['status', 'matcher'],
    properties: {
      status: { type: 'integer', minimum: 100, maximum: 599 },
      statusMessage: { type: ['string', 'null'] },
      matcher: { $ref: 'understudy:matcher' },
    },
  },
}

const responseDelaySchema: SchemaObject = {
  $id: 'understudy:delay',
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: {
    type: { type: 'string', pattern: caseInsensitive(delayTypes) },
    duration: { type: 'number', minimum: 0 },
    lower: { type: 'number', minimum: 0 },
    upper: { type: 'number', minimum: 0 },
    median: { type: 'number', minimum: 0 },
    sigma: { type: 'number', minimum: 0 },
    // --- product DSL compatibility ---
    chunks: { type: ['integer', 'null'], minimum: 1, maximum: 10000 },
    dribbled: { type: ['boolean', 'null'] },
  },
}

const matcherList = { type: 'array', items: { $ref: 'understudy:matcher' } }

const requestDslSchema: SchemaObject = {
  type: 'object',
  additionalProperties: false,
  properties: {
    method: { type: 'string', pattern: '^[A-Za-z]+$' },
    host: { type: ['string', 'null'] },
    path: { type: 'string' },
    url: { $ref: 'understudy:matcher' },
    headers: matcherList,
    queryParams: matcherList,
    cookies: matcherList,
    credentials: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: {
        username: { type: ['string', 'null'] },
        password: { type: ['string', 'null'] },
      },
    },
    body: matcherList,
    sampleBody: { type: ['string', 'null'] },
  },
}

const responseDslSchema: SchemaObject = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'integer', minimum: 100, maximum: 599 },
    statusMessage: { type: ['string', 'null'] },
    proxyUrl: { type: ['string', 'null'] },
    headers: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'value'],
        properties: {
          name: { type: 'string', pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" },
          value: { type: ['string', 'number', 'boolean'] },
        },
      },
    },
    binary: { type: ['boolean', 'null'] },
    contentType: { type: ['string', 'null'] },
    content: { type: ['string', 'null'] },
    charset: { type: ['string', 'null'] },
    responseDelay: { anyOf: [{ $ref: 'understudy:delay' }, { type: 'null' }] },
    // dynamic responses: templating, faults, webhooks
    template: { type: ['boolean', 'null'] },
    templated: { type: ['boolean', 'null'] },
    fault: { anyOf: [{ $ref: 'understudy:fault' }, { type: 'null' }] },
    postServe: { type: ['array', 'null'], items: { $ref: 'understudy:post-serve' } },
    // hand-written shorthands, turned into `content` by normalization
    text: { type: 'string' },
    json: {},
    // --- product DSL compatibility ---
    failoverEnabled: { type: ['boolean', 'null'] },
    statusCodeConditions: { $ref: 'understudy:status-code-conditions' },
  },
  // A null `content` (as exported records carry it) means no content, so it combines with a shorthand.
  not: {
    anyOf: [
      { required: ['text', 'json'] },
      { required: ['text', 'content'], properties: { content: { type: 'string' } } },
      { required: ['json', 'content'], properties: { content: { type: 'string' } } },
    ],
  },
}

const transactionDslSchema: SchemaObject = {
  $id: 'understudy:dsl',
  type: 'object',
  required: ['requestDsl'],
  additionalProperties: false,
  properties: {
    type: { type: 'string' },
    priority: { type: 'integer', minimum: 0 },
    requestDsl: requestDslSchema,
    responseDsl: responseDslSchema,
    sampleBody: { type: ['string', 'null'] },
    // carried by converted (imported) transactions of the mock services specification
    nativeId: { type: ['string', 'null'] },
    // --- product DSL compatibility ---
    redirectUrl: { type: ['string', 'null'] },
    failoverEnabled: { type: ['boolean', 'null'] },
    statusCodeConditions: { $ref: 'understudy:status-code-conditions' },
    // dynamic responses
    scenario: { anyOf: [{ $ref: 'understudy:scenario' }, { type: 'null' }] },
  },
}

/** A transaction: the resource of the mock services specification, or a bare `dsl` object standing for one. */
const transactionSchema: SchemaObject = {
  $id: 'understudy:transaction',
  type: 'object',
  required: ['dsl'],
  properties: {
    id: { type: 'integer' },
    name: { type: ['string', 'null'] },
    description: { type: ['string', 'null'] },
    tags: { type: ['array', 'null'], items: { type: 'string' } },
    serviceId: { type: ['integer', 'null'] },
    serviceName: { type: ['string', 'null'] },
    link: { type: ['string', 'null'] },
    dsl: { $ref: 'understudy:dsl' },
  },
}

const mockServiceTransactionSchema: SchemaObject = {
  anyOf: [
    { type: 'integer' },
    {
      type: 'object',
      required: ['txnId'],
      properties: {
        txnId: { type: 'integer' },
        priority: { type: ['integer', 'null'], minimum: 0 },
      },
    },
  ],
}

/** A mock-service document: behaviour fields of the mock service record plus `transactions`. */
export const mockServiceDocumentSchema: SchemaObject = {
  $id: 'understudy:mock-service',
  type: 'object',
  required: ['transactions'],
  properties: {
    id: { type: ['integer', 'null'] },
    name: { type: ['string', 'null'] },
    description: { type: ['string', 'null'] },
    serviceId: { type: ['integer', 'null'] },
    serviceName: { type: ['string', 'null'] },
    thinkTime: {
      anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }, { $ref: 'understudy:delay' }],
    },
    capacity: { type: ['integer', 'null'], minimum: 1 },
    replicas: { type: ['integer', 'null'], minimum: 1 },
    noMatchingRequestPreference: {
      type: ['string', 'null'],
      pattern: caseInsensitive(['return404', 'bypasslive', 'returnTransaction', 'record']),
    },
    noMatchingRequestTxnId: { type: ['integer', 'null'] },
    liveSystemHost: { type: ['string', 'null'] },
    liveSystemPort: { type: ['integer', 'null'], minimum: 1, maximum: 65535 },
    endpointPreference: { type: ['string', 'null'], pattern: '^(HTTP|HTTPS|http|https)$' },
    mockServiceTransactions: { type: ['array', 'null'], items: mockServiceTransactionSchema },
    // each item is validated on its own (a transaction, or a bare dsl), so that error paths point
    // into the file as written
    transactions: { type: 'array' },
    // dynamic responses
    cors: { anyOf: [{ type: ['boolean', 'null'] }, { $ref: 'understudy:cors' }] },
    faults: { anyOf: [{ $ref: 'understudy:fault' }, { type: 'null' }] },
    templateSeed: { type: ['integer', 'null'] },
    // host matching and request validation: what were runtime flags only (`--validate-requests`, `--match-host`)
    validateRequests: { type: ['boolean', 'null'] },
    matchHost: { type: ['boolean', 'null'] },
    // The outbound proxy of forwarded requests
    proxy: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['proxyUrl'],
          properties: {
            proxyUrl: { type: 'string', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]+/?$' },
            nonProxyHosts: { type: ['string', 'null'], maxLength: 4000 },
            username: { type: ['string', 'null'], maxLength: 1000 },
            password: { type: ['string', 'null'], maxLength: 1000 },
          },
        },
      ],
    },
  },
}

// --- dynamic responses -------------------------------------------------------------

/** `fault`: a fault name, or `{type, probability}`. */
const faultSchema: SchemaObject = {
  $id: 'understudy:fault',
  anyOf: [
    { type: 'string', pattern: caseInsensitive(faultTypes) },
    {
      type: 'object',
      additionalProperties: false,
      required: ['type'],
      properties: {
        type: { type: 'string', pattern: caseInsensitive(faultTypes) },
        probability: { type: 'number', minimum: 0, maximum: 1 },
      },
    },
  ],
}

const scenarioSchema: SchemaObject = {
  $id: 'understudy:scenario',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1 },
    requiredState: { type: ['string', 'null'], minLength: 1 },
    newState: { type: ['string', 'null'], minLength: 1 },
    instanceKey: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['part'],
      properties: {
        part: { type: 'string', enum: ['header', 'query', 'cookie', 'body'] },
        key: { type: 'string' },
      },
    },
    ttl: { type: ['integer', 'null'], minimum: 1 },
  },
}

const corsSchema: SchemaObject = {
  $id: 'understudy:cors',
  type: 'object',
  additionalProperties: false,
  properties: {
    origins: { type: 'array', items: { type: 'string', minLength: 1 } },
    methods: { type: 'array', items: { type: 'string', pattern: '^[A-Za-z]+$' } },
    headers: { type: 'array', items: { type: 'string', pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" } },
    credentials: { type: 'boolean' },
    maxAge: { type: ['integer', 'null'], minimum: 0 },
  },
}

const postServeSchema: SchemaObject = {
  $id: 'understudy:post-serve',
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: { type: 'string', pattern: '^https?://' },
    method: { type: 'string', pattern: '^[A-Za-z]+$' },
    headers: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'value'],
        properties: {
          name: { type: 'string', pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" },
          value: { type: 'string' },
        },
      },
    },
    body: { type: 'string' },
    delay: { type: 'integer', minimum: 0, maximum: 3600000 },
  },
}

/** Every schema, for registering with one ajv instance. */
export const dslSchemas: readonly SchemaObject[] = [
  matcherSchema,
  statusCodeConditionsSchema,
  responseDelaySchema,
  faultSchema,
  scenarioSchema,
  corsSchema,
  postServeSchema,
  transactionDslSchema,
  transactionSchema,
  mockServiceDocumentSchema,
]
