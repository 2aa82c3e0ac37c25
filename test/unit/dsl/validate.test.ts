import { describe, expect, it } from 'vitest'
import { loadDefinitionText, readDefinition } from '../../../src/dsl/index.js'
import { thrown } from '../fixtures/match.js'

/*
 * Invalid definitions throw ERR_DSL_INVALID with every error, each at the JSON pointer of the
 * offending member and, for files, with file:line:column.
 */

interface Detail {
  path: string
  message: string
  file?: string
  line?: number
  column?: number
}
const detailsOf = (value: unknown): Detail[] =>
  thrown(() => readDefinition(value)).details as Detail[]
const pathsOf = (value: unknown): string[] => detailsOf(value).map((d) => d.path)

/** 1-based line and column of the first occurrence of `token` in `text`. */
function positionOf(text: string, token: string): { line: number; column: number } {
  const offset = text.indexOf(token)
  const before = text.slice(0, offset)
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') }
}

describe('schema errors', () => {
  it('are all reported at once, each at its pointer', () => {
    const err = thrown(() =>
      readDefinition({
        priority: -1,
        requestDsl: { method: 'GE T' },
        responseDsl: { status: 99, headers: [{ name: 'bad name', value: 'x' }, { value: 1 }] },
      }),
    )
    expect(err).toMatchObject({
      code: 'ERR_DSL_INVALID',
      statusCode: 400,
      message: 'Invalid mock definition: 5 errors',
    })
    expect(err.details).toEqual([
      { path: '/priority', message: 'must be >= 0' },
      { path: '/requestDsl/method', message: expect.stringContaining('must match pattern') },
      { path: '/responseDsl/status', message: 'must be >= 100' },
      {
        path: '/responseDsl/headers/0/name',
        message: expect.stringContaining('must match pattern'),
      },
      { path: '/responseDsl/headers/1', message: 'must have property "name"' },
    ])
  })

  it('say "1 error" for a single error', () => {
    expect(thrown(() => readDefinition({ requestDsl: { method: 1 } })).message).toBe(
      'Invalid mock definition: 1 error',
    )
  })

  it('refuse an unknown matcher name, listing the known ones and the one meant', () => {
    expect(
      detailsOf({ requestDsl: { url: { matcherName: 'equalz_url', matchingValue: '/a' } } }),
    ).toEqual([
      {
        path: '/requestDsl/url/matcherName',
        message: expect.stringMatching(
          /^must be one of "equals", .*"equals_date" \(did you mean "equals_url"\?\)$/,
        ),
      },
    ])
    expect(
      detailsOf({ requestDsl: { url: { matcherName: 'zzzz', matchingValue: '/a' } } })[0]?.message,
    ).toMatch(/"matches_json_schema", "before_date", "after_date", "equals_date"$/)
  })

  it('refuse a matcher without matcherName and a non-string matchingValue', () => {
    expect(
      detailsOf({
        requestDsl: {
          headers: [{ key: 'a', matchingValue: 'x' }],
          body: [{ matcherName: 'equals', matchingValue: 1 }],
        },
      }),
    ).toEqual([
      { path: '/requestDsl/headers/0', message: 'must have property "matcherName"' },
      { path: '/requestDsl/body/0/matchingValue', message: 'must be string' },
    ])
  })

  it('refuse more than one of text, json and content', () => {
    for (const responseDsl of [
      { text: 'a', json: 1 },
      { text: 'a', content: 'YQ==' },
      { json: 1, content: 'YQ==' },
    ]) {
      expect(detailsOf({ requestDsl: {}, responseDsl })).toEqual([
        {
          path: '/responseDsl',
          message: 'must not combine more than one of `text`, `json` and `content`',
        },
      ])
    }
  })

  it('refuse an unknown delay type and a negative duration', () => {
    const paths = pathsOf({
      requestDsl: {},
      responseDsl: { responseDelay: { type: 'sometimes', duration: -1 } },
    })
    expect(paths).toContain('/responseDsl/responseDelay/type')
    expect(paths).toContain('/responseDsl/responseDelay/duration')
  })

  it('refuse bad mock-service settings', () => {
    const paths = pathsOf({
      transactions: [],
      thinkTime: -1,
      capacity: 0,
      replicas: 0,
      liveSystemPort: 70000,
      endpointPreference: 'ftp',
      noMatchingRequestPreference: 'retry',
      mockServiceTransactions: ['x'],
    })
    for (const path of [
      '/thinkTime',
      '/capacity',
      '/replicas',
      '/liveSystemPort',
      '/endpointPreference',
      '/noMatchingRequestPreference',
      '/mockServiceTransactions/0',
    ]) {
      expect(paths).toContain(path)
    }
  })

  it('report errors of several transactions of a document together', () => {
    expect(
      pathsOf({
        transactions: [
          { dsl: { requestDsl: { method: 'G1' } } },
          { dsl: { requestDsl: {} } },
          { requestDsl: {}, responseDsl: { status: 600 } },
        ],
      }),
    ).toEqual(['/transactions/0/dsl/requestDsl/method', '/transactions/2/responseDsl/status'])
  })

  it('report a dsl without requestDsl', () => {
    expect(detailsOf({ dsl: { responseDsl: {} } })).toEqual([
      { path: '/dsl', message: 'must have property "requestDsl"' },
    ])
  })
})

describe('unknown properties', () => {
  it.each([
    {
      value: { dsl: { requestDsl: {}, reponseDsl: {} } },
      path: '/dsl/reponseDsl',
      meant: 'responseDsl',
    },
    {
      value: { dsl: { requestDsl: { heders: [] } } },
      path: '/dsl/requestDsl/heders',
      meant: 'headers',
    },
    { value: { requestDsl: { methd: 'GET' } }, path: '/requestDsl/methd', meant: 'method' },
    {
      value: { requestDsl: { headers: [{ key: 'a', matcherName: 'equals', matchingValu: 'x' }] } },
      path: '/requestDsl/headers/0/matchingValu',
      meant: 'matchingValue',
    },
    {
      value: { requestDsl: { queryParams: [{ key: 'a', matcherName: 'absent', Optional: true }] } },
      path: '/requestDsl/queryParams/0/Optional',
      meant: 'optional',
    },
    {
      value: { requestDsl: {}, responseDsl: { stauts: 201 } },
      path: '/responseDsl/stauts',
      meant: 'status',
    },
    {
      value: { requestDsl: {}, responseDsl: { responseDelay: { type: 'fixed', duraton: 1 } } },
      path: '/responseDsl/responseDelay/duraton',
      meant: 'duration',
    },
  ])(
    'are reported at the property itself with the nearest known name ($meant)',
    ({ value, path, meant }) => {
      expect(detailsOf(value)).toContainEqual({
        path,
        message: `is not a known property (typo of "${meant}"?)`,
      })
    },
  )

  it('are tolerated on the descriptive fields of transaction records and mock-service documents', () => {
    expect(() => readDefinition({ createdBy: 'x', dsl: { requestDsl: {} } })).not.toThrow()
    expect(() =>
      readDefinition({ status: 'RUNNING', harborId: null, transactions: [] }),
    ).not.toThrow()
  })
})

describe('semantic checks', () => {
  it('require matchingValue for every matcher but absent', () => {
    for (const matcherName of [
      'equals',
      'equals_insensitive',
      'contains',
      'matches',
      'matches_url',
      'not_matches',
      'matches_json',
      'equals_json',
      'equals_xml',
      'matches_xml',
    ]) {
      expect(detailsOf({ requestDsl: { body: [{ matcherName }] } })).toEqual([
        {
          path: '/requestDsl/body/0',
          message: `must have property "matchingValue" for matcher ${matcherName}`,
        },
      ])
    }
    expect(detailsOf({ requestDsl: { url: { matcherName: 'equals_url' } } })).toEqual([
      {
        path: '/requestDsl/url',
        message: 'must have property "matchingValue" for matcher equals_url',
      },
    ])
    expect(() =>
      readDefinition({ requestDsl: { body: [{ matcherName: 'absent' }] } }),
    ).not.toThrow()
  })

  it('require a key naming the header, parameter or cookie, or absent naming it in matchingValue', () => {
    expect(
      detailsOf({
        requestDsl: {
          headers: [{ matcherName: 'equals', matchingValue: 'x' }],
          queryParams: [{ key: '', matcherName: 'contains', matchingValue: 'x' }],
          cookies: [{ matcherName: 'absent' }],
        },
      }),
    ).toEqual([
      { path: '/requestDsl/headers/0', message: 'must have property "key" naming the header' },
      {
        path: '/requestDsl/queryParams/0',
        message: 'must have property "key" naming the parameter',
      },
      { path: '/requestDsl/cookies/0', message: 'must have property "key" naming the cookie' },
    ])
    expect(() =>
      readDefinition({
        requestDsl: { headers: [{ key: '', matcherName: 'absent', matchingValue: 'x-a' }] },
      }),
    ).not.toThrow()
  })

  it('keep body-only matchers on the body and absent off the url', () => {
    expect(
      detailsOf({
        requestDsl: {
          url: { matcherName: 'absent' },
          headers: [{ key: 'a', matcherName: 'equals_json', matchingValue: '1' }],
          queryParams: [{ key: 'a', matcherName: 'matches_xml', matchingValue: '/a' }],
        },
      }),
    ).toEqual([
      {
        path: '/requestDsl/url/matcherName',
        message: 'a request always has a URL; absent cannot apply to it',
      },
      {
        path: '/requestDsl/headers/0/matcherName',
        message: 'equals_json applies only to body matchers',
      },
      {
        path: '/requestDsl/queryParams/0/matcherName',
        message: 'matches_xml applies only to body matchers',
      },
    ])
  })

  it('require equals_json values to be JSON', () => {
    expect(
      detailsOf({ requestDsl: { body: [{ matcherName: 'equals_json', matchingValue: '{' }] } }),
    ).toEqual([
      {
        path: '/requestDsl/body/0/matchingValue',
        message: expect.stringMatching(/^must be JSON: /),
      },
    ])
  })

  it('require base64 content and an absolute http(s) proxyUrl', () => {
    expect(
      detailsOf({ requestDsl: {}, responseDsl: { content: 'not base64!', proxyUrl: 'ftp://x' } }),
    ).toEqual([
      { path: '/responseDsl/proxyUrl', message: 'must be an absolute http:// or https:// URL' },
      {
        path: '/responseDsl/content',
        message: 'must be base64 (use `text` or `json` for a plain body)',
      },
    ])
    expect(detailsOf({ requestDsl: {}, responseDsl: { proxyUrl: '/relative' } })).toEqual([
      { path: '/responseDsl/proxyUrl', message: 'must be an absolute http:// or https:// URL' },
    ])
  })

  it.each([
    { delay: { type: 'fixed' }, missing: ['duration'] },
    { delay: { type: 'Uniform' }, missing: ['lower', 'upper'] },
    { delay: { type: 'uniform', lower: 1 }, missing: ['upper'] },
    { delay: { type: 'LOGNORMAL', median: 5 }, missing: ['sigma'] },
    { delay: { type: 'lognormal' }, missing: ['median', 'sigma'] },
  ])('require the parameters of a $delay.type delay', ({ delay, missing }) => {
    const type = delay.type.toLowerCase()
    expect(detailsOf({ requestDsl: {}, responseDsl: { responseDelay: delay } })).toEqual(
      missing.map((key) => ({
        path: '/responseDsl/responseDelay',
        message: `must have property "${key}" for a ${type} delay`,
      })),
    )
    expect(detailsOf({ transactions: [], thinkTime: delay }).map((d) => d.path)).toEqual(
      missing.map(() => '/thinkTime'),
    )
  })

  it('accept complete delays and none without parameters', () => {
    for (const delay of [
      { type: 'none' },
      { type: 'fixed', duration: 0 },
      { type: 'uniform', lower: 1, upper: 1 },
      { type: 'lognormal', median: 10, sigma: 0.2 },
    ]) {
      expect(() =>
        readDefinition({ requestDsl: {}, responseDsl: { responseDelay: delay } }),
      ).not.toThrow()
    }
  })

  it('refuse a uniform delay whose lower bound is above its upper bound', () => {
    expect(
      detailsOf({
        requestDsl: {},
        responseDsl: { responseDelay: { type: 'uniform', lower: 5, upper: 1 } },
      }),
    ).toEqual([
      { path: '/responseDsl/responseDelay/lower', message: 'must not be greater than upper' },
    ])
  })

  it('refuse duplicate transaction ids', () => {
    expect(
      detailsOf({
        transactions: [
          { id: 1, dsl: { requestDsl: {} } },
          { id: 1, dsl: { requestDsl: {} } },
        ],
      }),
    ).toEqual([{ path: '/transactions/1/id', message: 'duplicates transaction id 1' }])
  })

  it('require an existing noMatchingRequestTxnId for returnTransaction', () => {
    expect(
      detailsOf({ transactions: [], noMatchingRequestPreference: 'returnTransaction' }),
    ).toEqual([
      {
        path: '/noMatchingRequestTxnId',
        message: 'is required when noMatchingRequestPreference is returnTransaction',
      },
    ])
    expect(
      detailsOf({
        transactions: [{ id: 1, dsl: { requestDsl: {} } }],
        noMatchingRequestPreference: 'returntransaction',
        noMatchingRequestTxnId: 2,
      }),
    ).toEqual([
      {
        path: '/noMatchingRequestTxnId',
        message: 'names transaction 2, which is not among the transactions',
      },
    ])
    expect(() =>
      readDefinition({
        transactions: [{ id: 2, dsl: { requestDsl: {} } }],
        noMatchingRequestPreference: 'returnTransaction',
        noMatchingRequestTxnId: 2,
      }),
    ).not.toThrow()
  })

  it('require liveSystemHost for bypasslive', () => {
    for (const liveSystemHost of [undefined, null, '']) {
      const value =
        liveSystemHost === undefined
          ? { transactions: [], noMatchingRequestPreference: 'bypasslive' }
          : { transactions: [], noMatchingRequestPreference: 'bypassLive', liveSystemHost }
      expect(detailsOf(value)).toEqual([
        {
          path: '/liveSystemHost',
          message: 'is required when noMatchingRequestPreference is bypasslive',
        },
      ])
    }
  })

  it('require mockServiceTransactions to name existing transactions', () => {
    expect(
      detailsOf({
        transactions: [{ id: 1, dsl: { requestDsl: {} } }],
        mockServiceTransactions: [1, 3, { txnId: 4 }],
      }),
    ).toEqual([
      {
        path: '/mockServiceTransactions/1',
        message: 'names transaction 3, which is not among the transactions',
      },
      {
        path: '/mockServiceTransactions/2',
        message: 'names transaction 4, which is not among the transactions',
      },
    ])
  })

  it('are all reported at once across transactions', () => {
    expect(
      pathsOf({
        transactions: [
          {
            id: 1,
            dsl: { requestDsl: { headers: [{ matcherName: 'equals', matchingValue: 'x' }] } },
          },
          {
            requestDsl: { url: { matcherName: 'absent' } },
            responseDsl: { responseDelay: { type: 'fixed' } },
          },
        ],
        noMatchingRequestPreference: 'bypasslive',
        mockServiceTransactions: [9],
      }),
    ).toEqual([
      '/transactions/0/dsl/requestDsl/headers/0',
      '/transactions/1/responseDsl/responseDelay',
      '/transactions/1/requestDsl/url/matcherName',
      '/liveSystemHost',
      '/mockServiceTransactions/0',
    ])
  })
})

describe('schema and semantic errors together', () => {
  it('are reported at once', () => {
    expect(
      pathsOf([
        { requestDsl: { method: 'G T' } },
        { requestDsl: { headers: [{ matcherName: 'equals', matchingValue: 'x' }] } },
      ]),
    ).toEqual(['/0/requestDsl/method', '/1/requestDsl/headers/0'])
  })
})

describe('error positions in files', () => {
  it('name file, line and column for YAML', () => {
    const text = [
      'transactions:',
      '  - id: 1',
      '    dsl:',
      '      requestDsl:',
      '        methd: GET',
      '      responseDsl:',
      '        status: 99',
      '  - dsl:',
      '      requestDsl:',
      '        url: {matcherName: equalz_url, matchingValue: /b}',
    ].join('\n')
    const err = thrown(() => loadDefinitionText(text, 'mocks/a.yaml'))
    expect(err).toMatchObject({
      code: 'ERR_DSL_INVALID',
      message: 'Invalid mock definition: mocks/a.yaml: 3 errors',
    })
    expect(err.details).toEqual([
      {
        path: '/transactions/0/dsl/requestDsl/methd',
        message: 'is not a known property (typo of "method"?)',
        file: 'mocks/a.yaml',
        ...positionOf(text, 'GET'),
      },
      {
        path: '/transactions/0/dsl/responseDsl/status',
        message: 'must be >= 100',
        file: 'mocks/a.yaml',
        ...positionOf(text, '99'),
      },
      {
        path: '/transactions/1/dsl/requestDsl/url/matcherName',
        message: expect.stringContaining('must be one of'),
        file: 'mocks/a.yaml',
        ...positionOf(text, 'equalz_url'),
      },
    ])
  })

  it('name file, line and column for JSON', () => {
    const text =
      '{\n  "transactions": [\n    {"dsl": {\n      "requestDsl": {"method": "G T"}\n    }}\n  ]\n}'
    const err = thrown(() => loadDefinitionText(text, 'a.json'))
    expect(err.details).toEqual([
      {
        path: '/transactions/0/dsl/requestDsl/method',
        message: expect.stringContaining('must match pattern'),
        file: 'a.json',
        ...positionOf(text, '"G T"'),
      },
    ])
  })

  it('name the line of semantic errors', () => {
    const text = 'transactions: []\nnoMatchingRequestPreference: bypasslive\n'
    expect(thrown(() => loadDefinitionText(text, 'b.yaml')).details).toEqual([
      {
        path: '/liveSystemHost',
        message: 'is required when noMatchingRequestPreference is bypasslive',
        file: 'b.yaml',
        line: 1,
        column: 1,
      },
    ])
  })

  it('point at the parent of a missing property', () => {
    const text = '- dsl:\n    responseDsl: {}\n'
    expect(thrown(() => loadDefinitionText(text, 'c.yaml')).details).toEqual([
      {
        path: '/0/dsl',
        message: 'must have property "requestDsl"',
        file: 'c.yaml',
        ...positionOf(text, 'responseDsl'),
      },
    ])
  })

  it('name the file but no position for a value read without its text', () => {
    expect(
      thrown(() => readDefinition({ requestDsl: { method: 1 } }, { file: 'x.json' })).details,
    ).toEqual([{ path: '/requestDsl/method', message: 'must be string', file: 'x.json' }])
  })
})
