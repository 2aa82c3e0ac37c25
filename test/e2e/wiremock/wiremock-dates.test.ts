import { describe, expect, it } from 'vitest'
import { startWireMockInProcess } from '../../helpers/wiremock.js'

// WireMock's date operators, posted through the admin API: before, after, equalToDateTime with a
// fixed instant or `now` and an expectedOffset; actualFormat and truncation are refused (422).

async function post(url: string, body: unknown): Promise<Response> {
  return await fetch(`${url}/__admin/mappings`, { method: 'POST', body: JSON.stringify(body) })
}

async function status(url: string, headers: Record<string, string>, query = ''): Promise<number> {
  return (await fetch(`${url}/dated${query}`, { headers })).status
}

describe('date operators through the WireMock admin API', () => {
  it('match before, after and equalToDateTime, fixed or relative to now', async () => {
    const { url } = await startWireMockInProcess()
    const created = await post(url, {
      request: {
        urlPath: '/dated',
        headers: { 'X-Since': { after: 'now', expectedOffset: -1, expectedOffsetUnit: 'days' } },
        queryParameters: { until: { before: '2030-01-01T00:00:00Z' } },
      },
      response: { status: 200, body: 'dated' },
    })
    expect(created.status).toBe(201)
    // Read back as posted.
    expect(await created.json()).toMatchObject({
      request: {
        headers: { 'X-Since': { after: 'now', expectedOffset: -1, expectedOffsetUnit: 'days' } },
      },
    })
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString()
    const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString()
    expect(await status(url, { 'x-since': hourAgo }, '?until=2029-12-31T23:00:00Z')).toBe(200)
    expect(await status(url, { 'x-since': weekAgo }, '?until=2029-12-31T23:00:00Z')).toBe(404)
    expect(await status(url, { 'x-since': hourAgo }, '?until=2030-06-01T00:00:00Z')).toBe(404)

    await post(url, {
      request: {
        urlPath: '/exact',
        headers: { Date: { equalToDateTime: '2026-01-31T12:00:00Z' } },
      },
      response: { status: 204 },
    })
    expect(
      (
        await fetch(`${url}/exact`, {
          headers: { 'x-ignored': '1', date: 'Sat, 31 Jan 2026 12:00:00 GMT' },
        })
      ).status,
    ).toBe(204)
  })

  it('refuses actualFormat, truncation and a value that is no date, naming the field', async () => {
    const { url } = await startWireMockInProcess()
    for (const pattern of [
      { before: 'now', actualFormat: 'dd/MM/yyyy' },
      { after: 'now', truncateExpected: 'first day of month' },
      { before: 'next tuesday' },
    ]) {
      const refused = await post(url, {
        request: { urlPath: '/dated', headers: { 'X-When': pattern } },
        response: {},
      })
      expect(refused.status).toBe(422)
      const body = (await refused.json()) as { errors: Array<{ source: { pointer: string } }> }
      expect(body.errors[0]?.source.pointer).toBe('/request/headers/X-When')
    }
  })
})
