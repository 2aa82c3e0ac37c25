import { describe, expect, it } from 'vitest'
import { startCli, type CliServer } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { waitFor } from '../../helpers/wait.js'
import { hasChromium, openBrowser, screenshot, SKIP_REASON } from './browser.js'

/*
 * The transactions page as a user works it in Chromium: every transaction of a 10,000-transaction
 * service reachable by paging, grouping, selection and export, create and duplicate and delete,
 * and the form editor: a JSON body typed as text, a status from the picker and a header row,
 * saved and then served by a deployed mock service.
 */

const key = { id: 'txn-ui-key', secret: 'txn-ui-secret-0123456789' }
const env = { UNDERSTUDY_API_KEY_ID: key.id, UNDERSTUDY_API_KEY_SECRET: key.secret }
const auth = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`

if (!hasChromium) console.warn(`[transactions page tests skipped] ${SKIP_REASON}`)

async function api<T>(
  platform: CliServer,
  path: string,
  init: { method?: string; json?: unknown } = {},
): Promise<{ status: number; result: T }> {
  const res = await fetch(platform.url + path, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers: {
      authorization: auth,
      ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
  })
  const body = (await res.json()) as { result: T }
  return { status: res.status, result: body.result }
}

async function signIn(
  platform: CliServer,
  hash: string,
): Promise<Awaited<ReturnType<typeof openBrowser>>> {
  const browser = await openBrowser()
  await browser.page.goto(`${platform.url}/ui/${hash}`)
  await browser.page.getByLabel('API key id').fill(key.id)
  await browser.page.getByLabel('Secret').fill(key.secret)
  await browser.page.getByRole('button', { name: 'Sign in' }).click()
  await browser.page.getByRole('button', { name: 'Sign out' }).waitFor()
  return browser
}

describe.skipIf(!hasChromium)('transactions page in Chromium', () => {
  it('pages through 10,000 transactions to the last one, groups, selects, duplicates and deletes', async () => {
    const platform = await startCli(
      ['platform', '--port', '0', '--data-dir', tempDir('understudy-txn-ui-')],
      { env, timeoutMs: 20_000 },
    )
    const service = await api<{ id: number }>(platform, '/api/v1/workspaces/1/services', {
      json: { name: 'orders' },
    })
    const many = Array.from({ length: 10_000 }, (_, i) => {
      const n = String(i + 1).padStart(5, '0')
      return {
        name: `GET /orders/${n}`,
        tags: i % 2 === 0 ? ['even'] : [],
        dsl: {
          requestDsl: {
            method: 'GET',
            url: { matcherName: 'equals_url', matchingValue: `/orders/${n}` },
          },
          responseDsl: { status: 200, json: { n: i + 1 } },
        },
      }
    })
    // Two transactions share a request line: grouping puts them together.
    many.push({
      name: 'slow twin of 00001',
      tags: [],
      dsl: {
        requestDsl: {
          method: 'GET',
          url: { matcherName: 'equals_url', matchingValue: '/orders/00001' },
        },
        responseDsl: { status: 503, json: { n: 0 } },
      },
    })
    expect(
      (
        await api(platform, `/api/v1/workspaces/1/transactions?serviceId=${service.result.id}`, {
          json: { transactions: many },
        })
      ).status,
    ).toBe(200)

    const { page, pageErrors } = await signIn(
      platform,
      `#/transactions?serviceId=${service.result.id}`,
    )
    await page.getByText('1–100 of 10,001 transactions', { exact: true }).waitFor()
    // A row says the request once (method, path), then its status and tags; the name only when it says more.
    const firstRow = page.locator('.txn-list .row-button').first()
    expect(await firstRow.textContent()).toMatch(/^#\d+ GET \/orders\/00001 200 even/)
    expect((await firstRow.textContent())?.match(/GET/g)?.length).toBe(1)
    await screenshot(page, 'transactions-list')

    await page.getByRole('button', { name: 'Last' }).first().click()
    await page.getByText('10,001–10,001 of 10,001 transactions', { exact: true }).waitFor()
    await page.getByText('slow twin of 00001', { exact: true }).waitFor()
    await page.getByRole('button', { name: 'Previous' }).first().click()
    await page.getByText('9,901–10,000 of 10,001 transactions', { exact: true }).waitFor()
    await page.locator('.txn-list code', { hasText: '/orders/10000' }).waitFor()
    // A page number typed and sent.
    await page.getByLabel('Page', { exact: true }).first().fill('50')
    await page.getByRole('button', { name: 'Go' }).first().click()
    await page.getByText('4,901–5,000 of 10,001 transactions', { exact: true }).waitFor()

    // 500 per page, grouped by method and path: the twins share a heading.
    await page.getByLabel('Per page').selectOption('500')
    await page.getByText('1–500 of 10,001 transactions', { exact: true }).waitFor()
    await page.getByLabel('Search name or description').fill('00001')
    await page.getByText('1–2 of 2 transactions', { exact: true }).waitFor()
    await page.getByLabel('Group by method and path').check()
    await page.getByRole('heading', { name: 'GET /orders/00001 (2)' }).waitFor()

    // Duplicate one, then delete the copy after confirming.
    await page.getByText('slow twin of 00001', { exact: true }).click()
    await page.getByRole('button', { name: 'Duplicate' }).click()
    await page.getByText(/^Duplicated #\d+ as #\d+ "slow twin of 00001 \(copy\)"\.$/).waitFor()
    await page.getByText('1–3 of 3 transactions', { exact: true }).waitFor()
    await page.getByText('slow twin of 00001 (copy)', { exact: true }).click()
    await page.getByRole('button', { name: 'Delete', exact: true }).first().click()
    const confirm = page.getByRole('alertdialog', { name: 'Confirm deletion' })
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    expect(await confirm.count()).toBe(0)
    await page.getByRole('button', { name: 'Delete', exact: true }).first().click()
    await confirm.getByRole('button', { name: 'Delete' }).click()
    await page.getByText(/^Deleted transaction #\d+\.$/).waitFor()
    await page.getByText('1–2 of 2 transactions', { exact: true }).waitFor()

    // Select both and export them: the file is the platform's export shape, and a create takes it back.
    await page.getByLabel('Select all on this page').check()
    await page.getByText('2 selected').waitFor()
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export selected as JSON' }).click(),
    ])
    const file = await download.path()
    const { readFileSync } = await import('node:fs')
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { transactions: Array<{ name: string }> }
    expect(doc.transactions.map((t) => t.name).sort()).toEqual([
      'GET /orders/00001',
      'slow twin of 00001',
    ])
    const [yamlDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export selected as YAML' }).click(),
    ])
    const { parse } = await import('yaml')
    const yamlDoc = parse(readFileSync(await yamlDownload.path(), 'utf8')) as typeof doc
    expect(yamlDoc).toEqual(doc)
    expect(pageErrors).toEqual([])
  }, 180_000)

  it('creates a transaction with the form, edits its JSON body, status and headers as text, and a deployed mock service serves them', async () => {
    const platform = await startCli(
      ['platform', '--port', '0', '--data-dir', tempDir('understudy-txn-form-')],
      { env, timeoutMs: 20_000 },
    )
    const service = await api<{ id: number }>(platform, '/api/v1/workspaces/1/services', {
      json: { name: 'greetings' },
    })
    const { page, pageErrors } = await signIn(
      platform,
      `#/transactions?serviceId=${service.result.id}`,
    )
    await page.getByText('0–0 of 0 transactions', { exact: true }).waitFor()

    await page.getByRole('button', { name: 'New transaction' }).click()
    const create = page.getByRole('form', { name: /^Create transaction/ })
    await create.getByLabel('Name').fill('say hello')
    await create.getByLabel('Path *', { exact: true }).fill('/hello')
    await create.getByLabel('Body (JSON)').fill('{"greeting": "hi"}')
    await create.getByRole('button', { name: 'Create transaction' }).click()
    await page.getByText(/^Created transaction #\d+ say hello\.$/).waitFor()
    await page.getByText('1–1 of 1 transaction', { exact: true }).waitFor()

    await page.getByText('say hello', { exact: true }).click()
    await page.getByRole('tab', { name: 'Edit' }).click()
    const edit = page.getByRole('form', { name: /^Save transaction/ })
    // The body opens decoded and formatted, never as base64.
    expect(await edit.getByLabel('Body (JSON)').inputValue()).toBe('{\n  "greeting": "hi"\n}')
    await edit.getByLabel('Body (JSON)').fill('{"greeting": ')
    await edit.getByRole('button', { name: 'Save transaction' }).click()
    await edit.getByText(/^The body is not valid JSON/).waitFor()
    await edit.getByLabel('Body (JSON)').fill('{"greeting": "hello, world", "n": 2}')
    await edit.getByLabel('Status').selectOption('201')
    await edit.getByRole('button', { name: 'Add header' }).click()
    await edit.getByLabel('Name of header 1').fill('X-Greeted')
    await edit.getByLabel('Value of header 1').fill('yes')
    await edit.getByRole('button', { name: 'Add matcher' }).click()
    await edit.getByLabel('Part of matcher 1').selectOption('queryParams')
    await edit.getByLabel('Key of matcher 1').fill('lang')
    await edit.getByLabel('Value of matcher 1').fill('en')
    await edit.getByLabel('Think time').selectOption('fixed')
    await edit.getByLabel('Duration (ms)').fill('5')
    await screenshot(page, 'transaction-form')
    await edit.getByRole('button', { name: 'Save transaction' }).click()
    await page
      .getByRole('tab', { name: 'Card' })
      .and(page.locator('[aria-selected="true"]'))
      .waitFor()
    // Tabs follow the tabs pattern: arrow keys move and select.
    await page.getByRole('tab', { name: 'Card' }).focus()
    await page.keyboard.press('ArrowRight')
    await page
      .getByRole('tab', { name: 'Edit' })
      .and(page.locator('[aria-selected="true"]'))
      .waitFor()
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Edit')
    expect(pageErrors).toEqual([])

    const mock = await api<{ id: number }>(platform, '/api/v1/workspaces/1/service-mocks', {
      json: { serviceId: service.result.id, name: 'greetings mock' },
    })
    let tracking = (
      await api<{ status: string; trackingUrl: string }>(
        platform,
        `/api/v1/workspaces/1/service-mocks/${mock.result.id}/deploy`,
        { method: 'POST' },
      )
    ).result
    await waitFor(
      async () => {
        tracking = (
          await api<typeof tracking>(platform, new URL(tracking.trackingUrl, platform.url).pathname)
        ).result
        return tracking.status === 'FINISHED' || tracking.status === 'FAILED'
      },
      'the deploy to end',
      { timeoutMs: 30_000, intervalMs: 200 },
    )
    expect(tracking.status).toBe('FINISHED')
    const view = await api<{ httpEndpoint: string }>(
      platform,
      `/api/v1/workspaces/1/service-mocks/${mock.result.id}`,
    )
    const served = await fetch(`${view.result.httpEndpoint}/hello?lang=en`)
    expect(served.status).toBe(201)
    expect(served.headers.get('x-greeted')).toBe('yes')
    expect(await served.json()).toEqual({ greeting: 'hello, world', n: 2 })
    expect((await fetch(`${view.result.httpEndpoint}/hello?lang=fr`)).status).toBe(404)
    await api(platform, `/api/v1/workspaces/1/service-mocks/${mock.result.id}/stop`, {
      method: 'POST',
    })
  }, 120_000)
})
