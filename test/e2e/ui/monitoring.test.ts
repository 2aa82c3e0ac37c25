import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { Page } from 'playwright-core'
import { startCli, type CliServer } from '../../helpers/cli.js'
import { monitoringToken } from '../../helpers/monitor-token.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { hasChromium, openBrowser, screenshot, SKIP_REASON } from './browser.js'

/*
 * The dashboard against the real `understudy platform` in Chromium: the monitoring page over the
 * real monitoring API (/buckets), and the live view when the session ends in another tab.
 */

const key = { id: 'ui-mon-key', secret: 'ui-mon-secret-0123456789' }
const auth = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`

if (!hasChromium) console.warn(`[dashboard monitoring tests skipped] ${SKIP_REASON}`)

async function startPlatform(): Promise<CliServer> {
  return startCli(['platform', '--port', '0', '--data-dir', tempDir('understudy-ui-mon-')], {
    env: { UNDERSTUDY_API_KEY_ID: key.id, UNDERSTUDY_API_KEY_SECRET: key.secret },
    timeoutMs: 20_000,
  })
}

/** One token per platform. */
const tokens = new Map<string, Promise<string>>()

async function api<T>(
  platform: CliServer,
  method: string,
  path: string,
  json?: unknown,
): Promise<{ status: number; body: T }> {
  // The monitoring API takes tokens only (one from POST /apps with the platform key); the
  // /api/... APIs take the platform key itself.
  if (!tokens.has(platform.url)) tokens.set(platform.url, monitoringToken(platform.url, auth))
  const headers: Record<string, string> = {
    authorization: path.startsWith('/api/') ? auth : ((await tokens.get(platform.url)) as string),
  }
  if (json !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(platform.url + path, {
    method,
    headers,
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  })
  return { status: res.status, body: (await res.json()) as T }
}

async function signIn(page: Page): Promise<void> {
  await page.getByLabel('API key id').fill(key.id)
  await page.getByLabel('Secret').fill(key.secret)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

describe.skipIf(!hasChromium)('dashboard monitoring and sessions in Chromium', () => {
  it('lists a test made through the monitoring API, runs it and shows its result', async () => {
    const platform = await startPlatform()
    // The step calls a service of its own: the platform's port is never a step's target (egress).
    const upstream = createServer((_req, res) => res.end('ok'))
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    onTestFinished(() => {
      upstream.close()
    })
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
    // A bucket and a test through the API, with a token of the platform key's user.
    const bucket = await api<{ data: { key: string } }>(
      platform,
      'POST',
      '/buckets?name=smoke%20checks&team_uuid=1',
    )
    expect(bucket.status).toBe(201)
    const made = await api<{ data: { id: string } }>(
      platform,
      'POST',
      `/buckets/${bucket.body.data.key}/tests`,
      {
        name: 'platform version answers',
        description: 'GET /version is 200',
        steps: [
          {
            step_type: 'request',
            method: 'GET',
            url: `${upstreamUrl}/version`,
            assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
          },
        ],
      },
    )
    expect(made.status).toBe(201)

    const { page, pageErrors } = await openBrowser()
    await page.goto(`${platform.url}/ui/#/monitoring`)
    await signIn(page)
    await page.getByRole('link', { name: 'Monitoring' }).waitFor()
    await page.getByRole('heading', { name: 'smoke checks' }).waitFor()
    const row = page.locator('.test-item').filter({ hasText: 'platform version answers' })
    await row.waitFor()
    await row.getByText('never run').waitFor()
    await row.getByRole('button', { name: 'Run platform version answers' }).click()
    await row.getByText('Run finished: pass.').waitFor({ timeout: 60_000 })
    expect(await row.locator('.test-head .badge').textContent()).toBe('pass')
    await screenshot(page, 'monitoring')
    // The API agrees: one run, passed.
    const results = await api<{ data: Array<{ result: string }> }>(
      platform,
      'GET',
      `/buckets/${bucket.body.data.key}/tests/${made.body.data.id}/results`,
    )
    expect(results.body.data.map((r) => r.result)).toEqual(['pass'])
    // After a reload the last result is still shown.
    await page.reload()
    await page
      .locator('.test-item')
      .filter({ hasText: 'platform version answers' })
      .locator('.test-head .badge', { hasText: 'pass' })
      .waitFor()
    expect(pageErrors).toEqual([])
    expect((await platform.stop()).code).toBe(0)
  }, 120_000)

  it('creates a bucket, a test, its step and environment on the page, shows why a run failed, and keeps the run history', async () => {
    const platform = await startPlatform()
    const upstream = createServer((_req, res) => {
      res.setHeader('x-served-by', 'upstream')
      res.end('{"version":"1.2.3"}')
    })
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    onTestFinished(() => {
      upstream.close()
    })
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
    const { page, pageErrors } = await openBrowser()
    await page.goto(`${platform.url}/ui/#/monitoring`)
    await signIn(page)
    await page.getByRole('heading', { name: 'Monitoring tests' }).waitFor()

    // Refused at the field first, then made.
    await page.getByRole('button', { name: 'Create bucket' }).click()
    await page.getByText('The bucket name is required').waitFor()
    await page.getByLabel('New bucket name').fill('release checks')
    await page.getByRole('button', { name: 'Create bucket' }).click()
    await page.getByRole('heading', { name: 'release checks' }).waitFor()
    await page.getByLabel('New test name').fill('version endpoint')
    await page.getByRole('button', { name: 'Create test' }).click()
    const item = page.locator('.test-item').filter({ hasText: 'version endpoint' })
    await item.waitFor()

    // A step expecting 201 where the service answers 200.
    await item.getByRole('button', { name: 'Steps of version endpoint' }).click()
    await item.getByRole('button', { name: 'Add a request step' }).click()
    const stepForm = item.getByRole('form', { name: /^Add step/ })
    await stepForm.getByLabel('URL *').fill('not a url')
    await stepForm.getByRole('button', { name: 'Add step' }).click()
    await stepForm.getByText(/The URL must start with http/).waitFor()
    await stepForm.getByLabel('URL *').fill(`${upstreamUrl}/version`)
    await stepForm.getByLabel('Expected value of assertion 1').fill('201')
    await stepForm.getByRole('button', { name: 'Add assertion' }).click()
    await stepForm.getByLabel('Source of assertion 2').selectOption('response_json')
    await stepForm.getByLabel('Property of assertion 2').fill('version')
    await stepForm.getByLabel('Comparison of assertion 2').selectOption('equal')
    await stepForm.getByLabel('Expected value of assertion 2').fill('1.2.3')
    await stepForm.getByRole('button', { name: 'Add step' }).click()
    await item.getByText(`${upstreamUrl}/version`).waitFor()
    await item.getByText('2 assertions').waitFor()

    // An environment with a variable, edited on the page.
    await item.getByRole('button', { name: 'Environments of version endpoint' }).click()
    await item.getByLabel('New environment name').fill('staging')
    await item.getByRole('button', { name: 'Create environment' }).click()
    await item.getByRole('form', { name: 'Variables of staging' }).waitFor()
    await item.getByRole('button', { name: 'Add a variable to staging' }).click()
    await item.getByLabel('Name of variable 1 of staging').fill('base_url')
    await item.getByLabel('Value of variable 1 of staging').fill(upstreamUrl)
    await item.getByRole('button', { name: 'Save staging' }).click()
    await item.getByText('Saved staging.').waitFor()

    // The run fails: the failed assertion is shown with expected and actual, and the exchange.
    await item.getByRole('button', { name: 'Run version endpoint' }).click()
    await item.getByText('Run finished: fail.').waitFor({ timeout: 60_000 })
    const failedRow = item.locator('table.assertions tr.failed')
    await failedRow.waitFor()
    expect(await failedRow.locator('th').textContent()).toContain('response_status')
    expect(await failedRow.locator('td.expected').textContent()).toBe('201')
    expect(await failedRow.locator('td.actual').textContent()).toBe('200')
    expect(
      await item.locator('table.assertions tr:not(.failed) td.actual').first().textContent(),
    ).toBe('1.2.3')
    expect(await item.locator('details.exchange').getAttribute('open')).not.toBeNull()
    await item.getByText('x-served-by: upstream').waitFor()
    await item.locator('.fail-text', { hasText: 'fail' }).first().waitFor()
    await screenshot(page, 'monitoring-failed-run')

    // Fixed on the page, run again: the history lists both runs, newest first, with times.
    await item.getByRole('button', { name: 'Steps of version endpoint' }).click()
    await item.getByRole('button', { name: 'Edit step 1' }).click()
    const edit = item.getByRole('form', { name: /^Save step/ })
    await edit.getByLabel('Expected value of assertion 1').fill('200')
    await edit.getByRole('button', { name: 'Save step' }).click()
    await edit.waitFor({ state: 'detached' })
    await item.getByRole('button', { name: 'Run version endpoint' }).click()
    await item.getByText('Run finished: pass.').waitFor({ timeout: 60_000 })
    await item.getByRole('button', { name: 'Runs of version endpoint' }).click()
    await expect
      .poll(
        async () =>
          await item
            .locator('.panel table.stack tbody tr td[data-label="Result"]')
            .allTextContents(),
      )
      .toEqual(['pass', 'fail'])
    expect(
      await item.locator('.panel table.stack tbody tr td[data-label="Took"]').first().textContent(),
    ).toMatch(/^\d+ ms$/)

    // Renamed on the page.
    await item.getByRole('button', { name: 'Edit version endpoint' }).click()
    await item.getByLabel('Test name *').fill('version endpoint answers')
    await item.getByRole('button', { name: 'Save test' }).click()
    await page.locator('.test-item').filter({ hasText: 'version endpoint answers' }).waitFor()
    expect(pageErrors).toEqual([])
  }, 150_000)

  it('the live view returns to sign-in when the session ends in another tab, keeps the page, and resumes after sign-in', async () => {
    const platform = await startPlatform()
    const service = await api<{ result: { id: number } }>(
      platform,
      'POST',
      '/api/v1/workspaces/1/services',
      { name: 'pets' },
    )
    const mock = await api<{ result: { id: number } }>(
      platform,
      'POST',
      '/api/v1/workspaces/1/service-mocks',
      { serviceId: service.body.result.id, name: 'pets mock', mockServiceTransactions: [] },
    )
    expect(mock.status).toBeLessThan(300)
    const { page, context, pageErrors } = await openBrowser()
    await page.goto(`${platform.url}/ui/#/mocks/${mock.body.result.id}`)
    await signIn(page)
    await page.getByText('Stream live.').waitFor()
    // Something typed on the page (the workspace picker's choice and the URL stay too).
    const before = page.url()

    // Sign out in another tab: the first tab's stream is ended by the platform, its reconnection
    // refused with a 401, and the page shows sign-in over itself instead of "reconnecting".
    const other = await context.newPage()
    await other.goto(`${platform.url}/ui/`)
    await other.getByRole('button', { name: 'Sign out' }).click()
    await other.getByRole('button', { name: 'Sign in' }).waitFor()
    const dialog = page.getByRole('dialog', { name: 'Sign in again' })
    await dialog.waitFor({ timeout: 20_000 })
    await page.getByText('the session has ended').waitFor()
    expect(await page.getByText('Stream reconnecting').count()).toBe(0)
    expect(page.url()).toBe(before)

    await dialog.getByLabel('API key id').fill(key.id)
    await dialog.getByLabel('Secret').fill(key.secret)
    await dialog.getByRole('button', { name: 'Sign in' }).click()
    await dialog.waitFor({ state: 'detached' })
    await page.getByText('Stream live.').waitFor({ timeout: 20_000 })
    await page.getByRole('heading', { name: 'Live requests of pets mock' }).waitFor()
    expect(pageErrors).toEqual([])
    expect((await platform.stop()).code).toBe(0)
  }, 120_000)
})
