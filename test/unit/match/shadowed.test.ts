import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Matcher, RequestDsl } from '../../../src/dsl/index.js'
import { findShadowed } from '../../../src/match/index.js'
import { startCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'

const t = (id: number, requestDsl: RequestDsl) => ({ id, name: `t${id}`, dsl: { requestDsl } })
const url = (path: string): Matcher => ({
  key: 'url',
  matcherName: 'equals_url',
  matchingValue: path,
})

describe('findShadowed', () => {
  it('reports a later transaction with the same method and URL and no matcher of its own... only when the earlier covers it', () => {
    const first = t(1, { method: 'GET', url: url('/v1/Services') })
    const twin = t(2, { method: 'GET', url: url('/v1/Services') })
    const narrower = t(3, {
      method: 'GET',
      url: url('/v1/Services'),
      headers: [{ key: 'x', matcherName: 'equals' as const, matchingValue: '1' }],
    })
    const otherMethod = t(4, { method: 'POST', url: url('/v1/Services') })
    const templated = t(5, { method: 'GET', url: url('/v1/Services/{sid}') })
    const renamed = t(6, { method: 'GET', url: url('/v1/Services/{id}') })
    const shadowed = findShadowed([first, twin, narrower, otherMethod, templated, renamed])
    expect(shadowed.map((s) => [s.shadowed.id, s.by.id])).toEqual([
      [2, 1],
      [3, 1],
      [6, 5],
    ])
  })

  it('does not report a later transaction that an earlier narrower one leaves reachable', () => {
    const narrow = t(1, {
      method: 'GET',
      url: url('/a'),
      queryParams: [{ key: 'q', matcherName: 'equals' as const, matchingValue: 'x' }],
    })
    const broad = t(2, { method: 'GET', url: url('/a') })
    const anyMethod = t(3, { url: url('/b') })
    const get = t(4, { method: 'GET', url: url('/b') })
    expect(findShadowed([narrow, broad, anyMethod, get]).map((s) => s.shadowed.id)).toEqual([4])
  })
})

describe('understudy serve', () => {
  it('warns at load about transactions that can never be reached', async () => {
    const dir = tempDir()
    writeFileSync(
      join(dir, 'a.yaml'),
      '- name: services from a\n  dsl: { requestDsl: { method: GET, path: /v1/Services }, responseDsl: { text: a } }\n',
    )
    writeFileSync(
      join(dir, 'b.yaml'),
      '- name: services from b\n  dsl: { requestDsl: { method: GET, path: /v1/Services }, responseDsl: { text: b } }\n',
    )
    const server = await startCli(['serve', dir, '--port', '0', '--log-format', 'json'])
    await server.waitFor('stderr', 'can never be reached')
    // the later file wins ties: a.yaml's transaction is the unreachable one
    expect(server.stderr()).toMatch(
      /transaction 0 \\"services from a\\" \(\S*a\.yaml:1\) can never be reached: transaction 1 \\"services from b\\" \(\S*b\.yaml:1\)/,
    )
    expect(await (await fetch(`${server.url}/v1/Services`)).text()).toBe('b')
  })
})
