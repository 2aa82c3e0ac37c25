import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startCli, type CliServer } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

// The runtime's copy of the dashboard at /__ui/ (on the admin port) had drifted from the
// platform's /ui/: its pages went out without `form-action 'self'` in the Content-Security-Policy
// and without `X-Frame-Options: DENY`. Both surfaces now serve the app through one static-file
// server, with one set of security headers.

let server: CliServer | undefined

afterAll(async () => {
  await server?.stop()
})

describe("the runtime's dashboard at /__ui/", () => {
  it('answers with the same security headers as the platform dashboard', async () => {
    const dir = tempDir('understudy-ui-headers-')
    writeFileSync(
      join(dir, 'pets.yaml'),
      'transactions:\n  - dsl:\n      requestDsl: { method: GET, path: /pets }\n      responseDsl: { json: [] }\n',
    )
    server = await startCli(['serve', dir, '--port', '0', '--admin-port', '0'])
    await server.waitFor('stdout', /admin on http:\/\/\S+/)
    const admin = /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1] ?? ''
    for (const path of ['/__ui/', '/__ui/app.js', '/__ui/some/client/route']) {
      const res = await fetch(`${admin}${path}`)
      expect(res.status, path).toBe(200)
      const csp = res.headers.get('content-security-policy') ?? ''
      expect(csp, path).toContain("form-action 'self'")
      expect(csp, path).toContain("frame-ancestors 'none'")
      expect(res.headers.get('x-frame-options'), path).toBe('DENY')
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff')
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer')
    }
  }, 60_000)
})
