import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli, type CliServer } from '../../helpers/cli.js'
import { monitoringToken } from '../../helpers/monitor-token.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { hasChromium, openBrowser, screenshot, SKIP_REASON } from './browser.js'

/*
 * The dashboard's main scenario in a real browser against the real `understudy platform` binary: sign in,
 * import a HAR by file chooser, create and deploy a mock service, send requests and watch them
 * arrive live, open a near-miss diff, stop the service, sign out; and a transaction named like an
 * HTML payload is shown as text.
 */

const key = { id: 'ui-key', secret: 'ui-secret-0123456789' }
const env = { UNDERSTUDY_API_KEY_ID: key.id, UNDERSTUDY_API_KEY_SECRET: key.secret }
const auth = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`

if (!hasChromium) console.warn(`[dashboard tests skipped] ${SKIP_REASON}`)

function har(): string {
  const entry = (url: string, body: string) => ({
    startedDateTime: '2024-05-01T10:00:00.000Z',
    time: 5,
    request: {
      method: 'GET',
      url,
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
      headers: [{ name: 'Content-Type', value: 'application/json' }],
      cookies: [],
      content: { size: body.length, mimeType: 'application/json', text: body },
      redirectURL: '',
      headersSize: -1,
      bodySize: body.length,
    },
    cache: {},
    timings: { send: 0, wait: 5, receive: 0 },
  })
  return JSON.stringify({
    log: {
      version: '1.2',
      creator: { name: 'test', version: '1' },
      entries: [
        entry('http://pets.example/pets', '[{"id":1}]'),
        entry('http://pets.example/pets/1', '{"id":1,"name":"Rex"}'),
      ],
    },
  })
}

async function startPlatform(): Promise<CliServer> {
  return startCli(['platform', '--port', '0', '--data-dir', tempDir('understudy-ui-')], {
    env,
    timeoutMs: 20_000,
  })
}

async function api(
  platform: CliServer,
  path: string,
  init: RequestInit & { json?: unknown } = {},
): Promise<{ status: number; body: { result: unknown } }> {
  const { json, ...rest } = init
  const headers = new Headers(init.headers)
  headers.set('authorization', auth)
  if (json !== undefined) headers.set('content-type', 'application/json')
  const res = await fetch(platform.url + path, {
    ...rest,
    headers,
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  })
  return { status: res.status, body: (await res.json()) as { result: unknown } }
}

describe.skipIf(!hasChromium)('dashboard in Chromium', () => {
  it('signs in, imports a HAR, deploys a mock service, shows requests live with a near-miss diff, stops it and signs out', async () => {
    const platform = await startPlatform()
    const { page, pageErrors, context } = await openBrowser()

    await page.goto(`${platform.url}/ui/`)
    await screenshot(page, 'sign-in')
    // Bad input first: the form says so at the field and sends nothing.
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(() => page.getByText('The API key id is required').isVisible()).toBe(true)
    await page.getByLabel('API key id').fill(key.id)
    await page.getByLabel('Secret').fill('wrong-secret')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByText('does not match the key id').waitFor()
    await page.getByLabel('Secret').fill(key.secret)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
    await page.getByRole('link', { name: 'Mock services' }).waitFor()

    // The platform serves the monitoring API (the session holds its own token): its page is offered.
    const buckets = await fetch(`${platform.url}/buckets`, {
      headers: { authorization: await monitoringToken(platform.url, auth) },
    })
    expect(buckets.status).toBe(200)
    await page.getByRole('link', { name: 'Monitoring' }).waitFor()
    const cookies = await context.cookies(platform.url)
    const session = cookies.find((c) => c.name === 'understudy_ui')
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' })

    // Services: create, then a duplicate name is refused at the field in words.
    await page.getByLabel('New service name').fill('pets')
    await page.getByRole('button', { name: 'Create service' }).click()
    await page.getByRole('link', { name: 'pets' }).waitFor()
    await page.getByLabel('New service name').fill('pets')
    await page.getByRole('button', { name: 'Create service' }).click()
    await page.locator('.field-error').first().waitFor()
    expect(await page.locator('.alert').first().textContent()).toMatch(/pets/)
    await page.getByLabel('New service name').fill('')
    await screenshot(page, 'services')

    // Transactions: import a HAR by file chooser, see the report and the list.
    await page.getByRole('link', { name: 'pets' }).click()
    await page.getByRole('heading', { name: 'Transactions' }).waitFor()
    const harFile = join(tempDir('understudy-har-'), 'pets.har')
    writeFileSync(harFile, har())
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.locator('#import-file').click(),
    ])
    await chooser.setFiles(harFile)
    await page.getByText('Imported 2 transactions.').waitFor()
    await page.getByText('1–2 of 2 transactions', { exact: true }).waitFor()
    await page.locator('.txn-list .row-button').first().click()
    await page.getByRole('heading', { name: 'Response' }).waitFor()
    await screenshot(page, 'transactions')

    // Mock services: create from the service, deploy, follow the tracking until RUNNING.
    await page.getByRole('link', { name: 'Mock services' }).click()
    await page.getByLabel('Service *').selectOption({ label: 'pets' })
    await page.getByLabel('Mock service name').fill('pets mock')
    await page.getByRole('button', { name: 'Create mock service' }).click()
    await page.getByRole('link', { name: 'pets mock' }).waitFor()
    await page.getByRole('button', { name: 'Deploy pets mock' }).click()
    await page.getByText(/deploy pets mock: FINISHED/).waitFor({ timeout: 30_000 })
    const endpoint = (await page.locator('td code').first().textContent()) ?? ''
    expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+/)
    expect(new URL(endpoint).port).not.toBe(new URL(platform.url).port)
    await screenshot(page, 'mock-services')

    // Live inspection: requests sent after the page opened stream in without a reload.
    await page.getByRole('link', { name: 'Live' }).click()
    await page.getByText(/Stream live/).waitFor()
    expect((await fetch(`${endpoint}/pets/1`)).status).toBe(200)
    expect((await fetch(`${endpoint}/petz`)).status).toBe(404)
    await page.locator('.live-list li.unmatched').waitFor()
    await page.locator('.live-list li.matched').waitFor()
    // The charts count them from the inspection ring (statusCode and durationMs of each entry).
    await page.getByText(/^2 requests in the last hour; latest p95 latency \d+ ms\.$/).waitFor()
    expect(await page.locator('.chart canvas').count()).toBe(3)
    await screenshot(page, 'live-inspection')
    await page.locator('.live-list li.unmatched .row-button').click()
    await page.getByRole('heading', { name: 'Why nothing matched' }).waitFor()
    const diff = page.locator('table.diff').first()
    expect(await diff.locator('td.expected').first().textContent()).toContain('/pets')
    expect(await diff.locator('td.actual').first().textContent()).toContain('/petz')
    await page.locator('.near-misses').scrollIntoViewIfNeeded()
    await screenshot(page, 'near-miss')

    // "Make a transaction from this request" creates it in the mock service's service.
    await page.getByRole('button', { name: 'Make a transaction from this request' }).click()
    await page.getByText(/Created transaction/).waitFor()
    const made = await api(platform, '/api/v1/workspaces/1/transactions?name=GET%20%2Fpetz')
    expect(made.body.result).toHaveLength(1)

    // Stop, then sign out: the session ends on the server too.
    await page.getByRole('link', { name: 'Mock services' }).click()
    await page.locator('summary[aria-label="More actions for pets mock"]').click()
    await page.getByRole('button', { name: 'Stop pets mock' }).click()
    await page.getByText(/stop pets mock: FINISHED/).waitFor({ timeout: 30_000 })
    await page.locator('.badge.stopped').waitFor()
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    const replay = await fetch(`${platform.url}/api/v4/user`, {
      headers: { cookie: `understudy_ui=${session?.value ?? ''}`, 'x-requested-with': 'test' },
    })
    expect(replay.status).toBe(401)
    expect(pageErrors).toEqual([])
    expect((await platform.stop()).code).toBe(0)
  }, 120_000)

  it('shows a transaction named like HTML as text, and an ended session returns to sign-in keeping what was typed', async () => {
    const platform = await startPlatform()
    const service = await api(platform, '/api/v1/workspaces/1/services', {
      method: 'POST',
      json: { name: '<b>svc</b>' },
    })
    const serviceId = (service.body.result as { id: number }).id
    const payload = '<img src=x onerror=alert(1)>'
    const created = await api(
      platform,
      `/api/v1/workspaces/1/transactions?serviceId=${serviceId}`,
      {
        method: 'POST',
        json: {
          name: payload,
          description: '<script>alert(2)</script>',
          dsl: {
            requestDsl: { method: 'GET', path: '/x' },
            responseDsl: { status: 200, text: '<img src=y onerror=alert(3)>' },
          },
        },
      },
    )
    expect(created.status).toBe(200)
    const { page, dialogs, pageErrors, context } = await openBrowser()
    await page.goto(`${platform.url}/ui/#/transactions`)
    await page.getByLabel('API key id').fill(key.id)
    await page.getByLabel('Secret').fill(key.secret)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByText(payload, { exact: true }).waitFor()
    await page.getByText(payload, { exact: true }).click()
    await page.getByText('<img src=y onerror=alert(3)>').waitFor()
    expect(await page.locator('img').count()).toBe(0)
    expect(await page.locator('main script').count()).toBe(0)
    expect(dialogs).toEqual([])

    // Type into the edit form, then lose the session: sign-in appears over the page, and what was
    // typed is still there afterwards.
    await page.getByRole('tab', { name: 'Edit' }).click()
    await page.getByLabel('Description', { exact: true }).fill('typed before the session ended')
    await context.clearCookies()
    await page.getByRole('button', { name: 'Save transaction' }).click()
    const dialog = page.getByRole('dialog', { name: 'Sign in again' })
    await dialog.waitFor()
    await dialog.getByLabel('API key id').fill(key.id)
    await dialog.getByLabel('Secret').fill(key.secret)
    await dialog.getByRole('button', { name: 'Sign in' }).click()
    await dialog.waitFor({ state: 'detached' })
    expect(await page.getByLabel('Description', { exact: true }).inputValue()).toBe(
      'typed before the session ended',
    )
    await page.getByRole('button', { name: 'Save transaction' }).click()
    await page
      .getByRole('tab', { name: 'Card' })
      .and(page.locator('[aria-selected="true"]'))
      .waitFor()
    const saved = await api(platform, `/api/v1/workspaces/1/transactions?serviceId=${serviceId}`)
    expect((saved.body.result as Array<{ description: string }>)[0]?.description).toBe(
      'typed before the session ended',
    )
    expect(pageErrors).toEqual([])
  }, 90_000)
})
