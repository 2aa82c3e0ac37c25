import { describe, expect, it } from 'vitest'
import { startWireMockInProcess } from '../../helpers/wiremock.js'

// WireMock's multipartPatterns, posted through the admin API: a part named by `name` (or by a
// Content-Disposition pattern, as older clients write it) whose content matches the part's
// bodyPatterns; with matchingType ALL, every part must match the bodyPatterns; the request must
// be multipart. What cannot be expressed is refused (422).

async function post(url: string, body: unknown): Promise<Response> {
  return await fetch(`${url}/__admin/mappings`, { method: 'POST', body: JSON.stringify(body) })
}

async function upload(url: string, parts: Record<string, string | Blob>): Promise<number> {
  const form = new FormData()
  for (const [name, value] of Object.entries(parts)) {
    if (typeof value === 'string') form.append(name, value)
    else form.append(name, value, 'upload.txt')
  }
  return (await fetch(`${url}/upload`, { method: 'POST', body: form })).status
}

describe('multipartPatterns through the WireMock admin API', () => {
  it('matches a part by name and content, file parts included', async () => {
    const { url } = await startWireMockInProcess()
    const created = await post(url, {
      request: {
        method: 'POST',
        urlPath: '/upload',
        multipartPatterns: [
          { name: 'info', bodyPatterns: [{ contains: 'invoice' }] },
          {
            matchingType: 'ANY',
            headers: { 'Content-Disposition': { contains: 'name="file"' } },
            bodyPatterns: [{ matches: 'PDF-[0-9]+' }],
          },
        ],
      },
      response: { status: 201 },
    })
    expect(created.status).toBe(201)
    expect(await upload(url, { info: 'an invoice', file: new Blob(['PDF-12']) })).toBe(201)
    expect(await upload(url, { info: 'a receipt', file: new Blob(['PDF-12']) })).toBe(404)
    expect(await upload(url, { info: 'an invoice', file: new Blob(['not a pdf']) })).toBe(404)
    expect(await upload(url, { info: 'an invoice' })).toBe(404)
    // The same fields urlencoded are not multipart: WireMock does not match them either.
    const urlencoded = await fetch(`${url}/upload`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'info=an+invoice&file=PDF-12',
    })
    expect(urlencoded.status).toBe(404)
  })

  it('requires a named part when it has no bodyPatterns', async () => {
    const { url } = await startWireMockInProcess()
    await post(url, {
      request: { method: 'POST', urlPath: '/upload', multipartPatterns: [{ name: 'file' }] },
      response: { status: 201 },
    })
    expect(await upload(url, { file: new Blob(['x']) })).toBe(201)
    expect(await upload(url, { other: 'x' })).toBe(404)
  })

  it('with matchingType ALL, requires every part to match', async () => {
    const { url } = await startWireMockInProcess()
    const created = await post(url, {
      request: {
        method: 'POST',
        urlPath: '/upload',
        multipartPatterns: [
          { matchingType: 'ALL', bodyPatterns: [{ matches: '[a-z]+' }, { doesNotContain: 'x' }] },
        ],
      },
      response: { status: 201 },
    })
    expect(created.status).toBe(201)
    expect(await upload(url, { a: 'one', b: 'two', file: new Blob(['three']) })).toBe(201)
    // One part breaks the pattern: no match, although the others hold.
    expect(await upload(url, { a: 'one', b: 'TWO' })).toBe(404)
    expect(await upload(url, { a: 'one', b: 'six' })).toBe(404)
    expect(await upload(url, { a: 'one', file: new Blob(['12']) })).toBe(404)
    // Not multipart: no parts to match, as in WireMock.
    const urlencoded = await fetch(`${url}/upload`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=one',
    })
    expect(urlencoded.status).toBe(404)
    // ALL beside ANY: every part lowercase, and one named "id" equal to "7".
    await post(url, {
      request: {
        method: 'POST',
        urlPath: '/upload',
        multipartPatterns: [
          { matchingType: 'ALL', bodyPatterns: [{ matches: '[a-z0-9]+' }] },
          { name: 'id', bodyPatterns: [{ equalTo: '7' }] },
        ],
      },
      response: { status: 202 },
    })
    expect(await upload(url, { id: '7', a: 'one' })).toBe(202)
    expect(await upload(url, { id: '7', a: 'ONE' })).toBe(404)
    expect(await upload(url, { id: '8', a: 'one' })).toBe(404)
  })

  it('refuses what cannot be expressed, naming multipartPatterns', async () => {
    const { url } = await startWireMockInProcess()
    for (const pattern of [
      { name: 'file', matchingType: 'ALL' },
      { matchingType: 'ALL', headers: { 'Content-Type': { equalTo: 'text/plain' } } },
      { matchingType: 'SOME' },
      { bodyPatterns: [{ contains: 'x' }] },
      { name: 'file', headers: { 'Content-Type': { equalTo: 'application/pdf' } } },
      { name: 'file', bodyPatterns: [{ equalToJson: '{}' }] },
    ]) {
      const refused = await post(url, {
        request: { urlPath: '/upload', multipartPatterns: [pattern] },
        response: {},
      })
      expect(refused.status).toBe(422)
      const body = (await refused.json()) as {
        errors: Array<{ source: { pointer: string }; title: string }>
      }
      expect(body.errors[0]?.source.pointer).toBe('/request/multipartPatterns')
    }
    expect(
      ((await (await fetch(`${url}/__admin/mappings`)).json()) as { meta: { total: number } }).meta
        .total,
    ).toBe(0)
  })
})
