import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli, startCli, type CliServer } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

// Defect: a response template reached `Function` through the faker helper, which resolved any
// property path of the faker object: `{{#with (faker 'constructor.constructor' "return ...")}}`
// ran code as the runtime's user (it answered the process id; a variant wrote a file). Templates
// now resolve own, allow-listed data only; these are the variants, through each way a template
// arrives (a served file, PUT /config on the admin port, a WireMock stub).

interface Problem {
  status: number
  code: string
  detail: string
  helper?: string
}

const templated = (path: string, text: string): unknown => ({
  dsl: { requestDsl: { method: 'GET', path }, responseDsl: { template: true, text } },
})

/** Serves `transactions` from a file with the admin port open. */
async function serve(dir: string, transactions: unknown[]): Promise<CliServer & { admin: string }> {
  const file = join(dir, 'mock.json')
  writeFileSync(file, JSON.stringify(transactions))
  const server = await startCli(['serve', file, '--port', '0', '--admin-port', '0'])
  await server.waitFor('stdout', /admin on http:\/\/\S+/)
  return { ...server, admin: /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1] as string }
}

describe('templates never run code', () => {
  it('refuses a faker name from the request that is not a faker method, and runs nothing', async () => {
    const dir = tempDir()
    const server = await serve(dir, [
      templated(
        '/faker',
        '{{#with (faker request.query.name request.query.code)}}{{this}}{{/with}}',
      ),
      templated('/fake', "{{faker 'helpers.fake' request.query.pattern}}"),
    ])
    const pid = String(server.child.pid)
    const marker = join(dir, 'written-by-template')
    const code = `return process.getBuiltinModule('fs').writeFileSync(${JSON.stringify(marker)}, 'x') || process.pid`
    const variants = [
      'constructor.constructor',
      '__proto__.constructor',
      'person.constructor.constructor',
      'person.faker',
      'helpers.multiple',
      'helpers.maybe',
    ]
    for (const name of variants) {
      const res = await fetch(
        `${server.url}/faker?name=${encodeURIComponent(name)}&code=${encodeURIComponent(code)}`,
      )
      const text = await res.text()
      expect(res.status, name).toBe(500)
      expect((JSON.parse(text) as Problem).code, name).toBe('ERR_SERVE_TEMPLATE')
      expect(text, name).not.toContain(pid)
    }
    expect(existsSync(marker)).toBe(false)

    // faker's own `fake` walks any property path; the runtime expands only catalogue methods.
    for (const pattern of [
      '{{constructor.constructor("return process.pid")}}',
      '{{helpers.fake("{{person.firstName}}")}}',
      '{{definitions.person}}',
    ]) {
      const res = await fetch(`${server.url}/fake?pattern=${encodeURIComponent(pattern)}`)
      const text = await res.text()
      expect(res.status, pattern).toBe(500)
      expect(text, pattern).not.toContain(pid)
    }
    const ok = await fetch(`${server.url}/faker?name=person.firstName`)
    expect(ok.status).toBe(200)
    expect(await ok.text()).toMatch(/^\S+$/)
    const fake = await fetch(
      `${server.url}/fake?pattern=${encodeURIComponent('{{person.firstName}} <{{internet.email}}>')}`,
    )
    expect(await fake.text()).toMatch(/^\S+ <\S+@\S+>$/)
  })

  it('gives templates no function to call among the request values', async () => {
    const server = await serve(tempDir(), [
      // request.path renders as the path and has the segments as members; its conversion was an
      // own function that a loop, a path or jsonPath handed to the template.
      templated(
        '/items/{id}',
        "{{#each request.path}}[{{@key}}={{this}}]{{/each}}|{{request.path.toString}}|{{jsonPath request.path '$.valueOf'}}|{{request.path}}|{{request.query.q}}",
      ),
      templated(
        '/lookup',
        '[{{lookup (lookup request request.query.a) request.query.b}}][{{lookup request.body request.query.c}}]',
      ),
    ])
    const res = await fetch(`${server.url}/items/7?q=one&q=two`)
    expect(await res.text()).toBe('[0=items][1=7][id=7]|||/items/7|one')
    const lookups = await fetch(`${server.url}/lookup?a=constructor&b=constructor&c=toUpperCase`)
    expect(await lookups.text()).toBe('[][]')
  })

  it('refuses, at load, a template that names a prototype member, a partial, a decorator or an unknown faker method', async () => {
    const server = await serve(tempDir(), [templated('/a', 'a')])
    const variants: Array<[string, RegExp]> = [
      [
        '{{#with (faker \'constructor.constructor\' "return process.pid")}}{{this}}{{/with}}',
        /faker has no method "constructor.constructor"/,
      ],
      ["{{faker 'person.faker'}}", /faker has no method "person.faker"/],
      [
        "{{faker 'helpers.fake' '{{constructor.constructor}}'}}",
        /is not a faker method a template may call/,
      ],
      [
        '{{> (faker \'constructor.constructor\' "return process.pid")}}',
        /partials .* are not supported/,
      ],
      ['{{> constructor}}', /partials .* are not supported/],
      ['{{#*inline "x"}}{{/inline}}', /decorators .* are not supported/],
      ['{{this.constructor.constructor}}', /"constructor" is not reachable/],
      ['{{request.[constructor]}}', /"constructor" is not reachable/],
      ['{{@root.__proto__}}', /"__proto__" is not reachable/],
      ['{{#with request.body}}{{constructor}}{{/with}}', /"constructor" is not reachable/],
      ["{{lookup request 'constructor'}}", /not reachable from a template/],
      [
        '{{"faker" \'constructor.constructor\' "return process.pid"}}',
        /faker has no method "constructor.constructor"/,
      ],
      ["{{#with request}}{{'constructor'}}{{/with}}", /"constructor" is not reachable/],
    ]
    for (const [text, message] of variants) {
      const res = await fetch(`${server.admin}/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ transactions: [templated('/b', text)] }),
      })
      const body = (await res.json()) as {
        error: { code: string; details: Array<{ path: string; message: string }> }
      }
      expect(res.status, text).toBe(400)
      expect(body.error.code, text).toBe('ERR_DSL_INVALID')
      expect(body.error.details[0]?.path, text).toBe('/transactions/0/dsl/responseDsl/content')
      expect(body.error.details[0]?.message, text).toMatch(message)
    }
    // Nothing was swapped in: the transaction served before still answers.
    expect(await (await fetch(`${server.url}/a`)).text()).toBe('a')
  })

  it('refuses the same exploit in a served file and in a WireMock stub, naming the file', async () => {
    const dir = tempDir()
    const exploit =
      '{{#with (faker \'constructor.constructor\' "return process.pid")}}{{this}}{{/with}}'
    const dsl = join(dir, 'mock.json')
    writeFileSync(dsl, JSON.stringify([templated('/x', exploit)]))
    const stub = join(dir, 'stub.json')
    writeFileSync(
      stub,
      JSON.stringify({
        request: { method: 'GET', url: '/x' },
        response: { status: 200, body: exploit, transformers: ['response-template'] },
      }),
    )
    for (const file of [dsl, stub]) {
      const result = await runCli(['serve', file, '--port', '0'])
      expect(result.code, file).not.toBe(0)
      expect(result.stdout + result.stderr, file).toMatch(
        /faker has no method "constructor\.constructor"/,
      )
      expect(result.stdout + result.stderr, file).toContain(
        file.endsWith('stub.json') ? 'stub.json' : 'mock.json',
      )
    }
  })
})
