import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

// Defect: `xPath` in a response template had bounded output but unbounded CPU. An expression
// nesting paths in predicates (`count(//*[//*[//nothing]])`) visits nodes times nodes times
// nodes, and both the XML (the request body) and the expression may come from the request: one
// request held the runtime for seconds. The XML parsed, the expression's length and the nodes
// visited per render are now bounded; past a bound the answer is 500 ERR_SERVE_TEMPLATE_LIMIT
// naming the limit (docs/limits.md), and the runtime goes on answering.

interface Problem {
  status: number
  code: string
  detail: string
  helper?: string
}

const templated = (path: string, text: string): unknown => ({
  dsl: { requestDsl: { method: 'POST', path }, responseDsl: { template: true, text } },
})

const elements = (n: number): string => `<r>${'<a>x</a>'.repeat(n)}</r>`

describe('xPath in a template is bounded in work, not only in output', () => {
  it(
    'stops a super-linear expression, a large body and a long expression with ERR_SERVE_TEMPLATE_LIMIT',
    { timeout: 60_000 },
    async () => {
      const file = join(tempDir(), 'mock.json')
      writeFileSync(
        file,
        JSON.stringify([
          templated('/select', '{{xPath request.body request.query.q}}'),
          templated('/name', "{{xPath request.body '/r/a[2]'}}"),
        ]),
      )
      const server = await startCli(['serve', file, '--port', '0'])
      const call = async (path: string, body: string): Promise<Response> =>
        await fetch(server.url + path, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/xml' },
        })
      const cases: Array<[string, string, RegExp]> = [
        // 3,000 elements: 27,000,000,000 visits without the bound
        [
          `/select?q=${encodeURIComponent('count(//*[//*[//nothing]])')}`,
          elements(3000),
          /visited more than 500,000 nodes, the limit/,
        ],
        [
          '/name',
          `<r>${'<a>x</a>'.repeat(40_000)}</r>`,
          /XML given to xPath is longer than 262,144 characters \(256 KiB\), the limit/,
        ],
        [
          `/select?q=${encodeURIComponent('/r' + '/a'.repeat(600))}`,
          elements(3),
          /XPath expression is longer than 1,000 characters, the limit/,
        ],
      ]
      for (const [path, body, message] of cases) {
        const started = performance.now()
        const res = await call(path, body)
        expect(res.status, path).toBe(500)
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
        const problem = (await res.json()) as Problem
        expect(problem.code, path).toBe('ERR_SERVE_TEMPLATE_LIMIT')
        expect(problem.detail, path).toMatch(message)
        expect(problem.helper, path).toBe('xPath')
        // Generous for a shared machine: the unbounded expression ran for minutes.
        expect(performance.now() - started, path).toBeLessThan(30_000)
      }
      // Within the bounds, the same templates answer as before.
      expect(
        await (await call(`/select?q=${encodeURIComponent('count(//a)')}`, elements(3000))).text(),
      ).toBe('3000')
      expect(await (await call('/name', '<r><a>one</a><a>two</a></r>')).text()).toBe('two')
      expect(
        await (
          await call(`/select?q=${encodeURIComponent('count(//*[//*])')}`, elements(200))
        ).text(),
      ).toBe('201')
    },
  )
})

// Defect: the same for `jsonPath`: `$..*..*` walks every subtree of every node (2.6 s over a body
// nested 400 deep; a third `..*` ran for minutes), and one `..*` over a body nested 30,000 deep
// builds a path per node as long as its depth. At most one recursive descent per expression, and
// a body nested at most 512 levels, are read.
describe('jsonPath in a template is bounded in work', () => {
  it(
    'refuses a second recursive descent and a body nested past 512 levels with ERR_SERVE_TEMPLATE_LIMIT',
    { timeout: 60_000 },
    async () => {
      const file = join(tempDir(), 'mock.json')
      writeFileSync(
        file,
        JSON.stringify([templated('/json', '{{jsonPath request.body request.query.q}}')]),
      )
      const server = await startCli(['serve', file, '--port', '0'])
      const call = async (q: string, body: string): Promise<Response> =>
        await fetch(`${server.url}/json?q=${encodeURIComponent(q)}`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json' },
        })
      const deep = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n)
      const cases: Array<[string, string, RegExp]> = [
        ['$..*..*', deep(400), /more than one recursive descent \(\.\.\), the limit/],
        ['$..a', deep(30_000), /nests deeper than 512 levels, the limit/],
        [
          '$.' + 'a.'.repeat(600) + 'a',
          deep(3),
          /JSONPath expression is longer than 1,000 characters, the limit/,
        ],
      ]
      for (const [q, body, message] of cases) {
        const res = await call(q, body)
        expect(res.status, q.slice(0, 20)).toBe(500)
        const problem = (await res.json()) as Problem
        expect(problem.code).toBe('ERR_SERVE_TEMPLATE_LIMIT')
        expect(problem.detail).toMatch(message)
        expect(problem.helper).toBe('jsonPath')
      }
      expect(await (await call('$..id', '{"items":[{"id":7},{"id":8}]}')).text()).toBe('[7,8]')
      expect(await (await call('$.a.a', deep(3))).text()).toBe('{"a":1}')
    },
  )
})
