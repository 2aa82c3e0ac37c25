import { describe, expect, it } from 'vitest'
import type { RequestDslInput } from '../../../src/dsl/index.js'
import { paramPath, routePath } from '../../../importers/mockoon/path.js'
import { applyEffect, ruleOf, rulesOf } from '../../../importers/mockoon/rules.js'

// Mockoon response rules and Express endpoints, one form at a time: what becomes a matcher, and
// what is refused with a reason the import reports.
const path = routePath('/api/', 'users/:id/items/:item')

describe('Mockoon rules as matchers', () => {
  it('honours a method rule only as equals', () => {
    expect(ruleOf({ target: 'method', value: 'post', operator: 'equals' }, path)).toEqual({
      effects: [{ part: 'method', method: 'POST' }],
    })
    for (const rule of [
      { target: 'method', value: 'post', operator: 'regex' },
      { target: 'method', value: 'post', operator: 'equals', invert: true },
    ]) {
      expect(ruleOf(rule, path)).toEqual({
        unsupported: 'a method rule is honoured only as "equals"',
      })
    }
  })

  it('honours a request_number rule only for a number from 1 to 100', () => {
    expect(ruleOf({ target: 'request_number', value: '3', operator: 'equals' }, path)).toEqual({
      effects: [{ part: 'requestNumber', n: 3 }],
    })
    expect(ruleOf({ target: 'request_number', value: '0', operator: 'equals' }, path)).toEqual({
      unsupported:
        'a request_number rule is honoured only as "equals" a number from 1 to 100 (got equals "0")',
    })
  })

  it('reads a dotted query path as the bracketed parameter name, inverted as not_matches', () => {
    const rule = { target: 'query', modifier: 'obj.a.b', value: 'x.y', operator: 'equals' }
    expect(ruleOf({ ...rule, invert: true }, path)).toEqual({
      effects: [
        {
          part: 'queryParams',
          matcher: { key: 'obj[a][b]', matcherName: 'not_matches', matchingValue: 'x\\.y' },
        },
      ],
    })
  })

  it('reads null as absent, and inverted null as present with any value', () => {
    expect(
      ruleOf({ target: 'header', modifier: 'X', value: null, operator: 'null' }, path),
    ).toEqual({
      effects: [
        { part: 'headers', matcher: { key: 'X', matcherName: 'absent', matchingValue: '' } },
      ],
    })
    expect(
      ruleOf({ target: 'header', modifier: 'X', operator: 'null', invert: true }, path),
    ).toEqual({
      effects: [
        { part: 'headers', matcher: { key: 'X', matcherName: 'matches', matchingValue: '(?s).*' } },
      ],
    })
  })

  it('reads empty_array as the empty JSON array, and refuses it inverted', () => {
    expect(ruleOf({ target: 'body', modifier: 'list', operator: 'empty_array' }, path)).toEqual({
      effects: [
        { part: 'body', matcher: { key: "$['list']", matcherName: 'equals', matchingValue: '[]' } },
      ],
    })
    expect(
      ruleOf({ target: 'body', modifier: 'list', operator: 'empty_array', invert: true }, path),
    ).toEqual({ unsupported: 'an inverted empty_array rule has no equivalent' })
  })

  it('turns an object path into JSONPath (escaped dots, indexes, quotes) and also tries array elements', () => {
    // releases before 1.x wrote isRegex instead of an operator
    const out = ruleOf({ target: 'body', modifier: "a\\.b.0.c'd", value: 'v', isRegex: true }, path)
    expect(out).toEqual({
      effects: [
        {
          part: 'body',
          matcher: {
            key: "$['a.b'][0]['c\\'d']",
            matcherName: 'matches',
            matchingValue: '(?s).*(?:v).*',
          },
        },
        {
          part: 'body',
          matcher: {
            key: "$['a.b'][0]['c\\'d'][*]",
            matcherName: 'matches',
            matchingValue: '(?s).*(?:v).*',
          },
        },
      ],
    })
  })

  it('keeps a $ path as written, and inverted regex_i has no array alternative', () => {
    expect(
      ruleOf(
        { target: 'body', modifier: '$.x', value: 'v', operator: 'regex_i', invert: true },
        path,
      ),
    ).toEqual({
      effects: [
        {
          part: 'body',
          matcher: { key: '$.x', matcherName: 'not_matches', matchingValue: '(?i).*(?:v).*' },
        },
      ],
    })
  })

  it('compares the whole body when the rule has no path', () => {
    expect(ruleOf({ target: 'body', value: 5 }, path)).toEqual({
      effects: [{ part: 'body', matcher: { matcherName: 'equals', matchingValue: '5' } }],
    })
  })

  it('puts a params rule into the url, and refuses what a path segment cannot say', () => {
    expect(
      ruleOf({ target: 'params', modifier: 'id', value: '7', operator: 'equals' }, path),
    ).toEqual({
      effects: [
        {
          part: 'url',
          matcher: { matcherName: 'matches_url', matchingValue: '/api/users/(?:7)/items/[^/]+' },
        },
      ],
    })
    expect(
      ruleOf({ target: 'params', modifier: 'id', value: '7', operator: 'null' }, path),
    ).toEqual({
      unsupported: 'a params rule is honoured only with equals or regex (got null)',
    })
    expect(
      ruleOf(
        { target: 'params', modifier: 'id', value: '7', operator: 'equals', invert: true },
        path,
      ),
    ).toEqual({
      unsupported: 'a params rule is honoured only with equals or regex (got equals, inverted)',
    })
    expect(
      ruleOf({ target: 'params', modifier: 'nope', value: '7', operator: 'equals' }, path),
    ).toEqual({
      unsupported: 'the route has no parameter "nope"',
    })
  })

  it('refuses unknown operators and targets, naming them', () => {
    expect(
      ruleOf({ target: 'cookie', modifier: 'c', value: 'v', operator: 'weird' }, path),
    ).toEqual({
      unsupported: 'the "weird" operator has no equivalent',
    })
    expect(ruleOf({ modifier: 'x', value: '7' }, path)).toEqual({
      unsupported: 'rules on an unnamed target have no equivalent',
    })
    expect(ruleOf({ target: 'global_var', value: '7' }, path)).toEqual({
      unsupported: 'rules on "global_var" have no equivalent',
    })
  })

  it('lists only the rules that are objects', () => {
    expect(rulesOf({ rules: [1, { a: 1 }, null] })).toEqual([{ a: 1 }])
    expect(rulesOf({})).toEqual([])
  })

  it('appends matchers and replaces the method and url of a request', () => {
    const request: RequestDslInput = { method: 'GET' }
    applyEffect(request, { part: 'method', method: 'PUT' })
    applyEffect(request, { part: 'requestNumber', n: 2 })
    applyEffect(request, {
      part: 'headers',
      matcher: { key: 'a', matcherName: 'equals', matchingValue: '1' },
    })
    applyEffect(request, {
      part: 'headers',
      matcher: { key: 'b', matcherName: 'equals', matchingValue: '2' },
    })
    applyEffect(request, {
      part: 'url',
      matcher: { matcherName: 'matches_url', matchingValue: '/x' },
    })
    expect(request).toEqual({
      method: 'PUT',
      url: { matcherName: 'matches_url', matchingValue: '/x' },
      headers: [
        { key: 'a', matcherName: 'equals', matchingValue: '1' },
        { key: 'b', matcherName: 'equals', matchingValue: '2' },
      ],
    })
  })
})

describe('Mockoon endpoints as url matchers', () => {
  it('answers the root for an empty prefix and endpoint', () => {
    expect(routePath('', '').url).toEqual({ matcherName: 'equals_url', matchingValue: '/' })
  })

  it('reads Express syntax as a whole-path regex: wildcards, optional parameters, groups', () => {
    expect(routePath('api', 'files/*').url).toEqual({
      matcherName: 'matches_url',
      matchingValue: '/api/files/.*',
    })
    expect(routePath('', 'a/:b?/c+(d)/x.y').url).toEqual({
      matcherName: 'matches_url',
      matchingValue: '/a/[^/]+?/c+(?:d)/x\\.y',
    })
  })

  it('keeps the Express syntax of the other segments when a parameter takes a pattern', () => {
    expect(paramPath(routePath('', 'files/*/:id'), 'id', '1')).toEqual({
      matcherName: 'matches_url',
      matchingValue: '/files/.*/(?:1)',
    })
  })
})
