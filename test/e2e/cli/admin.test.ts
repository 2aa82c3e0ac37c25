import { describe, expect, it } from 'vitest'
import { runCli } from '../../helpers/cli.js'
import { startTestPlatform } from '../../helpers/platform.js'

describe('understudy admin create-account', () => {
  it('creates a second account on a live data dir and prints a key that works at once', async () => {
    const platform = await startTestPlatform()
    const made = await runCli([
      'admin',
      'create-account',
      '--name',
      'Globex',
      '--email',
      'hank@globex.test',
      '--data-dir',
      platform.dataDir,
    ])
    expect(made.code).toBe(0)
    const key = /^api key: (\S+):(\S+)$/m.exec(made.stdout)
    expect(key).not.toBeNull()
    const auth = `Basic ${Buffer.from(`${key?.[1] ?? ''}:${key?.[2] ?? ''}`).toString('base64')}`
    const me = await platform.request('/api/v4/user', { headers: { authorization: auth } })
    expect(me.status).toBe(200)
    const user = (await me.json()) as {
      result: { email: string; accountId: number; accountRoles: string[] }
    }
    expect(user.result).toMatchObject({
      email: 'hank@globex.test',
      accountRoles: ['owner', 'admin'],
    })
    expect(user.result.accountId).not.toBe(platform.accountId)
    // The bootstrap key does not see the new account.
    expect((await platform.request(`/api/v4/accounts/${user.result.accountId}`)).status).toBe(404)
  })

  it('refuses a missing name or a bad e-mail with a one-line message and a non-zero exit', async () => {
    const platform = await startTestPlatform()
    const noName = await runCli([
      'admin',
      'create-account',
      '--email',
      'a@b.test',
      '--data-dir',
      platform.dataDir,
    ])
    expect(noName.code).not.toBe(0)
    expect(noName.stderr).toMatch(/--name/)
    const badEmail = await runCli([
      'admin',
      'create-account',
      '--name',
      'x',
      '--email',
      'nope',
      '--data-dir',
      platform.dataDir,
    ])
    expect(badEmail.code).not.toBe(0)
    expect(badEmail.stderr).toMatch(/--email/)
  })

  it('refuses a --store that is not PostgreSQL, or given with --data-dir, before touching any store', async () => {
    const account = ['admin', 'create-account', '--name', 'x', '--email', 'a@b.test']
    const mysql = await runCli([...account, '--store', 'mysql://db/understudy'])
    expect(mysql.code).toBe(2)
    expect(mysql.stderr).toMatch(/--store must be a postgres:\/\/ or postgresql:\/\/ URL/)
    const both = await runCli([
      ...account,
      '--store',
      'postgres://127.0.0.1:1/none',
      '--data-dir',
      '/nonexistent',
    ])
    expect(both.code).toBe(2)
    expect(both.stderr).toMatch(/--data-dir and --store name two stores/)
  })
})
