import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { substitute } from '../../src/monitor/index.js'

// A monitoring test's `{{hmac_sha256("payload" , secret)}}` signed "payload " (with the space
// written between the closing quote and the comma), so the signature never matched.
describe('a quoted template argument followed by spaces', () => {
  it('is the text inside the quotes', () => {
    const vars = new Map([['secret', 'k']])
    expect(substitute('{{hmac_sha256("payload" , secret)}}', vars)).toBe(
      createHmac('sha256', 'k').update('payload').digest('hex'),
    )
    expect(substitute(`{{upper( " a, b " , 'c' )}}`, vars)).toBe(' A, B ')
  })
})
