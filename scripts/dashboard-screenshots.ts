/*
 * The dashboard's screenshots in docs/images/, made again from scratch, and a walk through what
 * a user checks on the way (no console error, no page wider than a phone, a compressed API answer,
 * no favicon 404): `npm run build && npx tsx scripts/dashboard-screenshots.ts [out-dir]`.
 *
 * It starts the built `understudy platform` on port 0 with a fresh data dir and a small upstream
 * for a monitoring step, fills it through the APIs (a 10,000-transaction service, a small shop
 * service deployed as a mock service and sent traffic before and after a redeploy), and drives
 * Debian's Chromium (`/usr/bin/chromium`, or $UNDERSTUDY_CHROMIUM) headless with playwright-core.
 * Exits non-zero when a check fails or a picture is larger than 150 KB.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve as resolvePath } from 'node:path'
import { chromium, type Page } from 'playwright-core'

const OUT = resolvePath(process.argv[2] ?? 'docs/images')
const CHROMIUM = process.env['UNDERSTUDY_CHROMIUM'] ?? '/usr/bin/chromium'
const MAX_PNG_BYTES = 150 * 1024
const key = { id: 'screens-key', secret: 'screens-secret-0123456789' }
const auth = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`

const failures: string[] = []
function check(ok: boolean, what: string): void {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`)
  if (!ok) failures.push(what)
}

async function startPlatform(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    ['dist/src/cli/main.js', 'platform', '--port', '0', '--data-dir', dataDir],
    {
      env: {
        ...process.env,
        UNDERSTUDY_API_KEY_ID: key.id,
        UNDERSTUDY_API_KEY_SECRET: key.secret,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`the platform did not start:\n${out}`)), 30_000)
    const read = (chunk: Buffer): void => {
      out += chunk.toString()
      const found = /listening on (http:\/\/\S+)/.exec(out)
      if (found?.[1] !== undefined) {
        clearTimeout(timer)
        resolve(found[1])
      }
    }
    child.stdout?.on('data', read)
    child.stderr?.on('data', read)
    child.on('exit', (code) => reject(new Error(`the platform exited (${code}):\n${out}`)))
  })
  return { child, url }
}

async function api<T>(base: string, method: string, path: string, json?: unknown): Promise<T> {
  const res = await fetch(base + path, {
    method,
    headers: {
      authorization: auth,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  })
  const body = (await res.json()) as { result: T; error: unknown }
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(body.error)}`)
  return body.result
}

async function act(base: string, mockId: number, action: 'deploy' | 'stop'): Promise<void> {
  const tracking = await api<{ trackingUrl: string }>(
    base,
    'POST',
    `/api/v1/workspaces/1/service-mocks/${mockId}/${action}`,
    {},
  )
  for (let i = 0; i < 300; i++) {
    const { status } = await api<{ status: string }>(
      base,
      'GET',
      new URL(tracking.trackingUrl, base).pathname,
    )
    if (status === 'FINISHED') return
    if (status === 'FAILED') throw new Error(`${action} failed`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${action} did not end`)
}

async function upstream(): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json')
    res.setHeader('x-served-by', 'upstream')
    res.end('{"version":"1.2.3"}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

/** What a person would fill in: a 10,000-transaction API and a small shop, deployed. */
async function seed(base: string): Promise<{ ordersId: number; shopId: number; mockId: number }> {
  const orders = await api<{ id: number }>(base, 'POST', '/api/v1/workspaces/1/services', {
    name: 'orders API (recorded)',
  })
  const many = Array.from({ length: 10_000 }, (_, n) => ({
    name: `GET /v1/orders/${n}`,
    tags: n % 3 === 0 ? ['recorded'] : [],
    dsl: {
      requestDsl: { method: 'GET', path: `/v1/orders/${n}` },
      responseDsl: { status: n % 50 === 7 ? 404 : 200, json: { id: n, state: 'open' } },
    },
  }))
  await api(base, 'POST', `/api/v1/workspaces/1/transactions?serviceId=${orders.id}`, {
    transactions: many,
  })
  const shop = await api<{ id: number }>(base, 'POST', '/api/v1/workspaces/1/services', {
    name: 'shop',
  })
  await api(base, 'POST', `/api/v1/workspaces/1/transactions?serviceId=${shop.id}`, {
    transactions: [
      {
        name: 'order by id',
        tags: ['orders'],
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
            headers: [{ name: 'cache-control', value: 'no-store' }],
            json: { id: 1, state: 'paid', items: [{ sku: 'A-1', quantity: 2 }] },
            responseDelay: { type: 'uniform', lower: 20, upper: 60 },
          },
        },
      },
      {
        name: 'place an order',
        tags: ['orders'],
        dsl: {
          requestDsl: {
            method: 'POST',
            path: '/orders',
            body: [{ key: '$.sku', matcherName: 'matches', matchingValue: '[A-Z]-\\d+' }],
          },
          responseDsl: { status: 201, json: { id: 2, state: 'open' } },
        },
      },
      {
        name: 'health',
        dsl: {
          requestDsl: { method: 'GET', path: '/health' },
          responseDsl: { status: 200, text: 'ok' },
        },
      },
    ],
  })
  const mock = await api<{ id: number }>(base, 'POST', '/api/v1/workspaces/1/service-mocks', {
    serviceId: shop.id,
    name: 'shop mock',
  })
  return { ordersId: orders.id, shopId: shop.id, mockId: mock.id }
}

async function endpointOf(base: string, mockId: number): Promise<string> {
  return (
    await api<{ httpEndpoint: string }>(base, 'GET', `/api/v1/workspaces/1/service-mocks/${mockId}`)
  ).httpEndpoint
}

async function shoot(page: Page, name: string, height?: number): Promise<void> {
  const path = join(OUT, `${name}.png`)
  const size = page.viewportSize()
  await page.screenshot({
    path,
    ...(height === undefined || size === null
      ? {}
      : { clip: { x: 0, y: 0, width: size.width, height } }),
  })
  const bytes = statSync(path).size
  check(bytes <= MAX_PNG_BYTES, `${name}.png is ${Math.round(bytes / 1024)} KB (at most 150)`)
}

async function sideways(page: Page): Promise<boolean> {
  return await page.evaluate(
    () => document.documentElement.scrollWidth > document.documentElement.clientWidth,
  )
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true })
  const dataDir = mkdtempSync(join(tmpdir(), 'understudy-screens-'))
  const profile = mkdtempSync(join(tmpdir(), 'understudy-screens-chromium-'))
  const { child, url: base } = await startPlatform(dataDir)
  const up = await upstream()
  try {
    const { ordersId, shopId, mockId } = await seed(base)

    // A first run, then a stop and a redeploy: its requests stay listed as an earlier run.
    await act(base, mockId, 'deploy')
    let endpoint = await endpointOf(base, mockId)
    await fetch(`${endpoint}/health`)
    await fetch(`${endpoint}/orders/1`, { headers: { 'x-tenant': 'acme-corporation' } })
    await act(base, mockId, 'stop')
    await act(base, mockId, 'deploy')
    endpoint = await endpointOf(base, mockId)
    await fetch(`${endpoint}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"sku":"A-7"}',
    })
    await fetch(`${endpoint}/orders/3`, { headers: { 'x-tenant': 'acme-corporation' } })
    await fetch(`${endpoint}/orders/2`, { headers: { 'x-tenant': 'acme-corp' } })

    // The API's JSON answers are compressed for a client that accepts gzip; no favicon 404.
    const listed = await fetch(`${base}/api/v1/workspaces/1/transactions?limit=500`, {
      headers: { authorization: auth, 'accept-encoding': 'gzip' },
    })
    check(listed.headers.get('content-encoding') === 'gzip', 'API JSON answers are gzipped')
    check((await fetch(`${base}/favicon.ico`)).status === 200, '/favicon.ico answers 200')

    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      viewport: { width: 1280, height: 800 },
    })
    const page = context.pages()[0] ?? (await context.newPage())
    page.setDefaultTimeout(30_000)
    const errors: string[] = []
    page.on('pageerror', (err) => errors.push(err.message))
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text())
    })
    page.on('dialog', (d) => {
      d.accept().catch(() => undefined)
    })

    await page.goto(`${base}/ui/`)
    await page.getByLabel('API key id').fill(key.id)
    await page.getByLabel('Secret').fill(key.secret)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Services & tags' }).waitFor()

    // The transaction list, paged: the last page of 10,000 is two clicks away.
    await page.goto(`${base}/ui/#/transactions?serviceId=${ordersId}`)
    await page.getByText('1–100 of 10,000 transactions', { exact: true }).waitFor()
    await page.getByRole('button', { name: 'Last' }).first().click()
    await page.getByText('9,901–10,000 of 10,000 transactions', { exact: true }).waitFor()
    check(
      (await page.locator('.txn-list code', { hasText: '/v1/orders/9999' }).count()) > 0,
      'the last transaction of 10,000 is on the last page',
    )
    await page.getByRole('button', { name: 'Previous' }).first().click()
    await page.getByText('9,801–9,900 of 10,000 transactions', { exact: true }).waitFor()
    // Trimmed at the twelfth row: the rows below say nothing more, and the picture stays small.
    await shoot(page, 'transaction-list-paged', 720)

    // The form editor of a transaction.
    await page.goto(`${base}/ui/#/transactions?serviceId=${shopId}`)
    await page.getByText('order by id', { exact: true }).click()
    await page.getByRole('tab', { name: 'Edit' }).click()
    const form = page.getByRole('form', { name: /^Save transaction/ })
    await form.waitFor()
    check(
      (await form.getByLabel('Body (JSON)').inputValue()).includes('"state": "paid"'),
      'the form editor shows the body as formatted JSON',
    )
    await page.getByRole('tablist').first().scrollIntoViewIfNeeded()
    await page.evaluate(() => window.scrollBy(0, -60))
    await shoot(page, 'transaction-form-editor')

    // The live view: the earlier run kept, a near miss open with its differences marked.
    await page.goto(`${base}/ui/#/mocks/${mockId}`)
    await page.getByText(/5 requests shown/).waitFor()
    check(
      (await page.locator('.live-list li.run-divider').count()) === 1,
      'the live view lists the earlier run after a stop and a redeploy',
    )
    await page.evaluate(() => {
      document.querySelector('.live-list')?.scrollIntoView({ block: 'center' })
    })
    await shoot(page, 'live-view-history')
    await page.locator('.live-list li.unmatched .row-button').first().click()
    await page.getByRole('heading', { name: 'Why nothing matched' }).waitFor()
    check(
      (await page.locator('table.diff td.expected mark').first().textContent()) === 'oration',
      'the near miss marks the differing characters',
    )
    check(
      ((await page.locator('table.diff caption').first().textContent()) ?? '').startsWith(
        'order by id (transaction',
      ),
      'the near miss names the transaction',
    )
    await page.locator('.live-list li.unmatched').first().scrollIntoViewIfNeeded()
    await page.evaluate(() => {
      document.querySelector('.live-list li.unmatched')?.scrollIntoView({ block: 'start' })
    })
    await shoot(page, 'live-view-near-miss')

    // Mock services: running, no "changes pending" since nothing changed.
    await page.getByRole('link', { name: 'Mock services' }).click()
    await page.getByRole('link', { name: 'shop mock' }).waitFor()
    check(
      (await page.getByText('changes pending', { exact: false }).count()) === 0,
      'no "changes pending" on a mock service running what is saved',
    )

    // Monitoring: a test whose step expects 201 where the service answers 200.
    await page.getByRole('link', { name: 'Monitoring' }).click()
    await page.getByRole('heading', { name: 'Monitoring tests' }).waitFor()
    await page.getByLabel('New bucket name').fill('release checks')
    await page.getByRole('button', { name: 'Create bucket' }).click()
    await page.getByRole('heading', { name: 'release checks' }).waitFor()
    await page.getByLabel('New test name').fill('version endpoint')
    await page.getByRole('button', { name: 'Create test' }).click()
    const item = page.locator('.test-item').filter({ hasText: 'version endpoint' })
    await item.getByRole('button', { name: 'Steps of version endpoint' }).click()
    await item.getByRole('button', { name: 'Add a request step' }).click()
    const step = item.getByRole('form', { name: /^Add step/ })
    await step.getByLabel('URL *').fill(`${up.url}/version`)
    await step.getByLabel('Expected value of assertion 1').fill('201')
    await step.getByRole('button', { name: 'Add assertion' }).click()
    await step.getByLabel('Source of assertion 2').selectOption('response_json')
    await step.getByLabel('Property of assertion 2').fill('version')
    await step.getByLabel('Comparison of assertion 2').selectOption('equal')
    await step.getByLabel('Expected value of assertion 2').fill('1.2.3')
    await step.getByRole('button', { name: 'Add step' }).click()
    await item.getByText('2 assertions').waitFor()
    await item.getByRole('button', { name: 'Steps of version endpoint' }).click()
    await item.getByRole('button', { name: 'Run version endpoint' }).click()
    await item.getByText('Run finished: fail.').waitFor({ timeout: 60_000 })
    const failed = item.locator('table.assertions tr.failed')
    check(
      (await failed.locator('td.expected').textContent()) === '201' &&
        (await failed.locator('td.actual').textContent()) === '200',
      'a failed run shows expected and actual',
    )
    await item.locator('table.assertions').scrollIntoViewIfNeeded()
    await page.evaluate(() => {
      document.querySelector('.test-item table.assertions')?.scrollIntoView({ block: 'center' })
    })
    await shoot(page, 'monitoring-failed-run')

    // A phone: nothing scrolls sideways; the mock service's actions are in a menu.
    await page.setViewportSize({ width: 390, height: 844 })
    const pages: Array<[string, string, () => Promise<void>]> = [
      ['services', '#/services', async () => await page.getByRole('heading').first().waitFor()],
      [
        'transactions',
        `#/transactions?serviceId=${ordersId}`,
        async () => await page.getByText(/of 10,000 transactions/).waitFor(),
      ],
      [
        'mock services',
        '#/mocks',
        async () => await page.getByRole('link', { name: 'shop mock' }).waitFor(),
      ],
      [
        'live view',
        `#/mocks/${mockId}`,
        async () => await page.getByText(/5 requests shown/).waitFor(),
      ],
      [
        'monitoring',
        '#/monitoring',
        async () => await page.getByRole('heading', { name: 'release checks' }).waitFor(),
      ],
    ]
    for (const [name, hash, ready] of pages) {
      await page.goto(`${base}/ui/${hash}`)
      await ready()
      check(!(await sideways(page)), `at 390 px the ${name} page does not scroll sideways`)
    }
    await page.goto(`${base}/ui/#/mocks`)
    await page.getByRole('link', { name: 'shop mock' }).waitFor()
    await page.locator('summary[aria-label="More actions for shop mock"]').click()
    await page.getByRole('button', { name: 'Settings of shop mock' }).waitFor()
    // The open menu below the card.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight))
    await shoot(page, 'phone-mock-services')

    check(errors.length === 0, `no script or console error${errors.length ? `: ${errors[0]}` : ''}`)
    await context.close()
  } finally {
    up.server.close()
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
    rmSync(dataDir, { recursive: true, force: true })
    rmSync(profile, { recursive: true, force: true })
  }
  if (failures.length > 0) {
    console.error(`${failures.length} check(s) failed`)
    process.exitCode = 1
  }
}

await main()
