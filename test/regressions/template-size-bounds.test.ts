import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli, type CliServer } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

// Defect: helper sizes were unbounded. `faker 'string.alpha' 20000000` answered 20 MB after 3.2 s
// while other requests waited; `lorem.words 5000000` 37 MB. Lengths, counts, generated text and
// rendered text are now bounded (docs/limits.md); past a bound the answer is a 500
// ERR_SERVE_TEMPLATE_LIMIT naming the limit, and a literal past a bound is refused at load.

interface Problem {
  status: number
  code: string
  detail: string
  helper?: string
}

const templated = (method: string, path: string, text: string): unknown => ({
  dsl: { requestDsl: { method, path }, responseDsl: { template: true, text } },
})

async function serve(transactions: unknown[]): Promise<CliServer & { admin: string }> {
  const file = join(tempDir(), 'mock.json')
  writeFileSync(file, JSON.stringify(transactions))
  const server = await startCli(['serve', file, '--port', '0', '--admin-port', '0'])
  await server.waitFor('stdout', /admin on http:\/\/\S+/)
  return { ...server, admin: /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1] as string }
}

async function problemOf(res: Response): Promise<Problem> {
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  return (await res.json()) as Problem
}

describe('response templates are bounded', () => {
  it('answers a length or count above its bound with ERR_SERVE_TEMPLATE_LIMIT naming the limit', async () => {
    const server = await serve([
      templated('GET', '/alpha', "{{faker 'string.alpha' request.query.n}}"),
      templated('GET', '/words', "{{faker 'lorem.words' request.query.n}}"),
      templated('GET', '/random', '{{randomValue length=request.query.n}}'),
    ])
    const cases: Array<[string, RegExp]> = [
      ['/alpha?n=1000000', /length 1000000 is above the limit of 65,536/],
      ['/words?n=100000', /count 100000 is above the limit of 1,000/],
      ['/random?n=1000000', /length 1000000 is above the limit of 65,536/],
    ]
    for (const [path, message] of cases) {
      const res = await fetch(server.url + path)
      expect(res.status, path).toBe(500)
      const problem = await problemOf(res)
      expect(problem.code, path).toBe('ERR_SERVE_TEMPLATE_LIMIT')
      expect(problem.detail, path).toMatch(message)
      expect(problem.detail, path).toContain('docs/limits.md')
    }
    // Within the bounds, the same templates answer.
    expect(await (await fetch(`${server.url}/alpha?n=65536`)).text()).toMatch(/^[A-Za-z]{65536}$/)
    expect((await (await fetch(`${server.url}/words?n=1000`)).text()).split(' ')).toHaveLength(1000)
  })

  it('stops a loop at the generated-text and rendered-text bounds', async () => {
    const server = await serve([
      templated(
        'GET',
        '/generated',
        "{{#each request.query.s}}{{faker 'string.alpha' 65536}}{{/each}}",
      ),
      templated('POST', '/repeated', '{{#each request.query.s}}{{@root.request.body}}{{/each}}'),
      templated('POST', '/selected', "{{jsonPath request.body '$..*'}}"),
    ])
    const many = Array.from({ length: 20 }, () => 's=x').join('&')
    const generated = await fetch(`${server.url}/generated?${many}`)
    expect(generated.status).toBe(500)
    const gp = await problemOf(generated)
    expect(gp).toMatchObject({ code: 'ERR_SERVE_TEMPLATE_LIMIT', helper: 'faker' })
    expect(gp.detail).toMatch(/more than 1,048,576 characters in one render/)

    const body = 'b'.repeat(1 << 20)
    const repeated = await fetch(`${server.url}/repeated?${many}`, { method: 'POST', body })
    expect(repeated.status).toBe(500)
    const rp = await problemOf(repeated)
    expect(rp).toMatchObject({ code: 'ERR_SERVE_TEMPLATE_LIMIT', helper: 'each' })
    expect(rp.detail).toMatch(/longer than 10,485,760 characters \(10 MiB\)/)
    const three = await fetch(`${server.url}/repeated?s=1&s=2&s=3`, { method: 'POST', body })
    expect(three.status).toBe(200)
    expect((await three.text()).length).toBe(3 << 20)

    // `$..*` selects every subtree once per ancestor: 200 levels around 100 KB is 20 MB of text.
    let nested: unknown = 'n'.repeat(100_000)
    for (let i = 0; i < 200; i++) nested = { a: nested }
    const selected = await fetch(`${server.url}/selected`, {
      method: 'POST',
      body: JSON.stringify(nested),
    })
    expect(selected.status).toBe(500)
    expect(await problemOf(selected)).toMatchObject({
      code: 'ERR_SERVE_TEMPLATE_LIMIT',
      helper: 'jsonPath',
    })
  })

  it('refuses at load a literal size above its bound, naming the limit and the field', async () => {
    const server = await serve([templated('GET', '/a', 'a')])
    const variants: Array<[string, RegExp]> = [
      ["{{faker 'string.alpha' 20000000}}", /length 20000000 is above the limit of 65,536/],
      ["{{faker 'lorem.words' 5000000}}", /count 5000000 is above the limit of 1,000/],
      ["{{faker 'string.alpha' length=20000000}}", /length 20000000 is above the limit of 65,536/],
      [
        "{{faker 'helpers.fromRegExp' '[a-z]{20000000}'}}",
        /repeats 20000000 characters, above the limit of 65,536/,
      ],
      ['{{randomValue length=100000}}', /length 100000 is above the limit of 65,536/],
    ]
    for (const [text, message] of variants) {
      const res = await fetch(`${server.admin}/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ transactions: [templated('GET', '/b', text)] }),
      })
      const body = (await res.json()) as {
        error: { code: string; details: Array<{ path: string; message: string }> }
      }
      expect(res.status, text).toBe(400)
      expect(body.error.code, text).toBe('ERR_DSL_INVALID')
      expect(body.error.details[0]?.path, text).toBe('/transactions/0/dsl/responseDsl/content')
      expect(body.error.details[0]?.message, text).toMatch(message)
    }
    expect(await (await fetch(`${server.url}/a`)).text()).toBe('a')
  })
})
