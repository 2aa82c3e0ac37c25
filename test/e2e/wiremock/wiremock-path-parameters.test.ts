import { describe, expect, it } from 'vitest'
import { startWireMockInProcess } from '../../helpers/wiremock.js'

// WireMock's `pathParameters` on a `urlPathTemplate`, posted through the admin API: each
// constrained parameter's segment must satisfy its pattern; what cannot be expressed is refused
// (422 at /request/pathParameters).

async function post(url: string, body: unknown): Promise<Response> {
  return await fetch(`${url}/__admin/mappings`, { method: 'POST', body: JSON.stringify(body) })
}

describe('pathParameters through the WireMock admin API', () => {
  it('constrain the segments of a path template with equalTo, contains and matches', async () => {
    const { url } = await startWireMockInProcess()
    const created = await post(url, {
      request: {
        method: 'GET',
        urlPathTemplate: '/contacts/{contactId}/addresses/{addressId}/{kind}',
        pathParameters: {
          contactId: { equalTo: '12345' },
          addressId: { matches: '^[0-9]+$' },
          kind: { contains: 'home' },
        },
      },
      response: { status: 200, body: 'address' },
    })
    expect(created.status).toBe(201)
    expect(await created.json()).toMatchObject({ request: { pathParameters: { contactId: {} } } })
    const status = async (path: string): Promise<number> => (await fetch(url + path)).status
    expect(await status('/contacts/12345/addresses/99/my-home')).toBe(200)
    expect(await status('/contacts/12346/addresses/99/my-home')).toBe(404)
    expect(await status('/contacts/12345/addresses/9x/my-home')).toBe(404)
    expect(await status('/contacts/12345/addresses/99/office')).toBe(404)
    expect(await status('/contacts/12345/addresses/99/home/extra')).toBe(404)

    // A parameter without a pattern is one segment of anything.
    await post(url, {
      request: {
        urlPathTemplate: '/orders/{id}/{line}',
        pathParameters: { id: { equalTo: 'A1' } },
      },
      response: { status: 204 },
    })
    expect(await status('/orders/A1/anything')).toBe(204)
    expect(await status('/orders/A2/anything')).toBe(404)
    expect(await status('/orders/A1/a/b')).toBe(404)
  })

  it('refuses a pattern that could cross segments, an unknown parameter or another operator', async () => {
    const { url } = await startWireMockInProcess()
    for (const [request, pointer] of [
      [
        { urlPathTemplate: '/c/{id}', pathParameters: { id: { matches: '.*' } } },
        '/request/pathParameters',
      ],
      [
        { urlPathTemplate: '/c/{id}', pathParameters: { id: { matches: '[!-0]+' } } },
        '/request/pathParameters',
      ],
      [
        { urlPathTemplate: '/c/{id}', pathParameters: { id: { doesNotMatch: 'x' } } },
        '/request/pathParameters',
      ],
      [
        { urlPathTemplate: '/c/{id}', pathParameters: { other: { equalTo: 'x' } } },
        '/request/pathParameters',
      ],
      [{ urlPath: '/c/1', pathParameters: { id: { equalTo: '1' } } }, '/request/pathParameters'],
    ] as const) {
      const refused = await post(url, { request, response: {} })
      expect(refused.status).toBe(422)
      const body = (await refused.json()) as { errors: Array<{ source: { pointer: string } }> }
      expect(body.errors[0]?.source.pointer).toBe(pointer)
    }
  })
})
