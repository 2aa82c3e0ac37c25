import { expect, it } from 'vitest'
import { startCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

// Defect: `/favicon.ico` of the platform (asked by a browser for any page it shows, an API
// answer opened in a tab included) answered 404.
it('answers /favicon.ico with the dashboard icon', async () => {
  const platform = await startCli(
    ['platform', '--port', '0', '--data-dir', tempDir('understudy-favicon-')],
    {
      env: {
        UNDERSTUDY_API_KEY_ID: 'favicon-key',
        UNDERSTUDY_API_KEY_SECRET: 'favicon-secret-012345',
      },
    },
  )
  const moved = await fetch(`${platform.url}/favicon.ico`, { redirect: 'manual' })
  expect(moved.status).toBe(301)
  expect(moved.headers.get('location')).toBe('/ui/favicon.svg')
  const icon = await fetch(`${platform.url}/favicon.ico`)
  expect(icon.status).toBe(200)
  expect(icon.headers.get('content-type')).toContain('image/svg+xml')
})
