import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { formatTimestamp, substitute } from '../../../src/monitor/index.js'

// The rest of the monitoring runner's template functions: every strftime directive, the
// functions' missing and odd arguments, and quoting in argument lists.
const fixedNow = (): number => 1_700_000_000_123
const none = new Map<string, string>()

describe('formatTimestamp, every directive', () => {
  it('writes full names, the hour on twelve, seconds, microseconds and the zone', () => {
    // 2023-11-14T22:13:20.123Z, a Tuesday
    expect(formatTimestamp(1_700_000_000.123, '%A %B %H %I %p %M %S %s %f %z %Z %Y')).toBe(
      'Tuesday November 22 10 PM 13 20 1700000000 123000 +0000 UTC 2023',
    )
    // midnight is 12 AM on a twelve-hour clock
    expect(formatTimestamp(0, '%I %p %a %b %m')).toBe('12 AM Thu Jan 01')
  })

  it('answers nothing for a time that is not one', () => {
    expect(formatTimestamp(Number.NaN, '%Y')).toBe('')
  })
})

describe('template functions with missing or odd arguments', () => {
  it('formats the current time by default, with the ISO format by default', () => {
    expect(substitute('{{format_timestamp("", "%Y")}}', none, fixedNow)).toBe('2023')
    expect(substitute('{{format_timestamp}}', none, fixedNow)).toBe('2023-11-14T22:13:20Z')
  })

  it('draws an integer without bounds, and the lower bound when the range is empty', () => {
    expect(substitute('{{random_int}}', none)).toMatch(/^\d+$/)
    expect(substitute('{{random_int(9, 3)}}', none)).toBe('9')
    expect(substitute('{{random_int(5)}}', none)).toBe('5')
    expect(substitute('{{random_int(x, y)}}', none)).toBe('0')
  })

  it('bounds random_string to 0..4096 characters, 16 by default', () => {
    expect(substitute('{{random_string}}', none)).toMatch(/^[A-Za-z0-9]{16}$/)
    expect(substitute('{{random_string(-5)}}', none)).toBe('')
    expect(substitute('{{random_string(100000)}}', none)).toHaveLength(4096)
  })

  it('keeps text that does not decode, and treats a missing value as empty', () => {
    expect(substitute('{{url_decode("%E0%A4%A")}}', none)).toBe('%E0%A4%A')
    expect(substitute('{{decode_url("%zz")}}', none)).toBe('%zz')
    expect(substitute('{{decode_url("a%2Fb")}}', none)).toBe('a/b')
    expect(substitute('{{encode_url("a/b")}}', none)).toBe('a%2Fb')
    expect(substitute('[{{upper}}][{{lower}}][{{base64_encode}}][{{base64_decode}}]', none)).toBe(
      '[][][][]',
    )
    expect(substitute('{{upper("aB")}}{{lower("aB")}}', none)).toBe('ABab')
    expect(substitute('{{base64_encode("hi")}}/{{base64_decode("aGk=")}}', none)).toBe('aGk=/hi')
  })

  it('signs with HMAC in base64, the value first and the key second', () => {
    const vars = new Map([['key', 'k']])
    expect(substitute('{{hmac_sha256_base64("v", key)}}', vars)).toBe(
      createHmac('sha256', 'k').update('v').digest('base64'),
    )
    expect(substitute('{{hmac_sha1_base64}}', vars)).toBe(
      createHmac('sha1', '').update('').digest('base64'),
    )
  })

  it('splits arguments on commas outside quotes, keeping spaces inside them', () => {
    expect(substitute(`{{upper( " a, b " , 'c' )}}`, none)).toBe(' A, B ')
    expect(substitute('{{format_timestamp(0, " %Y ")}}', none)).toBe(' 1970 ')
  })

  it('leaves text without placeholders as it is', () => {
    const unresolved = new Set<string>()
    expect(substitute('no {placeholders} here', none, fixedNow, unresolved)).toBe(
      'no {placeholders} here',
    )
    expect(unresolved.size).toBe(0)
  })
})
