import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { importFile } from '../../importers/index.js'
import { compileMock } from '../../src/serve/index.js'
import { startServer } from '../helpers/server.js'

const examplesDir = resolve(import.meta.dirname, '../../examples')
const exampleFiles = readdirSync(examplesDir, { recursive: true, withFileTypes: true })
  .filter(
    (d) => d.isFile() && /\.(ya?ml|json|har)$/.test(d.name) && !d.parentPath.includes('kubernetes'),
  )
  .map((d) => join(d.parentPath, d.name))

describe('examples/', () => {
  it.each(exampleFiles)('%s loads, validates and compiles', (file) => {
    const result = importFile({ bytes: readFileSync(file), fileName: file })
    expect(result.warnings).toEqual([])
    const mock = compileMock(result.document, { proxyTimeout: 1000, journalBodyBytes: 1024 })
    expect(mock.matcher.active.length).toBeGreaterThan(0)
  })

  describe('payments-api.yaml answers as documented', () => {
    const file = join(examplesDir, 'payments-api.yaml')
    const document = importFile({ bytes: readFileSync(file), fileName: file }).document
    const auth = { authorization: 'Bearer t0k3n' }
    const json = {
      'content-type': 'application/json',
      'idempotency-key': '123e4567-e89b-12d3-a456-426614174000',
    }
    const basic = (user: string, password: string) => ({
      authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
    })
    const cases: Array<[string, string, RequestInit, number, string]> = [
      ['health', '/health', {}, 200, '"UP"'],
      [
        'list with a case-insensitive status and a numeric limit',
        '/v1/payments?status=SUCCEEDED&limit=10',
        { headers: auth },
        200,
        'pay_124',
      ],
      [
        'list with a limit that is not a number falls through to the not-found transaction',
        '/v1/payments?status=succeeded&limit=ten',
        { headers: auth },
        404,
        'not_found',
      ],
      ['a payment by template', '/v1/payments/pay_1', { headers: auth }, 200, 'pay_123'],
      [
        'the declined payment by priority',
        '/v1/payments/pay_declined',
        { headers: auth },
        200,
        'card_declined',
      ],
      [
        'create',
        '/v1/payments',
        { method: 'POST', headers: json, body: '{"amount": 10, "currency": "EUR"}' },
        201,
        'pay_125',
      ],
      [
        'create over the limit (JSONPath filter)',
        '/v1/payments',
        { method: 'POST', headers: json, body: '{"amount": 20000, "currency": "EUR"}' },
        422,
        'amount_too_large',
      ],
      [
        'create without an idempotency key',
        '/v1/payments',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"amount": 10, "currency": "EUR"}',
        },
        400,
        'idempotency_key_missing',
      ],
      [
        'refund (equals_json with placeholders)',
        '/v1/refunds',
        { method: 'POST', body: '{"amount": 4200, "reason": "dup", "payment": "pay_1"}' },
        201,
        're_77',
      ],
      [
        'XML transfer (matches_xml and an XPath key)',
        '/legacy/transfer',
        { method: 'POST', body: '<Transfer><Amount>5</Amount><Currency>EUR</Currency></Transfer>' },
        200,
        'ACCEPTED',
      ],
      [
        'XML ping (equals_xml ignores whitespace)',
        '/legacy/ping',
        { method: 'POST', body: '<Ping>\n  <From>bank</From>\n</Ping>' },
        200,
        '<Pong/>',
      ],
      [
        'form webhook',
        '/webhooks/form',
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'event=payment.succeeded&signature=abc',
        },
        204,
        '',
      ],
      [
        'settlements with the right credentials',
        '/admin/settlements',
        { headers: basic('finance', 's3cret') },
        200,
        '125000',
      ],
      [
        'settlements with the wrong password',
        '/admin/settlements',
        { headers: basic('finance', 'nope') },
        404,
        'not_found',
      ],
      [
        'session cookie',
        '/v1/me',
        { headers: { cookie: 'theme=dark; session=0123456789abcdef' } },
        200,
        'ada@example.com',
      ],
      ['CSV export (matches_url)', '/v1/exports/may_2024.csv', {}, 200, 'pay_123,4200,EUR'],
      [
        'customer outside the EU (not_matches)',
        '/v1/customers/9',
        { headers: { 'x-region': 'us-east-1' } },
        200,
        '"us"',
      ],
      [
        'customer in the EU (equals_insensitive)',
        '/v1/customers/9',
        { headers: { 'x-region': 'EU-WEST-1' } },
        200,
        '"eu"',
      ],
      ['search (contains on the url)', '/api/search?q=refunds', {}, 200, 're_77'],
      ['anything else gets the no-match transaction', '/nothing', {}, 404, 'No such resource'],
    ]
    it.each(cases)('%s', async (_name, path, init, status, fragment) => {
      const app = await startServer({ document, options: { logLevel: 'silent' } })
      const res = await fetch(app.url + path, init)
      expect(res.status).toBe(status)
      expect(await res.text()).toContain(fragment)
    })
  })
})
