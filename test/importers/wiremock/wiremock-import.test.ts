import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { loadDefinitionText, originOf } from '../../../src/dsl/index.js'
import { thrown } from '../../helpers/errors.js'
import { compileMatcher, MatchRequest } from '../../../src/match/index.js'
import { importArchive, importFile } from '../../../importers/index.js'
import { importWireMock } from '../../../importers/wiremock/index.js'
import { describeRealworld, readRealworld, realworldFiles } from '../../helpers/realworld.js'

// Golden files: fixtures/<case>.json in, fixtures/<case>.expected.yaml out, compared as normalized
// documents. `bodyFileName` is served from fixtures/__files/.
const fixtures = join(import.meta.dirname, 'fixtures')
const cases = readdirSync(fixtures)
  .filter((f) => f.endsWith('.expected.yaml'))
  .map((f) => f.replace(/\.expected\.yaml$/, ''))
const readFile = (rel: string) => {
  const path = resolve(fixtures, rel)
  return path.startsWith(fixtures) && existsSync(path) ? readFileSync(path) : undefined
}
const stub = (value: unknown, fileName = 'stub.json') => ({
  bytes: Buffer.from(JSON.stringify(value)),
  fileName,
})

describe('importWireMock golden files', () => {
  it('has golden cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(4)
  })

  it.each(cases)('imports fixtures/%s.json as its expected document', (name) => {
    const result = importWireMock(
      { bytes: readFileSync(join(fixtures, `${name}.json`)), fileName: `${name}.json` },
      { readFile },
    )
    const expected = loadDefinitionText(
      readFileSync(join(fixtures, `${name}.expected.yaml`), 'utf8'),
      `${name}.expected.yaml`,
    )
    expect(result.document).toEqual(expected)
    expect(result.format).toBe('wiremock')
    expect(result.dslType).toBe('WIREMOCK_DSL')
  })

  it('warns, naming the stub, about every feature it cannot carry over', () => {
    const { warnings } = importWireMock({
      bytes: readFileSync(join(fixtures, 'unsupported.json')),
      fileName: 'unsupported.json',
    })
    expect(warnings.map((w) => `${w.at ?? ''} ${w.message}`)).toEqual([
      '/mappings/0 stub "templated": request multipartPatterns[0]: matchingType ALL with part headers or a part name is not supported (every part of the request would have to carry them); ALL is supported with bodyPatterns only; not matched',
      '/mappings/0 stub "templated": a post-serve action that is not a webhook with an absolute url is not run',
      '/mappings/2 stub "dribble": bodyPatterns[0]: binaryEqualTo is supported only on the whole body, with bytes that are UTF-8 text; not matched',
      '/mappings/2 stub "dribble": unknown property somethingNew; ignored',
    ])
  })
})

describe('importWireMock dynamic stubs', () => {
  it('maps response templating, faults, scenarios and webhooks onto the DSL', () => {
    const { document, warnings } = importWireMock(
      stub({
        mappings: [
          {
            request: { method: 'GET', urlPath: '/now' },
            response: { body: '{{request.path}}', transformers: ['response-template'] },
            scenarioName: 'clock',
            requiredScenarioState: 'Started',
            newScenarioState: 'Ticked',
            postServeActions: [
              {
                name: 'webhook',
                parameters: {
                  method: 'PUT',
                  url: 'http://hooks.local/x',
                  headers: { 'X-A': '1' },
                  body: 'hi',
                  delay: { type: 'fixed', milliseconds: 5 },
                },
              },
            ],
          },
          { request: { urlPath: '/broken' }, response: { fault: 'CONNECTION_RESET_BY_PEER' } },
          { request: { urlPath: '/odd' }, response: { fault: 'NO_SUCH_FAULT' } },
        ],
      }),
    )
    const [templated, broken] = document.transactions
    expect(templated?.dsl.responseDsl.template).toBe(true)
    expect(templated?.dsl.scenario).toEqual({
      name: 'clock',
      requiredState: 'Started',
      newState: 'Ticked',
    })
    expect(templated?.dsl.responseDsl.postServe).toEqual([
      {
        url: 'http://hooks.local/x',
        method: 'PUT',
        headers: [{ name: 'X-A', value: '1' }],
        body: 'hi',
        delay: 5,
      },
    ])
    expect(broken?.dsl.responseDsl.fault).toEqual({ type: 'connection_reset' })
    expect(document.transactions).toHaveLength(2)
    expect(warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/NO_SUCH_FAULT.*is not one WireMock defines/),
    ])
  })
})

describe('importWireMock mapping decisions', () => {
  it('shifts priorities so that WireMock default 5 lands on the DSL default 10, keeping their order', () => {
    const result = importWireMock(
      stub({
        mappings: [1, 5, undefined, 9].map((priority) => ({
          priority,
          request: { urlPath: `/p${String(priority)}` },
          response: {},
        })),
      }),
    )
    expect(result.document.transactions.map((t) => t.dsl.priority)).toEqual([6, 10, 10, 14])
  })

  it('uses the default priority for a non-integer priority, with a warning', () => {
    const result = importWireMock(
      stub({ priority: 'LOW', request: { urlPath: '/x' }, response: {} }),
    )
    expect(result.document.transactions[0]?.dsl.priority).toBe(10)
    expect(result.warnings[0]?.message).toMatch(/priority "LOW" is not a positive integer/)
  })

  it('maps urlPattern to a path regex, and warns when its query part cannot be split into parameters', () => {
    const result = importWireMock(
      stub({ request: { urlPattern: '/a/.*\\?(x|y)=1' }, response: {} }),
    )
    expect(result.document.transactions[0]?.dsl.requestDsl.url).toEqual({
      key: 'url',
      matcherName: 'matches',
      matchingValue: '/a/.*',
    })
    expect(result.document.transactions[0]?.dsl.requestDsl.queryParams).toBeUndefined()
    expect(result.warnings[0]?.message).toMatch(
      /query part "\(x\|y\)=1" of urlPattern is not matched/,
    )
  })

  it('keeps an escaped ? inside a group as part of the path regex', () => {
    const result = importWireMock(stub({ request: { urlPattern: '/a(\\?.*)?' }, response: {} }))
    expect(result.document.transactions[0]?.dsl.requestDsl.url?.matchingValue).toBe('/a(\\?.*)?')
    expect(result.warnings).toEqual([])
  })

  it('skips a stub whose regex the runtime would refuse, naming the stub', () => {
    const result = importWireMock(
      stub({
        mappings: [
          { name: 'bad', request: { urlPathPattern: '/a/(' }, response: {} },
          { name: 'good', request: { urlPath: '/b' }, response: {} },
        ],
      }),
    )
    expect(result.document.transactions.map((t) => t.name)).toEqual(['good'])
    expect(result.warnings[0]).toMatchObject({
      at: '/mappings/0',
      message: expect.stringMatching(
        /^stub "bad" skipped: the regular expression "\/a\/\(" \(url\) is invalid/,
      ),
    })
  })

  it('reports a missing body file and serves an empty body', () => {
    const result = importWireMock(
      stub({ request: { url: '/f' }, response: { bodyFileName: 'nope.json' } }),
      { readFile },
    )
    expect(result.document.transactions[0]?.dsl.responseDsl.content).toBeUndefined()
    expect(result.warnings[0]?.message).toBe(
      'stub "ANY /f": body file __files/nope.json was not found; the body is empty',
    )
  })

  it('refuses a body file path that leaves __files/', () => {
    const result = importWireMock(
      stub({ request: { url: '/f' }, response: { bodyFileName: '../../secret.txt' } }),
      { readFile: () => Buffer.from('x') },
    )
    expect(result.document.transactions[0]?.dsl.responseDsl.content).toBeUndefined()
    expect(result.warnings[0]?.message).toMatch(/must be a relative path inside __files/)
  })

  it('maps matchers the DSL lacks to warnings, leaving the stub looser', () => {
    const result = importWireMock(
      stub({
        request: {
          urlPath: '/x',
          headers: {
            A: { before: 'now', actualFormat: 'dd/MM/yyyy G' },
            B: { equalToJson: '{}' },
            C: { or: [{ contains: 'x' }, { equalTo: 'y' }] },
          },
          bodyPatterns: [{ equalToJson: '{"a":1}', ignoreExtraElements: true }, { absent: true }],
        },
        response: {},
      }),
    )
    expect(result.document.transactions[0]?.dsl.requestDsl.headers).toBeUndefined()
    expect(result.document.transactions[0]?.dsl.requestDsl.body).toEqual([
      { matcherName: 'equals_json', matchingValue: '{"a":1}', ignoreExtraElements: true },
    ])
    expect(result.warnings.map((w) => w.message)).toEqual([
      'stub "ANY /x": header "A": before actualFormat "dd/MM/yyyy G" letter "G" is not supported (supported: y u M d H h m s S a E Z X x and \'quoted text\'); not matched',
      'stub "ANY /x": header "B": equalToJson applies to request bodies only; not matched',
      'stub "ANY /x": header "C": "or" can be mapped only when every branch is equalTo or matches; not matched',
      'stub "ANY /x": bodyPatterns[1]: "absent" on the whole body cannot be expressed; not matched',
    ])
  })

  it.each([
    [
      'absent: false',
      'headers',
      { absent: false },
      [{ key: 'X', matcherName: 'matches', matchingValue: '[\\s\\S]*' }],
      [],
    ],
    [
      'a number',
      'headers',
      { equalTo: 3 },
      [{ key: 'X', matcherName: 'equals', matchingValue: '3' }],
      [],
    ],
    [
      'includes',
      'headers',
      { includes: [{ equalTo: 'a' }, { contains: 'b' }] },
      [
        { key: 'X', matcherName: 'equals', matchingValue: 'a' },
        { key: 'X', matcherName: 'contains', matchingValue: 'b' },
      ],
      [],
    ],
    [
      'hasExactly',
      'headers',
      { hasExactly: [{ equalTo: 'a' }] },
      [{ key: 'X', matcherName: 'equals', matchingValue: 'a' }],
      [/hasExactly is matched as includes/],
    ],
    [
      'or of matches',
      'headers',
      { or: [{ matches: 'a+' }, { equalTo: 'b.c' }] },
      [{ key: 'X', matcherName: 'matches', matchingValue: '(?:a+)|b\\.c' }],
      [],
    ],
    ['an unknown operator', 'headers', { looksLike: 'x' }, [], [/unknown operator looksLike/]],
    [
      'two operators',
      'headers',
      { equalTo: 'a', contains: 'b' },
      [],
      [/exactly one operator .* found equalTo, contains/],
    ],
    ['no operator', 'headers', { caseInsensitive: true }, [], [/found none/]],
    ['a plain string', 'headers', 'text', [], [/expected a pattern object/]],
    [
      'an operator of the wrong type',
      'headers',
      { equalTo: ['a'] },
      [],
      [/equalTo needs a single value/],
    ],
    [
      'an XPath with namespaces',
      'body',
      { matchesXPath: '//a:b', xPathNamespaces: { a: 'urn:a' } },
      [{ matcherName: 'matches_xml', matchingValue: '//a:b' }],
      [/xPathNamespaces are not supported/],
    ],
    [
      'a JSONPath expression not starting with $',
      'body',
      { matchesJsonPath: { expression: 'a.b', equalTo: '1' } },
      [],
      [/must start with "\$"/],
    ],
    [
      'a JSONPath expression alone',
      'body',
      { matchesJsonPath: { expression: '$.a' } },
      [{ matcherName: 'matches_json', matchingValue: '$.a' }],
      [],
    ],
    [
      'a JSONPath with an absent value',
      'body',
      { matchesJsonPath: { expression: '$.a', absent: true } },
      [{ key: '$.a', matcherName: 'absent', matchingValue: '$.a' }],
      [],
    ],
    [
      'an XML placeholder option',
      'body',
      { equalToXml: '<a/>', enablePlaceholders: true },
      [{ matcherName: 'equals_xml', matchingValue: '<a/>' }],
      [/placeholders are not supported/],
    ],
    [
      'equalToJson that is not JSON',
      'body',
      { equalToJson: '{nope' },
      [],
      [/equalToJson is not valid JSON/],
    ],
    [
      'doesNotContain',
      'body',
      { doesNotContain: 'a.b' },
      [{ matcherName: 'not_matches', matchingValue: '[\\s\\S]*a\\.b[\\s\\S]*' }],
      [],
    ],
  ])('maps a pattern with %s', (_label, part, pattern, matchers, warnings) => {
    const request =
      part === 'body'
        ? { urlPath: '/x', bodyPatterns: [pattern] }
        : { urlPath: '/x', headers: { X: pattern } }
    const result = importWireMock(stub({ request, response: {} }))
    const dsl = result.document.transactions[0]?.dsl.requestDsl
    expect(part === 'body' ? (dsl?.body ?? []) : (dsl?.headers ?? [])).toEqual(matchers)
    expect(result.warnings.map((w) => w.message)).toEqual(
      warnings.map((w) => expect.stringMatching(w)),
    )
  })

  it.each([
    [
      'a fixed distribution',
      { delayDistribution: { type: 'fixed', milliseconds: 30 }, fixedDelayMilliseconds: 5 },
      { responseDelay: { type: 'fixed', duration: 35 } },
      [],
    ],
    [
      'lognormal plus fixed',
      {
        delayDistribution: { type: 'lognormal', median: 50, sigma: 0.1 },
        fixedDelayMilliseconds: 5,
      },
      { responseDelay: { type: 'lognormal', median: 55, sigma: 0.1 } },
      [/added to the lognormal median/],
    ],
    [
      'an unknown distribution',
      { delayDistribution: { type: 'pareto' } },
      {},
      [/delayDistribution .* ignored/],
    ],
    [
      'a negative fixed delay',
      { fixedDelayMilliseconds: -1 },
      {},
      [/fixedDelayMilliseconds is not a non-negative number/],
    ],
    ['a status as text', { status: '404' }, { status: 404 }, []],
    [
      'a status that is no number',
      { status: true },
      { status: 200 },
      [/status true is not a number; 200 is used/],
    ],
    [
      'headers that are not an object',
      { headers: ['a'] },
      {},
      [/response headers must be an object/],
    ],
    [
      'a header value that is not text',
      { headers: { A: { x: 1 }, B: 2 } },
      { headers: [{ name: 'B', value: '2' }] },
      [/header "A" has a value that is not text/],
    ],
    [
      'a body given as JSON',
      { body: { a: 1 } },
      { content: Buffer.from('{"a":1}').toString('base64') },
      [],
    ],
    [
      'two body sources',
      { body: 'a', jsonBody: 1 },
      { content: 'YQ==' },
      [/has body and jsonBody; only body is served/],
    ],
    ['base64Body that is not base64', { base64Body: '***' }, {}, [/base64Body is not base64/]],
    [
      'a templated body file name',
      { bodyFileName: '{{request.path}}.json' },
      {},
      [/is a template, which is not supported/],
    ],
    [
      'proxy extras',
      { proxyBaseUrl: 'http://up.test', additionalProxyRequestHeaders: { A: 'b' } },
      { proxyUrl: 'http://up.test' },
      [/additional proxy request headers are not sent/],
    ],
    ['an unknown property', { colour: 'red' }, {}, [/response has unknown property colour/]],
  ])('maps a response with %s', (_label, response, expected, warnings) => {
    const result = importWireMock(stub({ request: { urlPath: '/x' }, response }), { readFile })
    expect(result.document.transactions[0]?.dsl.responseDsl).toEqual({ status: 200, ...expected })
    expect(result.warnings.map((w) => w.message)).toEqual(
      warnings.map((w) => expect.stringMatching(w)),
    )
  })

  it('skips a stub whose response is not an object, and reports unknown request properties', () => {
    const result = importWireMock(
      stub({
        mappings: [
          { name: 'odd', request: { urlPath: '/a' }, response: 'nope' },
          { name: 'ok', request: { urlPath: '/b', colour: 'red', headers: 'x', bodyPatterns: {} } },
        ],
      }),
    )
    expect(result.document.transactions.map((t) => t.name)).toEqual(['ok'])
    expect(result.warnings.map((w) => w.message)).toEqual([
      'stub "odd": response must be an object; skipped',
      'stub "ok": headers must be an object of name to pattern; not matched',
      'stub "ok": bodyPatterns must be an array; not matched',
      'stub "ok": request has unknown property colour; ignored',
    ])
  })

  it('skips a malformed stub among good ones and fails when every stub is malformed', () => {
    const mixed = importWireMock(
      stub({ mappings: [{ response: {} }, { request: { url: '/ok' } }] }),
    )
    expect(mixed.document.transactions.map((t) => t.name)).toEqual(['ANY /ok'])
    expect(mixed.warnings[0]).toMatchObject({
      at: '/mappings/0',
      message: expect.stringContaining('expected a stub mapping'),
    })

    const text = '{\n  "mappings": [\n    { "response": {} }\n  ]\n}'
    const err = thrown(() => importWireMock({ bytes: Buffer.from(text), fileName: 'm.json' }))
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.details?.[0]).toMatchObject({ file: 'm.json', path: '/mappings/0', line: 3 })
  })

  it('rejects JSON that is not a stub, and broken JSON with its position', () => {
    expect(thrown(() => importWireMock(stub({ hello: 1 }))).message).toMatch(
      /expected a WireMock stub mapping/,
    )
    const err = thrown(() =>
      importWireMock({ bytes: Buffer.from('{\n  "request": {\n'), fileName: 'cut.json' }),
    )
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toMatch(
      /^Cannot import cut\.json: not valid JSON or YAML: .*\(line 3, column \d+\)$/,
    )
  })

  it('records where each transaction came from, for later compile errors', () => {
    const text = '{"mappings": [\n{"request": {"url": "/a"}},\n{"request": {"url": "/b"}}\n]}'
    const doc = importWireMock({ bytes: Buffer.from(text), fileName: 'w.json' }).document
    const origin = originOf(doc.transactions[1] ?? {})
    expect(origin?.file).toBe('w.json')
    expect(origin?.pointer).toBe('/mappings/1')
    expect(origin?.locate?.('/mappings/1/dsl/requestDsl/url')?.line).toBe(3)
  })

  it('serves what the stubs describe', () => {
    const doc = importWireMock({
      bytes: readFileSync(join(fixtures, 'matchers.json')),
      fileName: 'matchers.json',
    }).document
    const matcher = compileMatcher(doc, (txn) => txn.name)
    const match = (
      method: string,
      url: string,
      headers: Record<string, string> = {},
      body?: string,
    ) =>
      matcher.match(
        new MatchRequest(method, url, headers, body === undefined ? null : Buffer.from(body)),
      )?.payload ?? null
    expect(match('GET', '/search?page=2&q=shoes')).toBe('search with exact url')
    expect(match('GET', '/users/17')).toBe('user by template')
    expect(match('GET', '/items/5?sort=asc&limit=10')).toBe('regex with query')
    expect(match('GET', '/items/5?sort=up&limit=10')).toBeNull()
    expect(match('DELETE', '/files/a/b')).toBe('path regex, any method')
    const auth = `Basic ${Buffer.from('ada:s3cret').toString('base64')}`
    const reportHeaders = {
      accept: 'application/json',
      'x-tenant': 'acme-eu',
      'user-agent': 'curl',
      cookie: 'session=beef',
      authorization: auth,
    }
    expect(match('GET', '/reports?year=2024&format=pdf', reportHeaders)).toBe(
      'header and query patterns',
    )
    expect(
      match('GET', '/reports?year=2024&format=pdf', { ...reportHeaders, 'x-debug': '1' }),
    ).toBeNull()
    expect(
      match(
        'POST',
        '/orders',
        { 'content-type': 'application/json' },
        '{"quantity":2,"item":"book"}',
      ),
    ).toBe('json body')
    expect(
      match('POST', '/login', { 'content-type': 'application/x-www-form-urlencoded' }, 'user=ada'),
    ).toBe('form and text body')
    expect(
      match(
        'POST',
        '/login',
        { 'content-type': 'application/x-www-form-urlencoded' },
        'user=ada&role=admin',
      ),
    ).toBeNull()
  })
})

describe('WireMock through the entry point', () => {
  it('imports a zip of mappings/ and __files/, reading bodies from the archive', () => {
    const zip = zipSync({
      'stubs/mappings/hello.json': Buffer.from(
        JSON.stringify({ request: { url: '/hello' }, response: { bodyFileName: 'hello.txt' } }),
      ),
      'stubs/mappings/more.json': readFileSync(join(fixtures, 'responses.json')),
      'stubs/__files/hello.txt': Buffer.from('hello from __files'),
      'stubs/README.md': Buffer.from('# stubs'),
    })
    const result = importArchive(zip, 'stubs.zip')
    expect(result.format).toBe('wiremock')
    const hello = result.document.transactions.find((t) => t.name === 'ANY /hello')
    expect(Buffer.from(hello?.dsl.responseDsl.content ?? '', 'base64').toString()).toBe(
      'hello from __files',
    )
    expect(result.document.transactions).toHaveLength(6)
    expect(result.warnings).toEqual([
      {
        message: 'is not a .json, .yaml, .yml, .har or .txt file; skipped',
        file: 'stubs/README.md',
      },
    ])
  })
})

describeRealworld('real-world WireMock files', () => {
  const files = realworldFiles('wiremock')

  it('finds the files', () => {
    expect(files.length).toBeGreaterThan(0)
  })

  it.each(files)('imports %s without error, through detection', (name) => {
    const result = importFile({ bytes: readRealworld('wiremock', name), fileName: name })
    expect(result.format).toBe('wiremock')
    expect(result.document.transactions.length).toBeGreaterThan(0)
    for (const w of result.warnings) expect(w.message).toMatch(/^stub "/)
  })

  it('carries over the specific facts of the samples', () => {
    const load = (name: string) =>
      importFile({ bytes: readRealworld('wiremock', name), fileName: name })
    expect(load('multi.json').document.transactions.map((t) => t.name)).toEqual([
      'GET /multi/1',
      'GET /multi/2',
      'GET /multi/3',
    ])
    expect(
      load('slow-response.json').document.transactions[0]?.dsl.responseDsl.responseDelay,
    ).toEqual({ type: 'fixed', duration: 500 })
    expect(load('proxy-sample.json').document.transactions[0]?.dsl.responseDsl.proxyUrl).toBe(
      'http://localhost:8087/something',
    )
    expect(load('two.json').document.transactions[0]?.dsl.priority).toBe(9)
    expect(load('docker-user.json').document.transactions[0]?.dsl.requestDsl.queryParams).toEqual([
      { key: 'pretty', matcherName: 'absent', matchingValue: 'pretty' },
    ])
    const scenario = load('several-mappings-in-one-file.json')
    // its three stubs form one scenario
    expect(scenario.document.transactions.map((t) => t.dsl.scenario?.name)).toEqual([
      'To do list',
      'To do list',
      'To do list',
    ])
    // names identify transactions in the control plane: repeats are numbered
    expect(scenario.document.transactions.map((t) => t.name)).toEqual([
      'GET /todo/items',
      'POST /todo/items',
      'GET /todo/items #2',
    ])
  })
})
