import { parse } from 'yaml'
import { describe, expect, it } from 'vitest'
import { dslOf, encodeBase64, formOf, requestLine, type Dsl } from '../../../ui/src/dsl-form.js'
import { toYaml } from '../../../ui/src/yaml.js'

const stored: Dsl = {
  type: 'HTTP',
  requestDsl: {
    method: 'POST',
    url: { matcherName: 'equals_url', matchingValue: '/orders/{id}', key: 'url' },
    headers: [{ key: 'x-tenant', matcherName: 'equals', matchingValue: 'a', optional: false }],
    body: [
      {
        key: '/p:order',
        matcherName: 'matches_xml',
        matchingValue: '/p:order',
        namespaces: [{ prefix: 'p', uri: 'urn:o' }],
      },
    ],
  },
  responseDsl: {
    status: 201,
    contentType: 'json',
    content: encodeBase64('{"ok":true,"name":"Zoë"}'),
    headers: [{ name: 'X-A', value: '1' }],
    responseDelay: { type: 'NONE', chunks: 3 },
    failoverEnabled: false,
  },
}

describe('the form model of a transaction', () => {
  it('opens a body decoded and formatted, and saves it back to the same DSL when nothing was changed', () => {
    const form = formOf(stored)
    expect(form).toMatchObject({
      method: 'POST',
      urlValue: '/orders/{id}',
      status: '201',
      bodyMode: 'text',
      body: '{\n  "ok": true,\n  "name": "Zoë"\n}',
    })
    expect(form.matchers.map((m) => [m.part, m.key, m.matcherName])).toEqual([
      ['headers', 'x-tenant', 'equals'],
      ['body', '/p:order', 'matches_xml'],
    ])
    const { dsl, errors } = dslOf(form, stored)
    expect(errors).toEqual({})
    // Members the form does not show survive: namespaces, url.key, failoverEnabled, a NONE delay's chunks.
    expect(dsl.requestDsl['body']).toEqual([
      {
        key: '/p:order',
        matcherName: 'matches_xml',
        matchingValue: '/p:order',
        namespaces: [{ prefix: 'p', uri: 'urn:o' }],
      },
    ])
    expect(dsl.requestDsl['url']).toEqual({
      matcherName: 'equals_url',
      matchingValue: '/orders/{id}',
      key: 'url',
    })
    expect(dsl.responseDsl).toMatchObject({
      failoverEnabled: false,
      responseDelay: { type: 'NONE', chunks: 3 },
      status: 201,
    })
    expect(Buffer.from(dsl.responseDsl['content'] as string, 'base64').toString('utf8')).toBe(
      form.body,
    )
    expect(dsl['type']).toBe('HTTP')
  })

  it('keeps bytes that are not UTF-8 as base64, and refuses what is not base64', () => {
    const binary: Dsl = {
      requestDsl: { method: 'GET', path: '/img' },
      responseDsl: { content: Buffer.from([0xff, 0xd8, 0xff]).toString('base64') },
    }
    const form = formOf(binary)
    expect(form).toMatchObject({ bodyMode: 'binary', body: '/9j/', urlValue: '/img' })
    expect(dslOf(form, binary).dsl.responseDsl).toMatchObject({ binary: true, content: '/9j/' })
    expect(dslOf({ ...form, body: 'not base64!' }, binary).errors['body']).toMatch(/base64/)
  })

  it('names each field it refuses: status, JSON body, header names, matcher keys, think time', () => {
    const form = formOf(stored)
    const { errors } = dslOf(
      {
        ...form,
        status: '99',
        body: '{"ok": ',
        headers: [{ name: 'bad name', value: 'x' }],
        matchers: [
          {
            part: 'queryParams',
            key: '',
            matcherName: 'equals',
            value: '1',
            optional: false,
            rest: {},
          },
        ],
        delay: { type: 'uniform', duration: '', lower: '', upper: '-1', median: '', sigma: '' },
        urlValue: ' ',
      },
      stored,
    )
    expect(Object.keys(errors).sort()).toEqual([
      'body',
      'delay.lower',
      'delay.upper',
      'headers.0.name',
      'matchers.0.key',
      'status',
      'urlValue',
    ])
    expect(errors['body']).toMatch(/^The body is not valid JSON/)
  })

  it('writes think time as the DSL spells it and drops a removed one', () => {
    const form = formOf(stored)
    const fixed = dslOf(
      { ...form, delay: { ...form.delay, type: 'fixed', duration: '25' } },
      stored,
    ).dsl
    expect(fixed.responseDsl['responseDelay']).toEqual({ type: 'FIXED', chunks: 3, duration: 25 })
    const none = dslOf(
      { ...form, delay: { ...form.delay, type: 'none' } },
      {
        ...stored,
        responseDsl: { ...stored.responseDsl, responseDelay: { type: 'FIXED', duration: 5 } },
      },
    ).dsl
    expect(none.responseDsl['responseDelay']).toBeUndefined()
  })

  it('reads the request line once from url or path', () => {
    expect(requestLine(stored)).toEqual({ method: 'POST', path: '/orders/{id}' })
    expect(requestLine({ requestDsl: { path: '/x' }, responseDsl: {} })).toEqual({
      method: 'ANY',
      path: '/x',
    })
  })
})

describe('the YAML the dashboard exports', () => {
  it('reads back as the same value, whatever the strings hold', () => {
    const value = {
      transactions: [
        {
          name: 'GET /pets/{id}',
          description: 'true',
          tags: ['yes', 'a: b', 'ends:', '#hash', '-dash', '.5', '{x}', ''],
          dsl: {
            requestDsl: { method: 'GET', 'odd key: here': 1, nested: [[1, 2], [], {}], n: null },
            responseDsl: { text: 'line1\nline2 "q" \\ é' },
          },
        },
      ],
    }
    expect(parse(toYaml(value).trimStart())).toEqual(value)
  })
})
