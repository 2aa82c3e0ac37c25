import type { Pool } from 'undici'
import { describe, expect, it, onTestFinished } from 'vitest'
import { contentTypeOf, compileResponse } from '../../../src/serve/compile-response.js'
import { CapacityGate } from '../../../src/serve/capacity.js'
import { endToEndHeaders } from '../../../src/serve/hop-by-hop.js'
import { liveSystemUrl } from '../../../src/serve/compile-mock.js'
import { problemAnswer } from '../../../src/serve/problem.js'
import { createError } from '../../../src/errors/index.js'
import { readDefinition } from '../../../src/dsl/index.js'

const b64 = (s: string): string => Buffer.from(s).toString('base64')

describe('contentTypeOf', () => {
  it('expands the shorthands, keeps full MIME types and appends the charset unless binary', () => {
    expect(contentTypeOf({ status: 200 })).toBeNull()
    expect(contentTypeOf({ status: 200, contentType: 'json' })).toBe('application/json')
    expect(contentTypeOf({ status: 200, contentType: 'Xml' })).toBe('application/xml')
    expect(contentTypeOf({ status: 200, contentType: 'text', charset: 'utf-8' })).toBe(
      'text/plain; charset=utf-8',
    )
    expect(
      contentTypeOf({ status: 200, contentType: 'html', charset: 'utf-8', binary: true }),
    ).toBe('text/html')
    expect(
      contentTypeOf({ status: 200, contentType: 'image/png', charset: 'utf-8', binary: true }),
    ).toBe('image/png')
    expect(
      contentTypeOf({ status: 200, contentType: 'text/csv; charset=latin1', charset: 'utf-8' }),
    ).toBe('text/csv; charset=latin1')
  })
})

describe('compileResponse', () => {
  it('precomputes headers for HTTP/1.1 and HTTP/2 with the content-length of the decoded body', () => {
    const r = compileResponse(
      {
        status: 201,
        statusMessage: 'Made',
        contentType: 'json',
        content: b64('{"a":"é"}'),
        headers: [
          { name: 'X-A', value: '1' },
          { name: 'Connection', value: 'close' },
          { name: 'Keep-Alive', value: 'timeout=1' },
        ],
      },
      1000,
      new Map(),
    )
    expect(r.status).toBe(201)
    expect(r.statusMessage).toBe('Made')
    expect(r.body.toString()).toBe('{"a":"é"}')
    expect(r.headers).toEqual([
      'X-A',
      '1',
      'Keep-Alive',
      'timeout=1',
      'content-type',
      'application/json',
      'content-length',
      '10',
    ])
    expect(r.headers2).toEqual([
      'x-a',
      '1',
      'content-type',
      'application/json',
      'content-length',
      '10',
    ])
    expect(r.delay).toBeNull()
    expect(r.proxy).toBeNull()
  })

  it('drops the body and content-length of 1xx, 204 and 304 answers', () => {
    for (const status of [101, 204, 304]) {
      const r = compileResponse({ status, content: b64('x') }, 1000, new Map())
      expect(r.body.length).toBe(0)
      expect(r.headers).not.toContain('content-length')
    }
  })

  it('compiles a proxy target with the base path and a pool shared per origin', async () => {
    const pools = new Map<string, Pool>()
    onTestFinished(async () => {
      await Promise.all([...pools.values()].map(async (p) => await p.close()))
    })
    const a = compileResponse({ status: 200, proxyUrl: 'http://127.0.0.1:9/base/' }, 1000, pools)
    const b = compileResponse({ status: 200, proxyUrl: 'http://127.0.0.1:9' }, 1000, pools)
    expect(a.proxy).toMatchObject({
      origin: 'http://127.0.0.1:9',
      basePath: '/base',
      host: '127.0.0.1:9',
      timeout: 1000,
    })
    expect(b.proxy?.basePath).toBe('')
    expect(a.proxy?.pool).toBe(b.proxy?.pool)
    expect(pools.size).toBe(1)
  })
})

describe('CapacityGate', () => {
  it('admits up to its limit, frees places on release and never goes negative', () => {
    const gate = new CapacityGate(2)
    expect(gate.tryAcquire()).toBe(true)
    expect(gate.tryAcquire()).toBe(true)
    expect(gate.tryAcquire()).toBe(false)
    expect(gate.current).toBe(2)
    gate.release()
    expect(gate.tryAcquire()).toBe(true)
    gate.release()
    gate.release()
    gate.release()
    gate.release()
    expect(gate.current).toBe(0)
  })

  it('admits everything when the limit is null, and follows a changed limit', () => {
    const gate = new CapacityGate(null)
    for (let i = 0; i < 1000; i++) expect(gate.tryAcquire()).toBe(true)
    gate.limit = 1000
    expect(gate.tryAcquire()).toBe(false)
  })
})

describe('endToEndHeaders', () => {
  it('drops hop-by-hop headers, those named by Connection, pseudo-headers and skipped names', () => {
    const out = endToEndHeaders(
      {
        ':path': '/a',
        connection: 'X-Listed, close',
        'x-listed': '1',
        'keep-alive': 'timeout=5',
        'transfer-encoding': 'chunked',
        upgrade: 'h2c',
        'proxy-authorization': 'x',
        'proxy-authenticate': 'x',
        te: 'trailers',
        trailer: 'x',
        host: 'h',
        accept: '*/*',
        'set-cookie': ['a=1', 'b=2'],
        'x-undefined': undefined,
      },
      new Set(['host']),
    )
    expect(out).toEqual(['accept', '*/*', 'set-cookie', 'a=1', 'set-cookie', 'b=2'])
  })
})

describe('problemAnswer', () => {
  it('builds a problem+json answer with the record id, extra members and headers', () => {
    const answer = problemAnswer(createError('ERR_SERVE_CAPACITY', [5]), 42, { hint: 'x' }, [
      'retry-after',
      '1',
      'connection',
      'close',
    ])
    expect(answer.status).toBe(503)
    expect(JSON.parse(answer.body.toString())).toMatchObject({
      status: 503,
      code: 'ERR_SERVE_CAPACITY',
      requestId: '42',
      hint: 'x',
    })
    expect(answer.headers).toEqual([
      'content-type',
      'application/problem+json',
      'content-length',
      String(answer.body.length),
      'retry-after',
      '1',
      'connection',
      'close',
    ])
    expect(answer.headers2).not.toContain('connection')
    expect(
      JSON.parse(
        problemAnswer(createError('ERR_MATCH_NO_MATCH', ['GET', '/']), null).body.toString(),
      ).requestId,
    ).toBeNull()
  })
})

describe('liveSystemUrl', () => {
  const doc = (fields: Record<string, unknown>) =>
    readDefinition({ noMatchingRequestPreference: 'bypasslive', transactions: [], ...fields })

  it('builds the live system URL from host, port and endpoint preference', () => {
    expect(liveSystemUrl(doc({ liveSystemHost: 'api.test', liveSystemPort: 8081 }))).toBe(
      'http://api.test:8081',
    )
    expect(liveSystemUrl(doc({ liveSystemHost: 'api.test' }))).toBe('http://api.test:80')
    expect(liveSystemUrl(doc({ liveSystemHost: 'api.test', endpointPreference: 'HTTPS' }))).toBe(
      'https://api.test:443',
    )
    expect(liveSystemUrl(doc({ liveSystemHost: 'https://api.test', liveSystemPort: 8443 }))).toBe(
      'https://api.test:8443/',
    )
  })
})
