import { describe, expect, it } from 'vitest'
import { startWireMockInProcess } from '../../helpers/wiremock.js'

// WireMock's date operators, posted through the admin API: before, after, equalToDateTime with a
// fixed instant or `now` and an expectedOffset, a custom actualFormat, truncateExpected and
// truncateActual; what cannot be honoured is refused (422 naming the field).

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

  it('reads the request value with actualFormat', async () => {
    const { url } = await startWireMockInProcess()
    const created = await post(url, {
      request: {
        urlPath: '/dated',
        headers: { 'X-When': { before: '2026-02-01T00:00:00Z', actualFormat: 'dd/MM/yyyy' } },
        queryParameters: {
          at: {
            equalToDateTime: '2026-01-31T12:30:00Z',
            actualFormat: 'EEE, d MMM yyyy hh:mm a XXX',
          },
        },
      },
      response: { status: 200 },
    })
    expect(created.status).toBe(201)
    expect(await created.json()).toMatchObject({
      request: { headers: { 'X-When': { actualFormat: 'dd/MM/yyyy' } } },
    })
    const at = `?at=${encodeURIComponent('Sat, 31 Jan 2026 02:30 PM +02:00')}`
    expect(await status(url, { 'x-when': '31/01/2026' }, at)).toBe(200)
    expect(await status(url, { 'x-when': '01/02/2026' }, at)).toBe(404)
    // ISO-8601 is not the format given: not a date for this stub.
    expect(await status(url, { 'x-when': '2026-01-31' }, at)).toBe(404)
    expect(
      await status(
        url,
        { 'x-when': '31/01/2026' },
        `?at=${encodeURIComponent('Sat, 31 Jan 2026 02:30 PM Z')}`,
      ),
    ).toBe(404)
  })

  it('truncates the actual value (truncateActual) and the expected one (truncateExpected)', async () => {
    const { url } = await startWireMockInProcess()
    await post(url, {
      request: {
        urlPath: '/dated',
        headers: {
          'X-Month': {
            equalToDateTime: '2026-01-01T00:00:00Z',
            truncateActual: 'first day of month',
          },
        },
      },
      response: { status: 200 },
    })
    expect(await status(url, { 'x-month': '2026-01-17T10:11:12Z' })).toBe(200)
    expect(await status(url, { 'x-month': '2026-02-01T00:00:00Z' })).toBe(404)

    // This month, whatever the day: both sides truncated to the first of the month.
    await post(url, {
      request: {
        urlPath: '/this-month',
        headers: {
          'X-Day': {
            equalToDateTime: 'now',
            truncateExpected: 'FIRST_DAY_OF_MONTH',
            truncateActual: 'first_day_of_month',
          },
        },
      },
      response: { status: 200 },
    })
    const now = new Date()
    const firstOfMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1, 9))
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15))
    const thisMonth = async (value: string): Promise<number> =>
      (await fetch(`${url}/this-month`, { headers: { 'x-day': value } })).status
    expect(await thisMonth(firstOfMonth.toISOString())).toBe(200)
    expect(await thisMonth(lastMonth.toISOString())).toBe(404)

    // Truncated first, then shifted (WireMock's default): "after the first of next month".
    await post(url, {
      request: {
        urlPath: '/next-month',
        headers: {
          'X-Day': {
            after: 'now',
            expectedOffset: 1,
            expectedOffsetUnit: 'months',
            truncateExpected: 'first day of month',
          },
        },
      },
      response: { status: 200 },
    })
    const nextMonth = async (value: Date): Promise<number> =>
      (await fetch(`${url}/next-month`, { headers: { 'x-day': value.toISOString() } })).status
    expect(
      await nextMonth(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 2))),
    ).toBe(200)
    expect(await nextMonth(firstOfMonth)).toBe(404)
  })

  it('refuses a pattern it cannot read, an unknown truncation, applyTruncationLast and a value that is no date, naming the field', async () => {
    const { url } = await startWireMockInProcess()
    for (const [pattern, title] of [
      [{ before: 'now', actualFormat: 'dd/MM/yyyy G' }, /actualFormat "dd\/MM\/yyyy G" letter "G"/],
      [{ before: 'now', actualFormat: 'yyyy[-MM]' }, /optional sections/],
      [{ after: 'now', truncateExpected: 'first week of month' }, /truncateExpected/],
      [
        { after: 'now', truncateActual: 'first_day_of_month', applyTruncationLast: true },
        /applyTruncationLast/,
      ],
      [{ before: 'next tuesday' }, /./],
    ] as const) {
      const refused = await post(url, {
        request: { urlPath: '/dated', headers: { 'X-When': pattern } },
        response: {},
      })
      expect(refused.status).toBe(422)
      const body = (await refused.json()) as {
        errors: Array<{ source: { pointer: string }; title: string }>
      }
      expect(body.errors[0]?.source.pointer).toBe('/request/headers/X-When')
      expect(body.errors[0]?.title).toMatch(title)
    }
    expect(
      ((await (await fetch(`${url}/__admin/mappings`)).json()) as { meta: unknown }).meta,
    ).toEqual({
      total: 0,
    })
  })
})
