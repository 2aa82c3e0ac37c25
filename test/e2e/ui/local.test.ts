import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { hasChromium, openBrowser, screenshot } from './browser.js'

/*
 * `understudy serve --admin-port` serves the inspection part of the dashboard at /__ui/ on the
 * admin port: requests stream in, and an unmatched one opens to its near-miss diff.
 */

const MOCK = `
transactions:
  - name: list pets
    dsl:
      requestDsl: { method: GET, path: /pets }
      responseDsl: { json: [{ id: 1 }] }
`

describe('dashboard on the admin port of serve', () => {
  it('serves /__ui/ and its event stream without touching the mock port', async () => {
    const dir = tempDir('understudy-local-ui-')
    writeFileSync(join(dir, 'pets.yaml'), MOCK)
    const server = await startCli(['serve', dir, '--port', '0', '--admin-port', '0'])
    await server.waitFor('stdout', /admin on http:\/\/\S+/)
    const admin = /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1] ?? ''
    const index = await fetch(`${admin}/__ui/`)
    expect(index.status).toBe(200)
    expect(await index.text()).toContain('"/__ui/app.js"')
    expect((await fetch(`${admin}/__ui/app.js`)).headers.get('content-type')).toContain(
      'javascript',
    )
    // The mock port knows nothing of it.
    expect((await fetch(`${server.url}/__ui/`)).status).toBe(404)

    if (!hasChromium) return
    const { page, pageErrors } = await openBrowser()
    await page.goto(`${admin}/__ui/`)
    await page.getByText(/Stream live/).waitFor()
    expect((await fetch(`${server.url}/pets`)).status).toBe(200)
    expect((await fetch(`${server.url}/pest`)).status).toBe(404)
    await page.locator('.live-list li.unmatched .row-button').click()
    await page.getByRole('heading', { name: 'Why nothing matched' }).waitFor()
    expect(await page.locator('table.diff td.expected').first().textContent()).toContain('/pets')
    // The caption names the transaction (a runtime serving files knows it by name, not by id).
    expect(await page.locator('table.diff caption').first().textContent()).toBe(
      'list pets: 1 of 2 matchers held',
    )
    await page.locator('.live-list li.matched').waitFor()
    // /pets, /pest, and the /__ui/ probe of the mock port above.
    expect(await page.locator('.live-list > li').count()).toBe(3)
    await screenshot(page, 'serve-inspection')
    expect(pageErrors).toEqual([])
  }, 60_000)
})
