import { describe, expect, it } from 'vitest'
import { generatedOperations } from '../../helpers/generated-api.js'
import { matcherOf, request, txn } from '../fixtures/match.js'

/*
 * Diagnosis on a large description: a generated REST API of GitHub's shape, one transaction per
 * operation as the OpenAPI importer makes them (method and equals_url template). Three different
 * wrong paths must get different suggestions, each led by the operation nearest to what was asked.
 */

const transactions = generatedOperations().map(({ method, path }) =>
  txn(`${method} ${path}`, { method, path }),
)
const matcher = matcherOf(transactions)

const suggestions = (method: string, path: string): string[] =>
  matcher.diagnose(request(method, path), 3).map((miss) => miss.name)

describe('diagnosis on a large description', () => {
  it('has hundreds of operations to choose from', () => {
    expect(transactions.length).toBeGreaterThan(800)
  })

  it('suggests the nearest operation first, and different ones for different wrong paths', () => {
    for (const path of [
      '/repos/octocat/hello/pull',
      '/v3/user/repos',
      '/repos/octocat/hello/issues/7/comentz',
    ]) {
      expect(matcher.match(request('GET', path))).toBeNull()
    }
    const typo = suggestions('GET', '/repos/octocat/hello/pull')
    const version = suggestions('GET', '/v3/user/repos')
    const deep = suggestions('GET', '/repos/octocat/hello/issues/7/comentz')
    expect(typo[0]).toBe('GET /repos/{owner}/{repo}/pulls')
    expect(version[0]).toBe('GET /user/repos')
    expect(deep[0]).toBe('GET /repos/{owner}/{repo}/issues/{id}/comments')
    expect(new Set([typo.join(), version.join(), deep.join()]).size).toBe(3)
  })

  it('suggests the operations of the right path when only the method is wrong', () => {
    expect(matcher.match(request('PATCH', '/user/repos'))).toBeNull()
    const names = suggestions('PATCH', '/user/repos')
    expect(names.slice(0, 2).sort()).toEqual(['GET /user/repos', 'POST /user/repos'])
  })

  it('puts a transaction whose method and path match, failing another matcher, before any other', () => {
    const m = matcherOf([
      ...transactions.slice(0, 200),
      txn('search with q', {
        method: 'GET',
        path: '/search/code',
        queryParams: [{ key: 'q', matcherName: 'equals', matchingValue: 'x' }],
      }),
    ])
    expect(m.diagnose(request('GET', '/search/code?q=y'), 1)[0]?.name).toBe('search with q')
  })

  it('stays fast for a hostile path of thousands of segments', () => {
    const started = performance.now()
    matcher.diagnose(request('GET', '/a'.repeat(20_000)), 3)
    // a bound on hanging, far above the usual time, not a speed figure (the test machine is shared)
    expect(performance.now() - started).toBeLessThan(10_000)
  })
})
