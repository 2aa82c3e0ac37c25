/* eslint-disable no-template-curly-in-string -- json-unit placeholders are literal `${...}` strings */
import { describe, expect, it } from 'vitest'
import { matchName, onPart, request } from '../fixtures/match.js'

/*
 * Structured body matchers (docs/architecture.md#matching): matches_json (a JSONPath selects at least one
 * value), equals_json (semantic equality with json-unit placeholders), equals_xml (canonical XML
 * equality) and matches_xml (an XPath selects or holds); and string matchers on JSONPath/XPath
 * selections.
 */

const post = (body: string | null, headers: Record<string, string> = {}) =>
  request('POST', '/', headers, body)

describe('matches_json', () => {
  const order = JSON.stringify({
    order: {
      id: 7,
      items: [
        { sku: 'A', price: 12 },
        { sku: 'B', price: 5 },
      ],
    },
  })

  it('holds when a simple member path selects a value', () => {
    expect(
      matchName(
        onPart('body', { matcherName: 'matches_json', matchingValue: '$.order.id' }),
        post(order),
      ),
    ).toBe('it')
  })

  it('fails when the path selects nothing', () => {
    expect(
      matchName(
        onPart('body', { matcherName: 'matches_json', matchingValue: '$.order.customer' }),
        post(order),
      ),
    ).toBeUndefined()
  })

  it('holds when a member exists with a null value', () => {
    expect(
      matchName(
        onPart('body', { matcherName: 'matches_json', matchingValue: '$.a' }),
        post('{"a":null}'),
      ),
    ).toBe('it')
  })

  it('evaluates filters', () => {
    expect(
      matchName(
        onPart('body', {
          matcherName: 'matches_json',
          matchingValue: '$.order.items[?(@.price < 10)]',
        }),
        post(order),
      ),
    ).toBe('it')
    expect(
      matchName(
        onPart('body', {
          matcherName: 'matches_json',
          matchingValue: '$.order.items[?(@.price > 100)]',
        }),
        post(order),
      ),
    ).toBeUndefined()
    expect(
      matchName(
        onPart('body', {
          matcherName: 'matches_json',
          matchingValue: "$.order.items[?(@.sku == 'B')]",
        }),
        post(order),
      ),
    ).toBe('it')
  })

  it('evaluates wildcards, recursive descent and indexes', () => {
    expect(
      matchName(
        onPart('body', { matcherName: 'matches_json', matchingValue: '$..sku' }),
        post(order),
      ),
    ).toBe('it')
    expect(
      matchName(
        onPart('body', { matcherName: 'matches_json', matchingValue: '$.order.items[1]' }),
        post(order),
      ),
    ).toBe('it')
    expect(
      matchName(
        onPart('body', { matcherName: 'matches_json', matchingValue: '$.order.items[2]' }),
        post(order),
      ),
    ).toBeUndefined()
    expect(
      matchName(
        onPart('body', { matcherName: 'matches_json', matchingValue: "$['order']['items'][*]" }),
        post(order),
      ),
    ).toBe('it')
  })

  it('applies its path to what a JSONPath key selects', () => {
    const m = onPart('body', {
      key: '$.order',
      matcherName: 'matches_json',
      matchingValue: '$.items[?(@.sku == "A")]',
    })
    expect(matchName(m, post(order))).toBe('it')
    expect(matchName(m, post('{"order":{"items":[]}}'))).toBeUndefined()
  })

  it('fails on a body that is not JSON, or on no body', () => {
    const m = onPart('body', { matcherName: 'matches_json', matchingValue: '$' })
    expect(matchName(m, post('<a/>'))).toBeUndefined()
    expect(matchName(m, post(null))).toBeUndefined()
  })

  it('with optional: true holds on an empty body but not on a body that is not JSON', () => {
    const m = onPart('body', { matcherName: 'matches_json', matchingValue: '$.a', optional: true })
    expect(matchName(m, post(null))).toBe('it')
    expect(matchName(m, post('not json'))).toBeUndefined()
  })

  it('with optional: true and a key holds when the key selects nothing (fixed in body.ts)', () => {
    const m = onPart('body', {
      key: '$.order',
      matcherName: 'matches_json',
      matchingValue: '$.id',
      optional: true,
    })
    expect(matchName(m, post('{"other":1}'))).toBe('it')
    expect(matchName(m, post('{"order":{"id":1}}'))).toBe('it')
    expect(matchName(m, post('{"order":{"no":1}}'))).toBeUndefined()
  })
})

describe('equals_json', () => {
  it('ignores key order and whitespace', () => {
    const m = onPart('body', {
      matcherName: 'equals_json',
      matchingValue: '{"a": 1, "b": [true, null, "x"]}',
    })
    expect(matchName(m, post('{\n  "b": [true,null,"x"],\n  "a": 1\n}'))).toBe('it')
  })

  it('fails on a different value, an extra member, a missing member or another array order', () => {
    const m = onPart('body', { matcherName: 'equals_json', matchingValue: '{"a": 1, "b": [1, 2]}' })
    expect(matchName(m, post('{"a": 2, "b": [1, 2]}'))).toBeUndefined()
    expect(matchName(m, post('{"a": 1, "b": [1, 2], "c": 3}'))).toBeUndefined()
    expect(matchName(m, post('{"a": 1}'))).toBeUndefined()
    expect(matchName(m, post('{"a": 1, "b": [2, 1]}'))).toBeUndefined()
  })

  it('does not equate a number with its string form', () => {
    expect(
      matchName(
        onPart('body', { matcherName: 'equals_json', matchingValue: '{"a": 1}' }),
        post('{"a": "1"}'),
      ),
    ).toBeUndefined()
  })

  it.each([
    { placeholder: '${json-unit.any-string}', holds: '"x"', fails: '1' },
    { placeholder: '${json-unit.any-number}', holds: '3.5', fails: '"3.5"' },
    { placeholder: '${json-unit.any-boolean}', holds: 'false', fails: '"false"' },
    { placeholder: '${json-unit.ignore}', holds: '{"deep": [1]}', fails: null },
  ])('accepts $placeholder for a member', ({ placeholder, holds, fails }) => {
    const m = onPart('body', {
      matcherName: 'equals_json',
      matchingValue: `{"id": "${placeholder}", "k": 1}`,
    })
    expect(matchName(m, post(`{"k": 1, "id": ${holds}}`))).toBe('it')
    if (fails !== null) expect(matchName(m, post(`{"k": 1, "id": ${fails}}`))).toBeUndefined()
  })

  it('requires the member that ${json-unit.ignore} stands for to exist', () => {
    const m = onPart('body', {
      matcherName: 'equals_json',
      matchingValue: '{"id": "${json-unit.ignore}", "k": 1}',
    })
    expect(matchName(m, post('{"k": 1}'))).toBeUndefined()
    expect(matchName(m, post('{"k": 1, "x": 2}'))).toBeUndefined()
  })

  it('compares what a JSONPath key selects', () => {
    const m = onPart('body', {
      key: '$.order',
      matcherName: 'equals_json',
      matchingValue: '{"id": "${json-unit.any-number}"}',
    })
    expect(matchName(m, post('{"order": {"id": 3}, "other": true}'))).toBe('it')
    expect(matchName(m, post('{"order": {"id": "3"}}'))).toBeUndefined()
  })

  it('with optional: true and a key holds when the key selects nothing (fixed in body.ts)', () => {
    const m = onPart('body', {
      key: '$.a',
      matcherName: 'equals_json',
      matchingValue: '1',
      optional: true,
    })
    expect(matchName(m, post('{"b": 1}'))).toBe('it')
    expect(matchName(m, post('{"a": 2}'))).toBeUndefined()
  })

  it('fails on a body that is not JSON', () => {
    expect(
      matchName(onPart('body', { matcherName: 'equals_json', matchingValue: '"x"' }), post('x')),
    ).toBeUndefined()
  })
})

describe('string matchers on JSON selections', () => {
  it('compare a selected number through its JSON text', () => {
    const m = onPart('body', { key: '$.order.id', matcherName: 'equals', matchingValue: '7' })
    expect(matchName(m, post('{"order": {"id": 7}}'))).toBe('it')
    expect(matchName(m, post('{"order": {"id": "7"}}'))).toBe('it')
  })

  it('compare a selected object or array through its JSON text', () => {
    const m = onPart('body', { key: '$.tags', matcherName: 'equals', matchingValue: '["a","b"]' })
    expect(matchName(m, post('{"tags": ["a", "b"]}'))).toBe('it')
  })

  it('read members by bracket notation, including names with dots', () => {
    const m = onPart('body', { key: "$['a.b']", matcherName: 'equals', matchingValue: 'x' })
    expect(matchName(m, post('{"a.b": "x", "a": {"b": "y"}}'))).toBe('it')
  })

  it('do not read inherited properties', () => {
    const m = onPart('body', { key: '$.constructor', matcherName: 'absent' })
    expect(matchName(m, post('{}'))).toBe('it')
  })

  it('treat a missing member, or a body that is not JSON, as an absent item', () => {
    const m = onPart('body', { key: '$.a', matcherName: 'absent' })
    expect(matchName(m, post('{"b": 1}'))).toBe('it')
    expect(matchName(m, post('not json'))).toBe('it')
    expect(matchName(m, post('{"a": null}'))).toBeUndefined()
  })
})

describe('equals_xml', () => {
  const wanted =
    '<order xmlns:p="urn:shop" id="7" kind="retail"><p:item sku="A">pen</p:item></order>'

  it('ignores attribute order, whitespace, comments and the XML declaration', () => {
    const m = onPart('body', { matcherName: 'equals_xml', matchingValue: wanted })
    const body =
      '<?xml version="1.0"?>\n<order kind="retail" id="7" xmlns:p="urn:shop">\n  <!-- c -->\n  <p:item sku="A"> pen </p:item>\n</order>'
    expect(matchName(m, post(body))).toBe('it')
  })

  it('ignores namespace prefixes, comparing namespace URIs', () => {
    const m = onPart('body', { matcherName: 'equals_xml', matchingValue: wanted })
    expect(
      matchName(
        m,
        post('<order id="7" kind="retail" xmlns:q="urn:shop"><q:item sku="A">pen</q:item></order>'),
      ),
    ).toBe('it')
    expect(
      matchName(
        m,
        post('<order id="7" kind="retail"><item xmlns="urn:shop" sku="A">pen</item></order>'),
      ),
    ).toBe('it')
    expect(
      matchName(
        m,
        post(
          '<order id="7" kind="retail" xmlns:p="urn:other"><p:item sku="A">pen</p:item></order>',
        ),
      ),
    ).toBeUndefined()
  })

  it('fails on different text, a different attribute value or an extra element', () => {
    const m = onPart('body', { matcherName: 'equals_xml', matchingValue: wanted })
    expect(matchName(m, post(wanted.replace('pen', 'ink')))).toBeUndefined()
    expect(matchName(m, post(wanted.replace('id="7"', 'id="8"')))).toBeUndefined()
    expect(matchName(m, post(wanted.replace('</order>', '<x/></order>')))).toBeUndefined()
  })

  it('compares the nodes an XPath key selects', () => {
    const m = onPart('body', {
      key: '/envelope/body/*',
      matcherName: 'equals_xml',
      matchingValue: '<ping n="1"/>',
    })
    expect(matchName(m, post('<envelope><head/><body><ping n="1"></ping></body></envelope>'))).toBe(
      'it',
    )
    expect(matchName(m, post('<envelope><body><ping n="2"/></body></envelope>'))).toBeUndefined()
  })

  it('fails on a body that is not well-formed XML', () => {
    expect(
      matchName(onPart('body', { matcherName: 'equals_xml', matchingValue: '<a/>' }), post('<a>')),
    ).toBeUndefined()
  })

  it('with optional: true and a key holds when the key selects nothing (fixed in body.ts)', () => {
    const m = onPart('body', {
      key: '/a/b',
      matcherName: 'equals_xml',
      matchingValue: '<b>1</b>',
      optional: true,
    })
    expect(matchName(m, post('<a><c/></a>'))).toBe('it')
    expect(matchName(m, post('<a><b>2</b></a>'))).toBeUndefined()
  })
})

describe('matches_xml', () => {
  const body = '<order id="7"><item>pen</item><item>ink</item></order>'

  it('holds when the XPath selects a node', () => {
    expect(
      matchName(
        onPart('body', { matcherName: 'matches_xml', matchingValue: '/order/item[. = "ink"]' }),
        post(body),
      ),
    ).toBe('it')
    expect(
      matchName(
        onPart('body', { matcherName: 'matches_xml', matchingValue: '/order/@id' }),
        post(body),
      ),
    ).toBe('it')
  })

  it('fails when the XPath selects nothing', () => {
    expect(
      matchName(
        onPart('body', { matcherName: 'matches_xml', matchingValue: '/order/item[. = "cap"]' }),
        post(body),
      ),
    ).toBeUndefined()
  })

  it('uses the value of a boolean expression', () => {
    expect(
      matchName(
        onPart('body', { matcherName: 'matches_xml', matchingValue: 'count(/order/item) = 2' }),
        post(body),
      ),
    ).toBe('it')
    expect(
      matchName(
        onPart('body', { matcherName: 'matches_xml', matchingValue: 'count(/order/item) = 3' }),
        post(body),
      ),
    ).toBeUndefined()
  })

  it('applies its XPath to the nodes an XPath key selects', () => {
    const m = onPart('body', {
      key: '/order/item',
      matcherName: 'matches_xml',
      matchingValue: 'self::*[. = "ink"]',
    })
    expect(matchName(m, post(body))).toBe('it')
    expect(matchName(m, post('<order><item>pen</item></order>'))).toBeUndefined()
  })

  it('fails on a JSON body', () => {
    expect(
      matchName(
        onPart('body', { matcherName: 'matches_xml', matchingValue: '/*' }),
        post('{"order": 1}'),
      ),
    ).toBeUndefined()
  })

  it('with optional: true holds on an empty body', () => {
    expect(
      matchName(
        onPart('body', { matcherName: 'matches_xml', matchingValue: '/order', optional: true }),
        post(null),
      ),
    ).toBe('it')
  })
})

describe('string matchers on XPath selections', () => {
  it('read attribute values', () => {
    const m = onPart('body', { key: '/order/@id', matcherName: 'equals', matchingValue: '7' })
    expect(matchName(m, post('<order id="7"/>'))).toBe('it')
    expect(matchName(m, post('<order id="8"/>'))).toBeUndefined()
  })

  it('read text() nodes', () => {
    const m = onPart('body', {
      key: '/order/item[2]/text()',
      matcherName: 'equals',
      matchingValue: 'ink',
    })
    expect(matchName(m, post('<order><item>pen</item><item>ink</item></order>'))).toBe('it')
    expect(matchName(m, post('<order><item>pen</item></order>'))).toBeUndefined()
  })

  it('take a key that does not start with / as a form field, even one that reads as XPath', () => {
    const m = onPart('body', {
      key: 'count(/order/item)',
      matcherName: 'equals',
      matchingValue: '2',
    })
    expect(matchName(m, post('<order><item/><item/></order>'))).toBeUndefined()
  })

  it('read element text including descendants', () => {
    const m = onPart('body', { key: '/a', matcherName: 'equals', matchingValue: 'xy' })
    expect(matchName(m, post('<a>x<b>y</b></a>'))).toBe('it')
  })

  it('treat a body that is not XML as an absent item', () => {
    expect(matchName(onPart('body', { key: '/a', matcherName: 'absent' }), post('{"a": 1}'))).toBe(
      'it',
    )
    expect(
      matchName(
        onPart('body', { key: '/a', matcherName: 'equals', matchingValue: '1' }),
        post('{"a": 1}'),
      ),
    ).toBeUndefined()
  })
})

describe('whole-body matchers', () => {
  it('see the body as UTF-8 text', () => {
    const m = onPart('body', { matcherName: 'equals', matchingValue: 'héllo ✓' })
    expect(matchName(m, post('héllo ✓'))).toBe('it')
  })

  it('treat an empty body as absent', () => {
    expect(matchName(onPart('body', { matcherName: 'absent' }), post(''))).toBe('it')
    expect(
      matchName(onPart('body', { matcherName: 'contains', matchingValue: '' }), post('')),
    ).toBeUndefined()
  })

  it('match a regex against the whole body, across lines only with (?s)', () => {
    expect(
      matchName(onPart('body', { matcherName: 'matches', matchingValue: 'a.*c' }), post('a\nb\nc')),
    ).toBeUndefined()
    expect(
      matchName(
        onPart('body', { matcherName: 'matches', matchingValue: '(?s)a.*c' }),
        post('a\nb\nc'),
      ),
    ).toBe('it')
  })

  it('do not let (?m) turn a whole-body match into a line match (fixed in regex.ts)', () => {
    const m = onPart('body', { matcherName: 'matches', matchingValue: '(?m)^b$' })
    expect(matchName(m, post('a\nb\nc'))).toBeUndefined()
    expect(matchName(m, post('b'))).toBe('it')
  })
})
