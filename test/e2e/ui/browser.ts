import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { onTestFinished } from 'vitest'
import { tempDir } from '../../helpers/temp-dir.js'

/** Debian's Chromium (`apt-get install chromium`); .ci/run installs it when missing. */
const CHROMIUM = process.env['UNDERSTUDY_CHROMIUM'] ?? '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)
export const SKIP_REASON = `Chromium not found at ${CHROMIUM}: install it with "apt-get install -y chromium" (or set UNDERSTUDY_CHROMIUM) to run the dashboard's browser tests`

/**
 * A headless Chromium with a fresh profile, closed when the test finishes. Every alert/confirm is
 * recorded (an XSS test fails on any alert) and confirms are accepted.
 */
export async function openBrowser(): Promise<{
  context: BrowserContext
  page: Page
  dialogs: string[]
  pageErrors: string[]
}> {
  const context = await chromium.launchPersistentContext(tempDir('understudy-chromium-'), {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 800 },
    timeout: 30_000,
  })
  onTestFinished(async () => {
    await context.close()
  })
  const page = context.pages()[0] ?? (await context.newPage())
  page.setDefaultTimeout(15_000)
  const dialogs: string[] = []
  const pageErrors: string[] = []
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`)
    dialog.accept().catch(() => undefined)
  })
  page.on('pageerror', (err) => pageErrors.push(err.message))
  return { context, page, dialogs, pageErrors }
}

/** Saves a screenshot under $UNDERSTUDY_SCREENSHOTS (docs/img when refreshing the README's). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env['UNDERSTUDY_SCREENSHOTS']
  if (dir === undefined || dir === '') return
  mkdirSync(dir, { recursive: true })
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: false })
}

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: Array<{ target: unknown[]; failureSummary?: string }>
}

/**
 * Runs axe-core on the page as it is and answers its violations of any impact, one line each
 * (rule, impact, help, the first elements). axe is evaluated through the DevTools protocol, which
 * the page's Content-Security-Policy does not govern, so the page under test is left unchanged.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  const { readFileSync } = await import('node:fs')
  const { createRequire } = await import('node:module')
  const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
  await page.evaluate(`${source}\n;0`)
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run: (context: unknown, options: unknown) => Promise<{ violations: AxeViolation[] }>
        }
      }
    ).axe
    const result = await axe.run(document, { resultTypes: ['violations'] })
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes
        .slice(0, 3)
        .map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }))
  })
  return violations.map(
    (v) =>
      `${v.id} (${v.impact ?? 'no impact'}): ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`,
  )
}
