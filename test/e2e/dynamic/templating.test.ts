import { describe, expect, it } from 'vitest'
import { startServer } from '../../helpers/server.js'
import { thrown } from '../../helpers/errors.js'
import { loadDefinitionText } from '../../../src/dsl/index.js'
import { compileMock } from '../../../src/serve/index.js'

const yaml = `
templateSeed: 42
transactions:
  - name: echo
    dsl:
      requestDsl: {method: POST, path: "/orders/{id}"}
      responseDsl:
        template: true
        headers: [{name: X-Order, value: "{{request.path.id}}"}]
        json:
          id: "{{request.path.id}}"
          seg: "{{request.pathSegments.[0]}}"
          q: "{{request.query.x}}"
          h: "{{request.headers.x-trace}}"
          c: "{{request.cookies.session}}"
          name: "{{jsonPath request.body '$.customer.name'}}"
          sum: "{{math 2 '+' 3}}"
          b64: "{{base64 'hi'}}"
          enc: "{{urlEncode 'a b&c'}}"
          size: "{{size request.pathSegments}}"
          joined: "{{join request.pathSegments '-'}}"
          cmp: "{{#eq request.query.x 'y'}}yes{{else}}no{{/eq}}"
          gt: "{{#if (gt 5 3)}}big{{/if}}"
          andOr: "{{#if (and true (or false true) (not false))}}ok{{/if}}"
          ne: "{{#ne 1 2}}diff{{/ne}}"
          lt: "{{#lt 1 2}}less{{/lt}}"
          date: "{{dateFormat '2024-01-02T03:04:05Z' 'yyyy/MM/dd HH:mm'}}"
          later: "{{now offset='1 days' format='yyyy'}}"
          rnd: "{{randomValue length=8 type='NUMERIC'}}"
          up: "{{randomValue length=4 type='ALPHABETIC' uppercase=true}}"
          int: "{{randomInt lower=5 upper=5}}"
          uuid: "{{uuid}}"
          first: "{{faker 'person.firstName'}}"
  - name: xml
    dsl:
      requestDsl: {method: POST, path: /xml}
      responseDsl: {template: true, text: "{{xPath request.body '/order/id/text()'}}"}
  - name: broken at run time
    dsl:
      requestDsl: {method: POST, path: /div}
      responseDsl: {template: true, text: "{{math 1 '/' 0}}"}
`

describe('response templating', () => {
  it('renders every helper from the request, with repeatable random values per seed', async () => {
    const app = await startServer({ yaml })
    const call = async (): Promise<{
      status: number
      header: string | null
      body: Record<string, string>
    }> => {
      const res = await fetch(`${app.url}/orders/77?x=y`, {
        method: 'POST',
        headers: { 'x-trace': 't1', cookie: 'session=s1', 'content-type': 'application/json' },
        body: JSON.stringify({ customer: { name: 'Ada' } }),
      })
      return {
        status: res.status,
        header: res.headers.get('x-order'),
        body: (await res.json()) as Record<string, string>,
      }
    }
    const first = await call()
    expect(first.status).toBe(200)
    expect(first.header).toBe('77')
    expect(first.body).toMatchObject({
      id: '77',
      seg: 'orders',
      q: 'y',
      h: 't1',
      c: 's1',
      name: 'Ada',
      sum: '5',
      b64: 'aGk=',
      enc: 'a%20b%26c',
      size: '2',
      joined: 'orders-77',
      cmp: 'yes',
      gt: 'big',
      andOr: 'ok',
      ne: 'diff',
      lt: 'less',
      date: '2024/01/02 03:04',
      later: String(new Date(Date.now() + 86_400_000).getUTCFullYear()),
      int: '5',
    })
    expect(first.body['rnd']).toMatch(/^\d{8}$/)
    expect(first.body['up']).toMatch(/^[A-Z]{4}$/)
    expect(first.body['uuid']).toMatch(/^[0-9a-f-]{36}$/)
    expect(first.body['first']).toMatch(/^[A-Z]/)

    // The same seed on a fresh runtime gives the same random values.
    const again = await startServer({ yaml })
    const res = await fetch(`${again.url}/orders/77?x=y`, { method: 'POST', body: '{}' })
    const second = (await res.json()) as Record<string, string>
    expect(second['uuid']).toBe(first.body['uuid'])
    expect(second['first']).toBe(first.body['first'])

    const xml = await fetch(`${app.url}/xml`, { method: 'POST', body: '<order><id>9</id></order>' })
    expect(await xml.text()).toBe('9')
  })

  it('answers 500 naming the helper when one fails at run time, and records it in inspection', async () => {
    const app = await startServer({ yaml, admin: true })
    const res = await fetch(`${app.url}/div`, { method: 'POST', body: 'x' })
    expect(res.status).toBe(500)
    const problem = (await res.json()) as { code: string; helper: string; detail?: string }
    expect(problem.helper).toBe('math')
    expect(problem.code).toBe('ERR_SERVE_TEMPLATE')
    const list = (await (await fetch(`${app.admin?.url ?? ''}/inspection`)).json()) as {
      result: Array<{ id: number; hasError: boolean }>
    }
    expect(list.result[0]).toMatchObject({ hasError: true })
    const detail = (await (
      await fetch(`${app.admin?.url ?? ''}/inspection/${list.result[0]?.id ?? 0}`)
    ).json()) as {
      result: { statusCode: number; matchingData: { error: { code: string; message: string } } }
    }
    expect(detail.result.statusCode).toBe(500)
    expect(detail.result.matchingData.error).toMatchObject({ code: 'ERR_SERVE_TEMPLATE' })
    expect(detail.result.matchingData.error.message).toContain('math')
  })

  it('refuses a template that cannot compile at load, with file, line and the line in the template', () => {
    const bad =
      '- dsl:\n    requestDsl: {path: /a}\n    responseDsl:\n      template: true\n      text: "ok {{#if x}} unclosed"\n'
    const err = thrown(() =>
      compileMock(loadDefinitionText(bad, 'bad.yaml'), {
        proxyTimeout: 1000,
        journalBodyBytes: 1024,
      }),
    )
    expect(err).toMatchObject({ code: 'ERR_DSL_INVALID' })
    const detail = (
      err as unknown as { details: Array<{ file?: string; line?: number; message: string }> }
    ).details[0]
    expect(detail?.file).toBe('bad.yaml')
    expect(detail?.line).toBeGreaterThan(0)
    expect(detail?.message).toMatch(/template error \(line 1 of the template\)/)
    const unknown =
      '- dsl:\n    requestDsl: {path: /a}\n    responseDsl: {template: true, text: "{{fakr \'x\'}}"}\n'
    expect(
      thrown(() =>
        compileMock(loadDefinitionText(unknown, 'u.yaml'), {
          proxyTimeout: 1000,
          journalBodyBytes: 1024,
        }),
      ),
    ).toMatchObject({ code: 'ERR_DSL_INVALID' })
  })

  it('refuses blocks nested past the limit at once, and accepts the limit itself', () => {
    const nested = (depth: number): string =>
      '{{#if true}}'.repeat(depth) + 'x' + '{{/if}}'.repeat(depth)
    const file = (text: string): string =>
      `- dsl:\n    requestDsl: {path: /a}\n    responseDsl: {template: true, text: ${JSON.stringify(text)}}\n`
    const started = Date.now()
    const err = thrown(() =>
      compileMock(loadDefinitionText(file(nested(50_000)), 'deep.yaml'), {
        proxyTimeout: 1000,
        journalBodyBytes: 1024,
      }),
    )
    // a bound on hanging, far above the usual time, not a speed figure (the test machine is shared)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(err).toMatchObject({ code: 'ERR_DSL_INVALID' })
    expect((err as unknown as { details: Array<{ message: string }> }).details[0]?.message).toMatch(
      /blocks nest 50000 deep; the limit is 100/,
    )
    // else branches do not count as blocks
    const withElses = '{{#if a}}1{{^}}2{{/if}}'.repeat(200) + nested(100)
    expect(() =>
      compileMock(loadDefinitionText(file(withElses), 'ok.yaml'), {
        proxyTimeout: 1000,
        journalBodyBytes: 1024,
      }),
    ).not.toThrow()
  })
})
