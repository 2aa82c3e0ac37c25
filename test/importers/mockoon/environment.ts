/*
 * A Mockoon environment written for the tests: one route per kind of response rule and response
 * mode, in the shape Mockoon 8 saves (lastMigration 33).
 */

interface Rule {
  target: string
  modifier: string
  value: string
  operator: string
  invert?: boolean
}

let counter = 0
function response(
  statusCode: number,
  body: string,
  rules: Rule[] = [],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  counter++
  return {
    uuid: `r${counter}`,
    body,
    latency: 0,
    statusCode,
    label: '',
    headers: [],
    bodyType: 'INLINE',
    filePath: '',
    databucketID: '',
    sendFileAsBody: false,
    rules: rules.map((r) => ({ invert: false, ...r })),
    rulesOperator: 'OR',
    disableTemplating: false,
    fallbackTo404: false,
    default: false,
    crudKey: 'id',
    callbacks: [],
    ...extra,
  }
}

function route(
  method: string,
  endpoint: string,
  responses: Array<Record<string, unknown>>,
  responseMode: string | null = null,
): Record<string, unknown> {
  const [first] = responses
  if (first !== undefined && !responses.some((r) => r['default'] === true)) first['default'] = true
  return {
    uuid: `route-${method}-${endpoint}`,
    type: 'http',
    documentation: '',
    method,
    endpoint,
    responses,
    responseMode,
    streamingMode: null,
    streamingInterval: 0,
  }
}

/** The environment, with `callbackUrl` as the uri of its one callback. */
export function testEnvironment(callbackUrl = 'http://127.0.0.1:9/hook'): Record<string, unknown> {
  return {
    uuid: 'env',
    lastMigration: 33,
    name: 'rules',
    endpointPrefix: 'api',
    latency: 0,
    port: 3000,
    hostname: '',
    folders: [],
    rootChildren: [],
    proxyMode: false,
    proxyHost: '',
    proxyRemovePrefix: false,
    tlsOptions: { enabled: false },
    cors: true,
    headers: [
      { key: 'Content-Type', value: 'application/json' },
      { key: 'X-Env', value: 'env' },
    ],
    proxyReqHeaders: [],
    proxyResHeaders: [],
    data: [
      {
        uuid: 'b1',
        id: 'abc1',
        name: 'users',
        documentation: '',
        value: '[{"id": 1, "name": "Ada"}]',
      },
    ],
    callbacks: [
      {
        uuid: 'cb1',
        id: 'cb',
        name: 'notify',
        documentation: '',
        method: 'post',
        uri: callbackUrl,
        headers: [],
        body: '{"user": "{{urlParam \'id\'}}"}',
        bodyType: 'INLINE',
        databucketID: '',
        filePath: '',
        sendFileAsBody: false,
      },
    ],
    routes: [
      route('get', 'users/me', [response(200, '{"me": true}')]),
      route('get', 'users/:id', [
        response(404, '{"error": "not found"}'),
        response(200, '{"by": "header"}', [
          { target: 'header', modifier: 'X-Role', value: 'admin', operator: 'equals' },
        ]),
        response(201, '{"by": "query regex"}', [
          { target: 'query', modifier: 'filter', value: '^act', operator: 'regex' },
        ]),
        response(202, '{"by": "param"}', [
          { target: 'params', modifier: 'id', value: '42', operator: 'equals' },
        ]),
        response(203, '{"by": "cookie"}', [
          { target: 'cookie', modifier: 'session', value: 'abc', operator: 'equals' },
        ]),
        response(
          200,
          '{"id": "{{urlParam \'id\'}}", "q": "{{queryParam \'q\' \'none\'}}"}',
          [{ target: 'query', modifier: 'echo', value: '1', operator: 'equals' }],
          { callbacks: [{ uuid: 'cb1', latency: 0 }] },
        ),
      ]),
      route('post', 'orders', [
        response(400, '{"error": "bad order"}'),
        response(201, '{"by": "body path"}', [
          { target: 'body', modifier: 'order.type', value: 'express', operator: 'equals' },
        ]),
        response(202, '{"by": "array includes"}', [
          { target: 'body', modifier: 'tags', value: 'vip', operator: 'equals' },
        ]),
        response(203, '{"by": "whole body"}', [
          { target: 'body', modifier: '', value: 'ping', operator: 'equals' },
        ]),
        response(
          204,
          '',
          [
            { target: 'body', modifier: 'a', value: '1', operator: 'equals' },
            { target: 'header', modifier: 'X-B', value: '2', operator: 'equals' },
          ],
          { rulesOperator: 'AND' },
        ),
        response(200, '{"name": "{{body \'name\'}}"}', [
          { target: 'header', modifier: 'X-Echo', value: 'yes', operator: 'equals' },
        ]),
      ]),
      route(
        'get',
        'counter',
        [
          response(200, 'first', [
            { target: 'request_number', modifier: '', value: '1', operator: 'equals' },
          ]),
          response(200, 'second', [
            { target: 'request_number', modifier: '', value: '2', operator: 'equals' },
          ]),
          response(200, 'later'),
        ].map((r, i) => (i === 2 ? { ...r, default: true } : r)),
      ),
      route(
        'get',
        'cycle',
        [response(200, 'one'), response(200, 'two'), response(200, 'three')],
        'SEQUENTIAL',
      ),
      route(
        'get',
        'disabled',
        [
          response(200, 'default'),
          response(201, 'ruled', [
            { target: 'query', modifier: 'x', value: '1', operator: 'equals' },
          ]),
        ],
        'DISABLE_RULES',
      ),
      route(
        'get',
        'fallback/:id',
        [
          response(200, 'only with x', [
            { target: 'query', modifier: 'x', value: '1', operator: 'equals' },
          ]),
        ],
        'FALLBACK',
      ),
      route('get', 'fallback/:id', [response(299, 'next route')]),
      route('get', 'slow', [response(200, 'slow', [], { latency: 300 })]),
      route('get', 'bucket', [
        response(200, '', [], { bodyType: 'DATABUCKET', databucketID: 'abc1' }),
      ]),
      route('get', 'text', [
        response(200, 'plain', [], { headers: [{ key: 'Content-Type', value: 'text/plain' }] }),
      ]),
      route('all', 'anything', [response(200, '{"any": true}')]),
      route('all', 'by-method', [
        response(200, 'any other method'),
        response(201, 'posted', [
          { target: 'method', modifier: '', value: 'post', operator: 'equals' },
        ]),
      ]),
    ],
  }
}
