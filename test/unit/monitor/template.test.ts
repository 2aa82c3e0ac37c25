import { createHash, createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { BUILT_INS, formatTimestamp, substitute } from '../../../src/monitor/index.js'

const fixedNow = (): number => 1_700_000_000_123

describe('substitute', () => {
  it('replaces variables, leaves unknown names as written and reports them', () => {
    const vars = new Map([
      ['host', 'example.com'],
      ['id', '7'],
    ])
    const unresolved = new Set<string>()
    expect(
      substitute('http://{{host}}/items/{{ id }}?x={{missing}}', vars, fixedNow, unresolved),
    ).toBe('http://example.com/items/7?x={{missing}}')
    expect([...unresolved]).toEqual(['missing'])
  })

  it('evaluates the built-in functions, with literal and variable arguments', () => {
    const vars = new Map([
      ['secret', 'k'],
      ['payload', 'abc'],
    ])
    expect(substitute('{{timestamp}}', vars, fixedNow)).toBe('1700000000')
    expect(substitute('{{timestamp_ms}}', vars, fixedNow)).toBe('1700000000123')
    expect(substitute('{{utc_datetime}}', vars, fixedNow)).toBe('2023-11-14T22:13:20.123Z')
    expect(substitute('{{format_timestamp(0, "%Y-%m-%d %H:%M:%S")}}', vars, fixedNow)).toBe(
      '1970-01-01 00:00:00',
    )
    expect(substitute('{{md5(payload)}}', vars, fixedNow)).toBe(
      createHash('md5').update('abc').digest('hex'),
    )
    expect(substitute('{{sha1("abc")}}', vars, fixedNow)).toBe(
      createHash('sha1').update('abc').digest('hex'),
    )
    expect(substitute('{{sha256(payload)}}', vars, fixedNow)).toBe(
      createHash('sha256').update('abc').digest('hex'),
    )
    expect(substitute('{{hmac_sha256(payload, secret)}}', vars, fixedNow)).toBe(
      createHmac('sha256', 'k').update('abc').digest('hex'),
    )
    expect(substitute('{{encode_base64("a:b")}}', vars, fixedNow)).toBe('YTpi')
    expect(substitute('{{decode_base64("YTpi")}}', vars, fixedNow)).toBe('a:b')
    expect(substitute('{{url_encode("a b&c")}}', vars, fixedNow)).toBe('a%20b%26c')
    expect(substitute('{{url_decode("a%20b")}}', vars, fixedNow)).toBe('a b')
  })

  it('draws random values in range', () => {
    const vars = new Map<string, string>()
    for (let i = 0; i < 50; i++) {
      const n = Number(substitute('{{random_int(2,6)}}', vars))
      expect(n).toBeGreaterThanOrEqual(2)
      expect(n).toBeLessThanOrEqual(6)
    }
    expect(substitute('{{random_string(12)}}', vars)).toMatch(/^[A-Za-z0-9]{12}$/)
    expect(substitute('{{uuid}}', vars)).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    )
    expect(substitute('{{random_uuid}}', vars)).not.toBe(substitute('{{random_uuid}}', vars))
  })

  it('lets a variable shadow a built-in of the same name', () => {
    expect(substitute('{{timestamp}}', new Map([['timestamp', 'mine']]), fixedNow)).toBe('mine')
  })

  it('formats timestamps with strftime directives', () => {
    expect(formatTimestamp(86_400 * 31 + 3600 * 13 + 5, '%a %b %d %y %I%p %j %%')).toBe(
      'Sun Feb 01 70 01PM 032 %',
    )
  })

  it('lists every built-in as a function', () => {
    for (const fn of Object.values(BUILT_INS)) expect(typeof fn).toBe('function')
  })
})
