/** A HAR of `count` distinct GET entries with JSON answers, generated (no big file is committed). */
export function generatedHar(count: number): string {
  const entries = Array.from({ length: count }, (_, i) => ({
    startedDateTime: '2024-01-01T00:00:00.000Z',
    time: 1,
    request: {
      method: 'GET',
      url: `https://api.example.com/v1/items/${i}`,
      httpVersion: 'HTTP/1.1',
      headers: [],
      queryString: [],
      cookies: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      headers: [{ name: 'content-type', value: 'application/json' }],
      cookies: [],
      content: {
        size: 40,
        mimeType: 'application/json',
        text: JSON.stringify({ id: i, name: `item ${i}`, tags: ['a', 'b'] }),
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: 40,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  }))
  return JSON.stringify({
    log: { version: '1.2', creator: { name: 'test', version: '1' }, entries },
  })
}
