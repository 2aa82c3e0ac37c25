import Handlebars from 'handlebars'
import { describe, expect, it, vi } from 'vitest'
import { createTemplateEngine } from '../../../src/serve/template/engine.js'
import { templateHelpers } from '../../../src/serve/template/helpers.js'
import { newBudget } from '../../../src/serve/template/budget.js'
import { contextFields } from '../../../src/serve/template/reads.js'
import { Faker, en } from '@faker-js/faker'

// The engine renders with a runtime prepared once (engine.ts preparedRuntime) instead of the set-up
// Handlebars repeats on every render. These cases are the behaviours that set-up provides: each
// must render exactly as Handlebars' own path renders it.
const context = {
  request: {
    path: Object.assign(Object.create(null) as Record<string, unknown>, {
      0: 'orders',
      id: '42',
      toString: () => '/orders/42',
    }),
    pathSegments: ['orders', '42'],
    query: { x: 'y', list: ['a', 'b'] },
    headers: { 'x-trace': 't-1' },
    body: '{"customer":{"name":"Ada"},"items":[1,2,3]}',
    flag: true,
    items: [{ n: 'one' }, { n: 'two' }],
  },
}

const cases: Array<[string, string]> = [
  ['a plain path', '{{request.headers.x-trace}} {{request.query.x}}'],
  ['a helper', "{{math 2 '+' 3}} {{base64 'hi'}} {{join request.pathSegments '-'}}"],
  ['a helper reading the body', "{{jsonPath request.body '$.customer.name'}}"],
  [
    'the built-in lookup (uses options.lookupProperty)',
    "{{lookup request.query 'x'}} {{lookup request.pathSegments 1}}",
  ],
  [
    'each with @index, @first and @root',
    '{{#each request.items}}{{@index}}:{{n}}:{{@first}}:{{@root.request.query.x}};{{/each}}',
  ],
  [
    'with and a parent path',
    '{{#with request.query}}{{x}}/{{../request.headers.x-trace}}{{/with}}',
  ],
  [
    'a block on a value (blockHelperMissing)',
    '{{#request.flag}}on{{/request.flag}}{{^request.missing}}off{{/request.missing}}',
  ],
  [
    'a missing value (helperMissing is not called for it)',
    '[{{request.nothing}}][{{nothing.at.all}}]',
  ],
  [
    'if, unless and else',
    '{{#if request.flag}}yes{{else}}no{{/if}}{{#unless request.flag}}x{{/unless}}',
  ],
  [
    'comparison blocks',
    "{{#eq request.query.x 'y'}}eq{{/eq}}{{#if (and (gt 5 3) (not false))}}ok{{/if}}",
  ],
  [
    'the path object as text and as members',
    '{{request.path}} {{request.path.id}} {{request.path.[0]}}',
  ],
  [
    'prototype members stay hidden',
    '[{{request.query.toString}}][{{request.body.toUpperCase}}][{{lookup request request.query.x}}]',
  ],
]

/** The same helpers through Handlebars' own compile and render path. */
function reference(source: string): string {
  const hb = Handlebars.create()
  hb.registerHelper(templateHelpers(new Faker({ locale: [en] }), newBudget()))
  return hb.compile(source, { noEscape: true, strict: false })(context)
}

describe('template engine: the prepared runtime renders as Handlebars does', () => {
  const engine = createTemplateEngine(1)
  for (const [name, source] of cases) {
    it(name, () => {
      const expected = reference(source)
      expect(engine.compile(source)(context)).toBe(expected)
    })
  }

  it('renders the expected text, not only the same text', () => {
    expect(engine.compile('{{#each request.items}}{{@index}}:{{n}};{{/each}}')(context)).toBe(
      '0:one;1:two;',
    )
    expect(engine.compile('{{lookup request.query "x"}}')(context)).toBe('y')
    expect(() =>
      engine.compile(
        '{{#*inline "item"}}<{{n}}>{{/inline}}{{#each request.items}}{{> item}}{{/each}}',
      ),
    ).toThrow(/decorators .* are not supported/)
    expect(() => engine.compile('[{{request.constructor}}]')).toThrow(
      /"constructor" is not reachable/,
    )
    expect(() => engine.compile('[{{lookup request "constructor"}}]')).toThrow(/not reachable/)
  })

  it('parses a body once per render however often a loop asks jsonPath or xPath for it', () => {
    const parse = vi.spyOn(JSON, 'parse')
    try {
      const template = engine.compile(
        "{{#each request.items}}{{jsonPath @root.request.body '$.customer.name'}}{{/each}}",
      )
      expect(template(context)).toBe('AdaAda')
      expect(parse).toHaveBeenCalledTimes(1)
      expect(template(context)).toBe('AdaAda')
      expect(parse).toHaveBeenCalledTimes(2)
    } finally {
      parse.mockRestore()
    }
  })

  it('keeps renders of one template apart (no state carried from one render to the next)', () => {
    const template = engine.compile(
      '{{#each request.items}}{{@root.request.query.x}}{{n}}{{/each}}',
    )
    expect(template(context)).toBe('yoneytwo')
    expect(template({ request: { query: { x: 'z' }, items: [{ n: 'three' }] } })).toBe('zthree')
    expect(template(context)).toBe('yoneytwo')
  })
})

describe('template engine: what a template reads of its context', () => {
  const engine = createTemplateEngine(1)
  const readsOf = (source: string): string[] | 'all' => {
    const reads = engine.compile(source).reads
    return reads === 'all' ? 'all' : [...reads].sort()
  }

  it('names the request and response fields its paths use, in helpers, blocks and sub-expressions', () => {
    expect(readsOf('{{request.path}}')).toEqual(['request.path'])
    expect(
      readsOf(
        "{{jsonPath request.body '$.x'}} {{#eq request.query.x 'y'}}{{request.headers.a}}{{/eq}}",
      ),
    ).toEqual(['request.body', 'request.headers', 'request.query'])
    expect(readsOf('{{#if (gt (size request.pathSegments) 1)}}{{response.status}}{{/if}}')).toEqual(
      ['request.pathSegments', 'response.status'],
    )
    expect(readsOf("{{math 1 '+' 2}} {{now}}")).toEqual([])
    expect(readsOf('{{#each request.items}}{{@index}}{{@root.request.method}}{{/each}}')).toEqual([
      'request.items',
      'request.method',
    ])
  })

  it('reads everything when a path can reach the whole context', () => {
    expect(readsOf('{{toJson request}}')).toBe('all')
    expect(readsOf('{{#with request}}{{headers.a}}{{/with}}')).toBe('all')
    expect(readsOf("{{lookup this 'request'}}")).toBe('all')
    expect(readsOf('{{@root}}')).toBe('all')
    expect(readsOf('{{#each request.pathSegments}}{{this}}{{/each}}')).toBe('all')
  })

  it('turns what templates read into the context fields a request builds', () => {
    const fields = contextFields(
      engine.compile("{{request.headers.a}} {{jsonPath response.body '$.x'}}").reads,
    )
    expect(
      Object.entries(fields)
        .filter(([, on]) => on)
        .map(([name]) => name),
    ).toEqual(['headers', 'responseBody'])
    expect(
      Object.values(contextFields(engine.compile('{{toJson request}}').reads)).every((on) => on),
    ).toBe(true)
  })

  it('walks nested blocks', () => {
    const depth = 100
    const source = '{{#if true}}'.repeat(depth) + '{{request.cookies.a}}' + '{{/if}}'.repeat(depth)
    expect(readsOf(source)).toEqual(['request.cookies'])
  })
})
