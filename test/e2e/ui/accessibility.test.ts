import { writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { monitoringToken } from '../../helpers/monitor-token.js'
import { startCli, type CliServer } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { waitFor } from '../../helpers/wait.js'
import { accessibilityViolations, hasChromium, openBrowser, SKIP_REASON } from './browser.js'

/*
 * axe-core on every main page of the dashboard and on the runtime's /__ui/, with data on them
 * (a transaction panel open, a deployed mock service with matched and unmatched requests, a near
 * miss open, a monitoring test whose failed run is open): no violation of any impact.
 */

const key = { id: 'a11y-key', secret: 'a11y-secret-0123456789' }
const env = { UNDERSTUDY_API_KEY_ID: key.id, UNDERSTUDY_API_KEY_SECRET: key.secret }
const auth = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`

if (!hasChromium) console.warn(`[accessibility tests skipped] ${SKIP_REASON}`)

async function api<T>(platform: CliServer, path: string, json?: unknown): Promise<T> {
  const res = await fetch(platform.url + path, {
    method: json === undefined ? 'GET' : 'POST',
    headers: {
      authorization: auth,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  })
  return ((await res.json()) as { result: T }).result
}

describe.skipIf(!hasChromium)('accessibility (axe-core)', () => {
  it('finds no violation on sign-in, services, transactions, mock services, the live view and monitoring', async () => {
    const platform = await startCli(
      ['platform', '--port', '0', '--data-dir', tempDir('understudy-a11y-')],
      { env, timeoutMs: 20_000 },
    )
    const service = await api<{ id: number }>(platform, '/api/v1/workspaces/1/services', {
      name: 'pets',
    })
    await api(platform, `/api/v1/workspaces/1/transactions?serviceId=${service.id}`, {
      transactions: [
        {
          name: 'list pets',
          tags: ['smoke'],
          dsl: {
            requestDsl: {
              method: 'GET',
              url: { matcherName: 'equals_url', matchingValue: '/pets' },
            },
            responseDsl: { status: 200, json: [{ id: 1 }] },
          },
        },
        {
          name: 'GET /pets/{id}',
          dsl: {
            requestDsl: {
              method: 'GET',
              url: { matcherName: 'equals_url', matchingValue: '/pets/{id}' },
              headers: [{ key: 'accept', matcherName: 'contains', matchingValue: 'json' }],
            },
            responseDsl: { status: 200, json: { id: 1 } },
          },
        },
      ],
    })
    const mock = await api<{ id: number }>(platform, '/api/v1/workspaces/1/service-mocks', {
      serviceId: service.id,
      name: 'pets mock',
    })
    let tracking = await api<{ status: string; trackingUrl: string }>(
      platform,
      `/api/v1/workspaces/1/service-mocks/${mock.id}/deploy`,
      {},
    )
    await waitFor(
      async () => {
        tracking = await api<typeof tracking>(
          platform,
          new URL(tracking.trackingUrl, platform.url).pathname,
        )
        return tracking.status === 'FINISHED' || tracking.status === 'FAILED'
      },
      'the deploy to end',
      { timeoutMs: 30_000, intervalMs: 200 },
    )
    const endpoint = (
      await api<{ httpEndpoint: string }>(platform, `/api/v1/workspaces/1/service-mocks/${mock.id}`)
    ).httpEndpoint

    // A monitoring test whose step fails an assertion, against a server of the test's own.
    const upstream = createServer((_req, res) => res.end('ok'))
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    onTestFinished(() => {
      upstream.close()
    })
    const token = await monitoringToken(platform.url, auth)
    const monitoring = async (path: string, json: unknown): Promise<{ data: { key: string } }> =>
      (await (
        await fetch(platform.url + path, {
          method: 'POST',
          headers: { authorization: token, 'content-type': 'application/json' },
          body: JSON.stringify(json),
        })
      ).json()) as { data: { key: string } }
    const bucket = await monitoring('/buckets?name=checks&team_uuid=1', {})
    await monitoring(`/buckets/${bucket.data.key}/tests`, {
      name: 'status check',
      steps: [
        {
          step_type: 'request',
          method: 'GET',
          url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`,
          assertions: [{ source: 'response_status', comparison: 'equal_number', value: 201 }],
        },
      ],
    })

    const { page } = await openBrowser()
    const found: Record<string, string[]> = {}
    // A cold load: no console error, no failed request (the favicon included).
    const consoleErrors: string[] = []
    const failed: string[] = []
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text())
    })
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`)
    })
    await page.goto(`${platform.url}/ui/`)
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    await page.waitForLoadState('networkidle')
    expect({ consoleErrors, failed }).toEqual({ consoleErrors: [], failed: [] })
    found['sign-in'] = await accessibilityViolations(page)
    await page.getByLabel('API key id').fill(key.id)
    await page.getByLabel('Secret').fill(key.secret)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('link', { name: 'pets' }).waitFor()
    found['services'] = await accessibilityViolations(page)

    await page.getByRole('link', { name: 'pets' }).click()
    await page.getByText('1–2 of 2 transactions').waitFor()
    await page.getByText('list pets', { exact: true }).click()
    await page.getByRole('heading', { name: 'Response' }).waitFor()
    found['transactions'] = await accessibilityViolations(page)
    await page.getByRole('tab', { name: 'Edit' }).click()
    await page.getByRole('button', { name: 'Save transaction' }).waitFor()
    found['transaction form'] = await accessibilityViolations(page)

    await page.getByRole('link', { name: 'Mock services' }).click()
    await page.getByRole('link', { name: 'pets mock' }).waitFor()
    found['mock services'] = await accessibilityViolations(page)

    await page.getByRole('link', { name: 'Live' }).click()
    await page.getByText(/Stream live/).waitFor()
    expect((await fetch(`${endpoint}/pets`)).status).toBe(200)
    expect((await fetch(`${endpoint}/pets/7`, { headers: { accept: 'text/plain' } })).status).toBe(
      404,
    )
    await page.locator('.live-list li.unmatched').waitFor()
    await page.locator('.live-list li.unmatched .row-button').click()
    await page.getByRole('heading', { name: 'Why nothing matched' }).waitFor()
    found['live view'] = await accessibilityViolations(page)

    await page.getByRole('link', { name: 'Monitoring' }).click()
    await page.getByRole('heading', { name: 'Monitoring tests' }).waitFor()
    found['monitoring'] = await accessibilityViolations(page)
    await page.getByRole('button', { name: 'Run status check' }).click()
    await page.locator('table.assertions tr.failed').waitFor({ timeout: 60_000 })
    found['monitoring failed run'] = await accessibilityViolations(page)

    await fetch(`${platform.url}/api/v1/workspaces/1/service-mocks/${mock.id}/stop`, {
      method: 'POST',
      headers: { authorization: auth },
    })
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((k) => [k, []])))
  }, 120_000)

  it("finds no violation on a runtime's /__ui/ with requests in it", async () => {
    const dir = tempDir('understudy-a11y-serve-')
    writeFileSync(
      join(dir, 'mock.yaml'),
      'transactions:\n  - name: hello\n    dsl:\n      requestDsl: { method: GET, path: /hello }\n      responseDsl: { status: 200, text: hi }\n',
    )
    const runtime = await startCli(
      ['serve', join(dir, 'mock.yaml'), '--port', '0', '--admin-port', '0'],
      { timeoutMs: 20_000 },
    )
    await runtime.waitFor('stdout', /admin on http:\/\/\S+/)
    const admin = /admin on (http:\/\/\S+)/.exec(runtime.stdout())?.[1]
    expect(admin).toBeDefined()
    expect((await fetch(`${runtime.url}/hello`)).status).toBe(200)
    expect((await fetch(`${runtime.url}/nope`)).status).toBe(404)
    const { page } = await openBrowser()
    await page.goto(`${admin ?? ''}/__ui/`)
    await page.locator('.live-list li.unmatched').waitFor()
    await page.locator('.live-list li.unmatched .row-button').click()
    await page.getByRole('heading', { name: 'Why nothing matched' }).waitFor()
    expect(await accessibilityViolations(page)).toEqual([])
  }, 60_000)
})
