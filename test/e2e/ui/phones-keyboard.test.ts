import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { startCli, type CliServer } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { waitFor } from '../../helpers/wait.js'
import { hasChromium, openBrowser, SKIP_REASON } from './browser.js'

/*
 * The dashboard on a phone and from the keyboard, and the sharper live view: at 390x844 no page
 * scrolls sideways; navigation moves focus to the page's heading; the sign-in dialog takes focus
 * and keeps it; a sign-in in one tab revives the others; the live list filters, marks the
 * differing characters of a near miss and links to the closest transaction's editor; settings
 * reopen with what was saved, the answering transaction picked from a list.
 */

const key = { id: 'phone-key', secret: 'phone-secret-0123456789' }
const env = { UNDERSTUDY_API_KEY_ID: key.id, UNDERSTUDY_API_KEY_SECRET: key.secret }
const auth = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`

if (!hasChromium) console.warn(`[phone and keyboard tests skipped] ${SKIP_REASON}`)

async function api<T>(
  platform: CliServer,
  path: string,
  json?: unknown,
  method?: string,
): Promise<T> {
  const res = await fetch(platform.url + path, {
    method: method ?? (json === undefined ? 'GET' : 'POST'),
    headers: {
      authorization: auth,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  })
  return ((await res.json()) as { result: T }).result
}

async function scrollsSideways(page: Page): Promise<boolean> {
  return await page.evaluate(
    () => document.documentElement.scrollWidth > document.documentElement.clientWidth,
  )
}

async function signIn(page: Page): Promise<void> {
  await page.getByLabel('API key id').fill(key.id)
  await page.getByLabel('Secret').fill(key.secret)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

async function deployedMock(
  platform: CliServer,
): Promise<{ serviceId: number; mockId: number; endpoint: string; txnIds: number[] }> {
  const service = await api<{ id: number }>(platform, '/api/v1/workspaces/1/services', {
    name: 'a service with a rather long name for a phone screen',
  })
  const made = await api<Array<{ id: number }>>(
    platform,
    `/api/v1/workspaces/1/transactions?serviceId=${service.id}`,
    {
      transactions: [
        {
          name: 'order by id',
          dsl: {
            requestDsl: {
              method: 'GET',
              url: { matcherName: 'equals_url', matchingValue: '/orders/{id}' },
              headers: [
                { key: 'x-tenant', matcherName: 'equals', matchingValue: 'acme-corporation' },
              ],
            },
            responseDsl: {
              status: 200,
              json: {
                id: 1,
                items: [
                  'a very long item name that would push a narrow screen sideways if it did not wrap',
                ],
              },
            },
          },
        },
        {
          name: 'fallback answer',
          dsl: {
            requestDsl: {
              method: 'GET',
              url: { matcherName: 'equals_url', matchingValue: '/fallback' },
            },
            responseDsl: { status: 418, text: 'teapot' },
          },
        },
      ],
    },
  )
  const mock = await api<{ id: number }>(platform, '/api/v1/workspaces/1/service-mocks', {
    serviceId: service.id,
    name: 'orders mock',
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
  return { serviceId: service.id, mockId: mock.id, endpoint, txnIds: made.map((t) => t.id) }
}

describe.skipIf(!hasChromium)('the dashboard on a phone and from the keyboard', () => {
  it("does not scroll sideways at 390x844 on any main page, and moves focus to each page's heading", async () => {
    const platform = await startCli(
      ['platform', '--port', '0', '--data-dir', tempDir('understudy-phone-')],
      { env, timeoutMs: 20_000 },
    )
    const { mockId, endpoint } = await deployedMock(platform)
    expect(
      (await fetch(`${endpoint}/orders/7`, { headers: { 'x-tenant': 'acme-corp' } })).status,
    ).toBe(404)
    const { page, pageErrors } = await openBrowser()
    await page.setViewportSize({ width: 390, height: 844 })
    const wide: string[] = []
    const check = async (name: string): Promise<void> => {
      if (await scrollsSideways(page)) wide.push(name)
    }

    await page.goto(`${platform.url}/ui/`)
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    await check('sign-in')
    await signIn(page)
    await page.getByRole('heading', { name: 'Services & tags' }).waitFor()
    await check('services')

    await page.getByRole('link', { name: 'Transactions' }).click()
    await page.getByText('1–2 of 2 transactions').waitFor()
    expect(
      await page.evaluate(
        () => document.activeElement?.tagName + ' ' + (document.activeElement?.textContent ?? ''),
      ),
    ).toBe('H1 Transactions')
    await check('transactions')
    await page.getByText('order by id', { exact: true }).click()
    await page.getByRole('heading', { name: 'Response' }).waitFor()
    await check('transaction card')
    await page.getByRole('tab', { name: 'Edit' }).click()
    await page.getByRole('button', { name: 'Save transaction' }).waitFor()
    await check('transaction form')

    await page.getByRole('link', { name: 'Mock services' }).click()
    await page.getByRole('link', { name: 'orders mock' }).waitFor()
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Mock services')
    await check('mock services')
    await page.locator('summary[aria-label="More actions for orders mock"]').click()
    await page.getByRole('button', { name: 'Settings of orders mock' }).waitFor()
    await check('mock services menu')

    await page.goto(`${platform.url}/ui/#/mocks/${mockId}`)
    await page.locator('.live-list li.unmatched .row-button').click()
    await page.getByRole('heading', { name: 'Why nothing matched' }).waitFor()
    await check('live view')

    await page.getByRole('link', { name: 'Monitoring' }).click()
    await page.getByRole('heading', { name: 'Monitoring tests' }).waitFor()
    await check('monitoring')
    expect(wide).toEqual([])
    expect(pageErrors).toEqual([])
    await api(platform, `/api/v1/workspaces/1/service-mocks/${mockId}/stop`, {})
  }, 120_000)

  it('keeps focus in the sign-in dialog, and a sign-in in another tab revives this one', async () => {
    const platform = await startCli(
      ['platform', '--port', '0', '--data-dir', tempDir('understudy-focus-')],
      { env, timeoutMs: 20_000 },
    )
    const { page, context, pageErrors } = await openBrowser()
    await page.goto(`${platform.url}/ui/#/transactions`)
    await signIn(page)
    await page.getByRole('heading', { name: 'Transactions' }).waitFor()
    await page.getByLabel('Search name or description').fill('typed')

    // The session ends (cookie gone); the next call opens the dialog, which takes focus.
    await context.clearCookies()
    await page.getByLabel('Search name or description').fill('typed again')
    const dialog = page.getByRole('dialog', { name: 'Sign in again' })
    await dialog.waitFor()
    await expect
      .poll(
        async () =>
          await page.evaluate(() => document.activeElement?.closest('[role="dialog"]') !== null),
      )
      .toBe(true)
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab')
      expect(
        await page.evaluate(() => document.activeElement?.closest('[role="dialog"]') !== null),
      ).toBe(true)
    }

    // Another tab of the same browser signs in: this tab's dialog closes by itself, with what was typed kept.
    const other = await context.newPage()
    await other.goto(`${platform.url}/ui/`)
    await signIn(other)
    await other.getByRole('button', { name: 'Sign out' }).waitFor()
    await dialog.waitFor({ state: 'detached' })
    expect(await page.getByLabel('Search name or description').inputValue()).toBe('typed again')
    expect(pageErrors).toEqual([])
  }, 60_000)

  it('filters the live list, marks what differs, links to the closest transaction, and reopens settings as saved', async () => {
    const platform = await startCli(
      ['platform', '--port', '0', '--data-dir', tempDir('understudy-live-')],
      { env, timeoutMs: 20_000 },
    )
    const { mockId, endpoint, txnIds } = await deployedMock(platform)
    const { page, pageErrors } = await openBrowser()
    await page.goto(`${platform.url}/ui/#/mocks/${mockId}`)
    await signIn(page)
    await page.getByText(/Stream live/).waitFor()
    expect(
      (await fetch(`${endpoint}/orders/1`, { headers: { 'x-tenant': 'acme-corporation' } })).status,
    ).toBe(200)
    expect(
      (await fetch(`${endpoint}/orders/2`, { headers: { 'x-tenant': 'acme-corp' } })).status,
    ).toBe(404)
    await page.getByText(/2 requests shown/).waitFor()
    await page.getByLabel('Unmatched only').check()
    await page.getByText(/1 of 2 requests shown \(filtered\)/).waitFor()
    expect(await page.locator('.live-list li.matched').count()).toBe(0)
    await page.getByLabel('Unmatched only').uncheck()
    await page.getByLabel('Path contains').fill('/orders/1')
    await page.getByText(/1 of 2 requests shown/).waitFor()
    expect(await page.locator('.live-list li.unmatched').count()).toBe(0)
    await page.getByLabel('Path contains').fill('')
    await page.getByLabel('Status', { exact: true }).selectOption('4')
    await page.getByText(/1 of 2 requests shown/).waitFor()

    await page.locator('.live-list li.unmatched .row-button').click()
    await page.getByRole('heading', { name: 'Why nothing matched' }).waitFor()
    // The near misses come first; the problem document is there, folded.
    const order = await page.evaluate(() =>
      [...document.querySelectorAll('.panel h2')].map((h) => h.textContent),
    )
    expect(order[0]).toBe('Why nothing matched')
    expect(await page.locator('details.raw').getAttribute('open')).toBeNull()
    // acme-corporation against acme-corp: the differing characters are marked on the expected side.
    expect(await page.locator('table.diff td.expected mark').first().textContent()).toBe('oration')
    expect(await page.locator('table.diff caption').first().textContent()).toContain(
      'order by id (transaction',
    )
    await page.getByRole('link', { name: 'Edit the closest transaction' }).click()
    await page
      .getByRole('heading', { name: `Transaction #${txnIds[0] ?? 0}: order by id` })
      .waitFor()
    await page.getByRole('button', { name: 'Save transaction' }).first().waitFor()

    // Settings: answer unmatched requests with a transaction picked from the list; they reopen as saved.
    await page.getByRole('link', { name: 'Mock services' }).click()
    expect(await page.getByText('changes pending').count()).toBe(0)
    await api(platform, `/api/v1/workspaces/1/service-mocks/${mockId}/stop`, {})
    await page.reload()
    await page.locator('summary[aria-label="More actions for orders mock"]').click()
    await page.getByRole('button', { name: 'Settings of orders mock' }).click()
    const settings = page.getByRole('form', { name: 'Settings of orders mock' })
    await settings.getByLabel('When no transaction matches').selectOption('returnTransaction')
    await settings
      .getByLabel('Transaction to answer with')
      .selectOption({ label: `#${txnIds[1] ?? 0} fallback answer` })
    await settings.getByRole('button', { name: 'Save settings' }).click()
    await settings.waitFor({ state: 'detached', timeout: 5000 }).catch(async (err: unknown) => {
      throw new Error(`${String(err)}\n${(await settings.textContent()) ?? ''}`)
    })
    const saved = await api<{
      noMatchingRequestTxnId: number
      noMatchingRequestPreference: string
    }>(platform, `/api/v1/workspaces/1/service-mocks/${mockId}`)
    expect(saved).toMatchObject({
      noMatchingRequestPreference: 'returnTransaction',
      noMatchingRequestTxnId: txnIds[1],
    })
    await page.reload()
    await page.locator('summary[aria-label="More actions for orders mock"]').click()
    await page.getByRole('button', { name: 'Settings of orders mock' }).click()
    expect(await settings.getByLabel('When no transaction matches').inputValue()).toBe(
      'returnTransaction',
    )
    await expect
      .poll(async () => await settings.getByLabel('Transaction to answer with').inputValue())
      .toBe(String(txnIds[1]))
    // Stopped: no "changes pending" while Configure is not offered.
    expect(await page.getByText('changes pending').count()).toBe(0)
    expect(pageErrors).toEqual([])
  }, 120_000)
})
