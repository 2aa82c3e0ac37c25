import type { OutgoingHttpHeaders, ServerHttp2Stream } from 'node:http2'
import { describe, expect, it } from 'vitest'
import { respondOnStream } from '../../../src/serve/h2-respond.js'

interface Sent {
  headers: OutgoingHttpHeaders
  endStream: boolean | undefined
  waitForTrailers: boolean | undefined
}

/** A stream that records what it was asked to send. */
function fakeStream(state: { destroyed?: boolean; closed?: boolean } = {}): {
  stream: ServerHttp2Stream
  sent: Sent[]
  ended: Buffer[]
} {
  const sent: Sent[] = []
  const ended: Buffer[] = []
  const stream = {
    destroyed: state.destroyed ?? false,
    closed: state.closed ?? false,
    respond: (
      headers: OutgoingHttpHeaders,
      options: { endStream?: boolean; waitForTrailers?: boolean },
    ) => {
      sent.push({ headers, endStream: options.endStream, waitForTrailers: options.waitForTrailers })
    },
    end: (body: Buffer) => {
      ended.push(body)
    },
  }
  return { stream: stream as unknown as ServerHttp2Stream, sent, ended }
}

const body = Buffer.from('{"hello":"world"}')

describe('respondOnStream', () => {
  it('sends the status, the date and the headers in one respond, then the body', () => {
    const { stream, sent, ended } = fakeStream()
    const headers = ['content-type', 'application/json', 'content-length', '17']
    expect(respondOnStream({ stream }, 'POST', 201, headers, body)).toBe(true)
    expect(sent).toEqual([
      {
        headers: {
          ':status': 201,
          date: expect.stringMatching(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/),
          'content-type': 'application/json',
          'content-length': '17',
        },
        endStream: false,
        // The compatibility response's listener then sends no trailers; the stream stays open
        // until the body is written (closing earlier makes Node build an error per answer).
        waitForTrailers: true,
      },
    ])
    expect(ended).toEqual([body])
  })

  it('sends a name given twice twice, and three times three times', () => {
    const { stream, sent } = fakeStream()
    const headers = ['set-cookie', 'a=1', 'x-one', 'y', 'set-cookie', 'b=2', 'set-cookie', 'c=3']
    respondOnStream({ stream }, 'GET', 200, headers, body)
    expect(sent[0]?.headers).toEqual({
      ':status': 200,
      date: expect.any(String),
      'set-cookie': ['a=1', 'b=2', 'c=3'],
      'x-one': 'y',
    })
  })

  it.each([204, 205, 304])('ends the stream with the headers for status %i', (status) => {
    const { stream, sent, ended } = fakeStream()
    respondOnStream({ stream }, 'GET', status, [], Buffer.alloc(0))
    expect(sent[0]?.endStream).toBe(true)
    expect(ended).toEqual([])
  })

  it('ends the stream with the headers when the body is empty', () => {
    const { stream, sent, ended } = fakeStream()
    respondOnStream({ stream }, 'GET', 200, ['content-length', '0'], Buffer.alloc(0))
    expect(sent[0]?.endStream).toBe(true)
    expect(ended).toEqual([])
  })

  it('leaves HEAD requests, streams gone and responses without a stream to the caller', () => {
    for (const [res, method] of [
      [{ stream: fakeStream().stream }, 'HEAD'],
      [{ stream: fakeStream({ destroyed: true }).stream }, 'GET'],
      [{ stream: fakeStream({ closed: true }).stream }, 'GET'],
      [{}, 'GET'],
    ] as const) {
      expect(respondOnStream(res, method, 200, [], body)).toBe(false)
    }
    const { stream, sent } = fakeStream()
    respondOnStream({ stream }, 'HEAD', 200, [], body)
    expect(sent).toEqual([])
  })
})
