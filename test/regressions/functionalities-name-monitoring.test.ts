import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

// `understudy platform` serves the monitoring API, so the administration API's functionalities
// list `functionalApi` and a workspace's `functionalApi`, `functionalTest` and `testScheduler`
// flags are on (docs/api.md, "Accounts" and "Features, plan and billing"); the monitoring API
// never registered itself, so both said API testing was absent.

const auth = `Basic ${Buffer.from('func-key:func-secret').toString('base64')}`

async function v4<T>(url: string): Promise<T> {
  const res = await fetch(url, { headers: { authorization: auth } })
  expect(res.status, url).toBe(200)
  return ((await res.json()) as { result: T }).result
}

describe('the functionalities of the platform', () => {
  it('include API testing, and the workspace flags follow', async () => {
    const dir = tempDir('understudy-functionalities-')
    const platform = await startCli(['platform', '--port', '0', '--data-dir', join(dir, 'data')], {
      env: { UNDERSTUDY_API_KEY_ID: 'func-key', UNDERSTUDY_API_KEY_SECRET: 'func-secret' },
    })
    const [account] = await v4<Array<{ id: number }>>(`${platform.url}/api/v4/accounts`)
    const offered = await v4<{
      functionalities: Array<{ funcId: string; size: number; displayName: string }>
    }>(`${platform.url}/api/v4/accounts/${account?.id ?? 0}/functionalities`)
    expect(offered.functionalities).toEqual([
      { funcId: 'mockServices', size: -1, displayName: 'Mock Services' },
      { funcId: 'functionalApi', size: -1, displayName: 'API Functional Testing' },
    ])
    const [workspace] = await v4<Array<{ id: number }>>(
      `${platform.url}/api/v4/workspaces?accountId=${account?.id ?? 0}`,
    )
    const detail = await v4<{ features: Record<string, boolean> }>(
      `${platform.url}/api/v4/workspaces/${workspace?.id ?? 0}`,
    )
    expect(detail.features).toMatchObject({
      functionalApi: true,
      functionalTest: true,
      testScheduler: true,
      webdriver: false,
    })
    await platform.stop()
  }, 60_000)
})
