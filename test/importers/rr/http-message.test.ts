import { describe, expect, it } from 'vitest'
import { MessageError, parseHttpMessage } from '../../../importers/rr/http-message.js'

// Raw HTTP message files as editors and proxies leave them: byte order marks, blank lines before
// the start line, no blank line after the headers, folded headers, Latin-1 values, chunked bodies.
const parse = (text: string | Buffer, kind: 'request' | 'response' = 'request') =>
  parseHttpMessage(typeof text === 'string' ? Buffer.from(text, 'utf8') : text, kind)

describe('parseHttpMessage', () => {
  it('skips a byte order mark and blank lines, counting them in the line of a problem', () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('\r\n\nGET /a\n\n')])
    expect(parse(bom)).toMatchObject({ start: ['GET', '/a', 'HTTP/1.1'] })
    expect(parse('\n\nnot a request\n')).toEqual(
      new MessageError(
        'expected a request line such as "GET /path HTTP/1.1", found "not a request"',
        3,
      ),
    )
  })

  it('refuses an empty file, saying which kind of message was expected', () => {
    expect(parse('\r\n\r\n', 'response')).toEqual(
      new MessageError('is empty; expected an HTTP response', 1),
    )
  })

  it('reads a message that ends after its headers, with an empty body', () => {
    const out = parse('HTTP/1.0 204\nX-A: 1', 'response')
    expect(out).toMatchObject({ start: ['HTTP/1.0', '204', ''], headers: [['X-A', '1']] })
    expect((out as { body: Uint8Array }).body).toHaveLength(0)
  })

  it('joins folded header lines, and refuses a line that is not a header, naming its line', () => {
    expect(parse('GET / HTTP/1.1\nX-Long: a\n  b\n\n')).toMatchObject({
      headers: [['X-Long', 'a b']],
    })
    expect(parse('GET / HTTP/1.1\n continued\n\n')).toEqual(
      new MessageError('expected a header line "Name: value", found " continued"', 2),
    )
  })

  it('reads header values as UTF-8 when they are, else keeps the Latin-1 reading', () => {
    const utf8 = parse('GET / HTTP/1.1\nX-Name: Zoë\n\n')
    expect(utf8).toMatchObject({ headers: [['X-Name', 'Zoë']] })
    const latin1 = Buffer.concat([
      Buffer.from('GET / HTTP/1.1\nX-Name: Zo'),
      Buffer.from([0xeb]),
      Buffer.from('\n\n'),
    ])
    expect(parse(latin1)).toMatchObject({ headers: [['X-Name', 'Zoë']] })
  })

  it('keeps a chunked body as written, with a note, when a chunk runs past the end or its size is not hex', () => {
    for (const body of ['5\r\nab\r\n', 'zz\r\nab\r\n0\r\n\r\n']) {
      const out = parse(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${body}`, 'response')
      expect(out).toMatchObject({
        notes: [
          'declares Transfer-Encoding: chunked but its body is not valid chunked encoding; the body is kept as written',
        ],
      })
      expect(Buffer.from((out as { body: Uint8Array }).body).toString()).toBe(body)
    }
  })
})
