import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { startCli, type CliServer } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { untilTrackingEnds } from '../../helpers/tracking.js'
import { accessibilityViolations, hasChromium, openBrowser, SKIP_REASON } from './browser.js'

/*
 * The live history of a mock service survives a stop and a redeploy: the platform keeps what the
 * runtime recorded before it stopped, the analytics API lists it (marked `previousRun`) after the
 * new run's requests with ids that keep growing, its details stay readable, and the live view
 * shows it under an "Earlier runs" divider.
 */

const key = { id: 'history-key', secret: 'history-secret-0123456789' }
const env = { UNDERSTUDY_API_KEY_ID: key.id, UNDERSTUDY_API_KEY_SECRET: key.secret }
const auth = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`

if (!hasChromium) console.warn(`[live history browser test skipped] ${SKIP_REASON}`)

interface Entry {
  id: number
  url: string
  previousRun?: boolean
}

async function api<T>(platform: CliServer, path: string, json?: unknown): Promise<T> {
  const res = await fetch(platform.url + path, {
    method: json === undefined ? 'GET' : 'POST',
    headers: {
      authorization: auth,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  })
  const body = (await res.json()) as { result: T; error: unknown }
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(body.error)}`)
  return body.result
}

async function act(platform: CliServer, mockId: number, action: 'deploy' | 'stop'): Promise<void> {
  const tracking = await api<{ trackingUrl: string }>(
    platform,
    `/api/v1/workspaces/1/service-mocks/${mockId}/${action}`,
    {},
  )
  const status = await untilTrackingEnds(
    async () =>
      (
        await api<{ status: string }>(
          platform,
          new URL(tracking.trackingUrl, platform.url).pathname,
        )
      ).status,
  )
  expect(status).toBe('FINISHED')
}

async function endpointOf(platform: CliServer, mockId: number): Promise<string> {
  return (
    await api<{ httpEndpoint: string }>(platform, `/api/v1/workspaces/1/service-mocks/${mockId}`)
  ).httpEndpoint
}

async function listed(platform: CliServer, mockId: number, query = ''): Promise<Entry[]> {
  return await api<Entry[]>(
    platform,
    `/reports/api/v1/workspaces/1/inspection-data/service-mock/${mockId}${query}`,
  )
}

async function mockOfOneTransaction(platform: CliServer): Promise<number> {
  const service = await api<{ id: number }>(platform, '/api/v1/workspaces/1/services', {
    name: 'history',
  })
  await api(platform, `/api/v1/workspaces/1/transactions?serviceId=${service.id}`, {
    transactions: [
      {
        name: 'hello',
        dsl: {
          requestDsl: {
            method: 'GET',
            url: { matcherName: 'equals_url', matchingValue: '/hello' },
          },
          responseDsl: { status: 200, text: 'hi' },
        },
      },
    ],
  })
  const mock = await api<{ id: number }>(platform, '/api/v1/workspaces/1/service-mocks', {
    serviceId: service.id,
    name: 'history mock',
  })
  return mock.id
}

describe('inspection history across a stop and a redeploy', () => {
  it('lists the earlier run after a stop and after a redeploy, details included, and forgets it on delete', async () => {
    const dataDir = tempDir('understudy-history-')
    const platform = await startCli(['platform', '--port', '0', '--data-dir', dataDir], {
      env,
      timeoutMs: 20_000,
    })
    const mockId = await mockOfOneTransaction(platform)
    await act(platform, mockId, 'deploy')
    const first = await endpointOf(platform, mockId)
    expect((await fetch(`${first}/hello?run=1`)).status).toBe(200)
    expect((await fetch(`${first}/nothing-here`)).status).toBe(404)
    const before = await listed(platform, mockId)
    expect(before.map((e) => e.url)).toEqual(['/nothing-here', '/hello?run=1'])

    await act(platform, mockId, 'stop')
    const stopped = await listed(platform, mockId)
    expect(stopped.map((e) => [e.id, e.url, e.previousRun])).toEqual(
      before.map((e) => [e.id, e.url, true]),
    )

    await act(platform, mockId, 'deploy')
    const second = await endpointOf(platform, mockId)
    expect((await fetch(`${second}/hello?run=2`)).status).toBe(200)
    const after = await listed(platform, mockId)
    expect(after.map((e) => [e.url, e.previousRun ?? false])).toEqual([
      ['/hello?run=2', false],
      ['/nothing-here', true],
      ['/hello?run=1', true],
    ])
    // Ids keep growing across runs: the new run's request is newer than every kept one.
    expect(after[0]?.id).toBeGreaterThan(Math.max(...before.map((e) => e.id)))
    // Paging runs over both: the second page starts in the kept part.
    const page = await listed(platform, mockId, '?skip=1&limit=1')
    expect(page.map((e) => e.url)).toEqual(['/nothing-here'])

    // The kept detail (with its near-miss diagnosis) and the new run's detail both answer.
    const keptUnmatched = after[1] as Entry
    const detail = await api<{ url: string; previousRun: boolean; matchingData: unknown }>(
      platform,
      `/reports/api/v1/workspaces/1/inspection-data/requests/${keptUnmatched.id}`,
    )
    expect(detail).toMatchObject({ url: '/nothing-here', previousRun: true })
    expect(JSON.stringify(detail.matchingData)).toContain('nearMisses')
    const fresh = await api<{ url: string; previousRun?: boolean }>(
      platform,
      `/reports/api/v1/workspaces/1/inspection-data/requests/${after[0]?.id ?? 0}`,
    )
    expect(fresh.url).toBe('/hello?run=2')
    expect(fresh.previousRun).toBeUndefined()

    // Redeploying a running mock service keeps what it served too.
    await act(platform, mockId, 'deploy')
    const third = await listed(platform, mockId)
    expect(third.map((e) => [e.url, e.previousRun ?? false])).toEqual([
      ['/hello?run=2', true],
      ['/nothing-here', true],
      ['/hello?run=1', true],
    ])

    const removed = await fetch(`${platform.url}/api/v1/workspaces/1/service-mocks/${mockId}`, {
      method: 'DELETE',
      headers: { authorization: auth },
    })
    expect(removed.status).toBeLessThan(300)
    const dir = join(dataDir, 'inspection-history')
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([])
  }, 120_000)

  it.skipIf(!hasChromium)(
    'shows the earlier requests in the live view after a stop and a redeploy',
    async () => {
      const platform = await startCli(
        ['platform', '--port', '0', '--data-dir', tempDir('understudy-history-ui-')],
        { env, timeoutMs: 20_000 },
      )
      const mockId = await mockOfOneTransaction(platform)
      await act(platform, mockId, 'deploy')
      // A deployed runtime outlives its platform by design: stopped here, before the platform
      // goes (hooks run last first), so that the test leaves no process behind.
      onTestFinished(async () => {
        await act(platform, mockId, 'stop').catch(() => {})
      })
      const { page, pageErrors } = await openBrowser()
      await page.goto(`${platform.url}/ui/#/mocks/${mockId}`)
      await page.getByLabel('API key id').fill(key.id)
      await page.getByLabel('Secret').fill(key.secret)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByText(/Stream live/).waitFor()
      const first = await endpointOf(platform, mockId)
      expect((await fetch(`${first}/hello?before=stop`)).status).toBe(200)
      const earlier = page.locator('.live-list li', { hasText: 'before=stop' })
      await earlier.waitFor()
      expect(await earlier.textContent()).not.toContain('earlier run')

      // Stopped and redeployed while the page stays open: the request it showed is marked as kept.
      await act(platform, mockId, 'stop')
      await act(platform, mockId, 'deploy')
      const second = await endpointOf(platform, mockId)
      expect((await fetch(`${second}/hello?after=redeploy`)).status).toBe(200)
      await page.getByText(/2 requests shown/).waitFor({ timeout: 20_000 })
      await earlier.getByText('earlier run').waitFor()

      // Opened afresh: the new run, the divider, the earlier run.
      await page.reload()
      await page.getByText(/2 requests shown/).waitFor()
      const rows = await page.locator('.live-list li').allTextContents()
      expect(rows).toHaveLength(3)
      expect(rows[0]).toContain('/hello?after=redeploy')
      expect(rows[0]).not.toContain('earlier run')
      expect(rows[1]).toContain('Earlier runs')
      expect(rows[2]).toContain('/hello?before=stop')
      expect(rows[2]).toContain('earlier run')
      // The kept request opens as any other.
      await page.locator('.live-list li', { hasText: 'before=stop' }).locator('.row-button').click()
      await page.getByRole('heading', { name: 'Answer' }).waitFor()
      // The divider and the marks keep the page free of accessibility violations.
      expect(await accessibilityViolations(page)).toEqual([])
      expect(pageErrors).toEqual([])
    },
    120_000,
  )
})
