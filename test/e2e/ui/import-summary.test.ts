import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli, type CliServer } from '../../helpers/cli.js'
import { generatedHar } from '../../helpers/generated-har.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { hasChromium, openBrowser, SKIP_REASON } from './browser.js'

/*
 * The import answer the dashboard asks for is a summary: `summary=true` answers how many
 * transactions were created (in all and per file) instead of every created transaction, so a
 * 10,000-transaction import costs the page a few hundred bytes. Clients that do not ask keep the
 * full array.
 */

const key = { id: 'import-key', secret: 'import-secret-0123456789' }
const env = { UNDERSTUDY_API_KEY_ID: key.id, UNDERSTUDY_API_KEY_SECRET: key.secret }
const auth = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`

if (!hasChromium) console.warn(`[import summary browser test skipped] ${SKIP_REASON}`)

async function startPlatform(): Promise<{ platform: CliServer; serviceId: number }> {
  const platform = await startCli(
    ['platform', '--port', '0', '--data-dir', tempDir('understudy-import-')],
    { env, timeoutMs: 20_000 },
  )
  const res = await fetch(`${platform.url}/api/v1/workspaces/1/services`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'imported' }),
  })
  return { platform, serviceId: ((await res.json()) as { result: { id: number } }).result.id }
}

async function upload(
  platform: CliServer,
  fields: Record<string, string>,
  har: string,
): Promise<{ status: number; text: string }> {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.set(name, value)
  form.set('file', new Blob([har], { type: 'application/json' }), 'traffic.har')
  const res = await fetch(`${platform.url}/api/v1/workspaces/1/transactions`, {
    method: 'POST',
    headers: { authorization: auth },
    body: form,
  })
  return { status: res.status, text: await res.text() }
}

async function total(platform: CliServer, serviceId: number): Promise<number> {
  const res = await fetch(
    `${platform.url}/api/v1/workspaces/1/transactions?serviceId=${serviceId}&limit=1`,
    { headers: { authorization: auth } },
  )
  return ((await res.json()) as { total: number }).total
}

describe('the import summary', () => {
  it('answers a count instead of every transaction when asked, and the full array otherwise', async () => {
    const { platform, serviceId } = await startPlatform()
    const summary = await upload(
      platform,
      { serviceId: String(serviceId), verbose: 'true', summary: 'true' },
      generatedHar(10_000),
    )
    expect(summary.status).toBe(200)
    // Every transaction's DSL would be megabytes; the summary is a few hundred bytes.
    expect(Buffer.byteLength(summary.text)).toBeLessThan(1024)
    const body = JSON.parse(summary.text) as { result: unknown; warnings: unknown }
    expect(body.result).toEqual({
      created: 10_000,
      files: [{ file: 'traffic.har', created: 10_000 }],
    })
    expect(Array.isArray(body.warnings)).toBe(true)
    expect(await total(platform, serviceId)).toBe(10_000)

    // Without it (existing clients), the array of created transactions as before.
    const full = await upload(platform, { serviceId: String(serviceId) }, generatedHar(3))
    expect(full.status).toBe(200)
    const created = (JSON.parse(full.text) as { result: Array<{ id: number; dsl: unknown }> })
      .result
    expect(created).toHaveLength(3)
    expect(created[0]?.dsl).toBeDefined()

    // A value that is not a boolean is refused, naming the field, and nothing is stored.
    const bad = await upload(
      platform,
      { serviceId: String(serviceId), summary: 'maybe' },
      generatedHar(2),
    )
    expect(bad.status).toBe(400)
    expect(bad.text).toContain('/summary')
    expect(await total(platform, serviceId)).toBe(10_003)
  }, 120_000)

  it.skipIf(!hasChromium)(
    "keeps the page's import answer small for a 10,000-transaction file",
    async () => {
      const { platform, serviceId } = await startPlatform()
      const harFile = join(tempDir('understudy-import-har-'), 'ten-thousand.har')
      writeFileSync(harFile, generatedHar(10_000))
      const { page, pageErrors } = await openBrowser()
      await page.goto(`${platform.url}/ui/#/transactions?serviceId=${serviceId}`)
      await page.getByLabel('API key id').fill(key.id)
      await page.getByLabel('Secret').fill(key.secret)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('heading', { name: 'Transactions' }).waitFor()
      const answered = page.waitForResponse(
        (r) => r.request().method() === 'POST' && r.url().endsWith('/workspaces/1/transactions'),
        { timeout: 60_000 },
      )
      await page.locator('#import-file').setInputFiles(harFile)
      const response = await answered
      const text = await response.text()
      expect(Buffer.byteLength(text)).toBeLessThan(1024)
      expect((JSON.parse(text) as { result: { created: number } }).result.created).toBe(10_000)
      await page.getByText('Imported 10,000 transactions.').waitFor({ timeout: 30_000 })
      expect(pageErrors).toEqual([])
    },
    120_000,
  )
})
