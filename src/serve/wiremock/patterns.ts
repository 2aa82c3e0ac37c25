import type { MockServiceDocument } from '../../dsl/index.js'
import { compileMatcher, MatchRequest, type CompiledMatcher } from '../../match/index.js'
import { isUnderstudyError } from '../../errors/index.js'
import { convertStub, refuseProblems, type WireMockConverter } from './convert.js'
import { invalidInput, malformed, WireMockError } from './errors.js'

/**
 * A WireMock request pattern (`{method, url..., headers, bodyPatterns...}`, as `/requests/count`,
 * `/find`, `/remove` and `/near-misses/request-pattern` take it) compiled with the stubs' own
 * importer and matcher, so that a pattern means exactly what it means in a stub.
 *
 * @example
 * compileRequestPattern({ method: 'POST', urlPath: '/orders' }, convert).match(request) !== null
 */
export function compileRequestPattern(
  pattern: unknown,
  convert: WireMockConverter,
): CompiledMatcher<null> {
  if (typeof pattern !== 'object' || pattern === null || Array.isArray(pattern)) {
    throw malformed('the body must be a request pattern object')
  }
  return compileOne({ request: pattern, response: {} }, convert, (p) => p.replace(/^\/request/, ''))
}

/**
 * A content pattern on stub or request metadata (`{matchesJsonPath: {expression, equalTo}}`,
 * `{equalToJson: {...}}`), tested by matching the metadata as a JSON body.
 *
 * @example
 * compileMetadataPattern({ matchesJsonPath: '$.tag' }, convert)({ tag: 'x' }) // true
 */
export function compileMetadataPattern(
  pattern: unknown,
  convert: WireMockConverter,
): (metadata: unknown) => boolean {
  if (typeof pattern !== 'object' || pattern === null || Array.isArray(pattern)) {
    throw malformed(
      'the body must be a content pattern object such as {"matchesJsonPath": "$.key"}',
    )
  }
  const matcher = compileOne({ request: { bodyPatterns: [pattern] }, response: {} }, convert, (p) =>
    p.replace(/^\/request\/bodyPatterns\/0/, ''),
  )
  return (metadata) => {
    if (metadata === undefined || metadata === null) return false
    const req = new MatchRequest(
      'POST',
      '/',
      { 'content-type': 'application/json' },
      Buffer.from(JSON.stringify(metadata)),
    )
    return matcher.match(req) !== null
  }
}

function compileOne(
  stub: Record<string, unknown>,
  convert: WireMockConverter,
  rewrite: (pointer: string) => string,
): CompiledMatcher<null> {
  const conversion = convertStub(convert, stub)
  refuseProblems(conversion.problems, rewrite)
  const doc = {
    mockServiceTransactions: [],
    transactions: conversion.transactions,
  } as unknown as MockServiceDocument
  try {
    return compileMatcher(doc, () => null)
  } catch (err) {
    if (!isUnderstudyError(err, 'ERR_DSL_INVALID')) throw err
    const details = err.details ?? []
    if (details.length === 0) throw invalidInput('', err.message)
    throw new WireMockError(
      422,
      details.map((d) => ({ code: 10, source: { pointer: '' }, title: d.message })),
    )
  }
}
