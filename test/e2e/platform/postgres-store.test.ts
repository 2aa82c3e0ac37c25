import { createServer, type AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { runCli, startCli } from '../../helpers/cli.js'
import { hasPostgres, requirePgDatabase } from '../../helpers/postgres.js'
import { tempDir } from '../../helpers/temp-dir.js'

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('understudy platform --store', () => {
  it('refuses a store that is not a PostgreSQL URL, in one line, with exit code 2', async () => {
    const result = await runCli(['platform', '--data-dir', tempDir(), '--store', 'mysql://db/x'])
    expect(result.stderr).toBe(
      'understudy platform: --store must be a postgres:// or postgresql:// URL (without it the store is SQLite, in --data-dir), not "mysql://db/x"\n',
    )
    expect(result.code).toBe(2)
  })

  it('says in one line, without the password, that an unreachable server cannot be the store (also from UNDERSTUDY_STORE)', async () => {
    const port = await closedPort()
    const result = await runCli(['platform', '--data-dir', tempDir(), '--port', '0'], {
      env: { UNDERSTUDY_STORE: `postgres://ada:s3cret@127.0.0.1:${port}/understudy` },
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toBe(
      `understudy platform: Storage failure: cannot open the PostgreSQL store 127.0.0.1:${port}/understudy: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    )
    expect(result.stdout).toBe('')
  })

  it.skipIf(!hasPostgres)(
    'keeps the records in PostgreSQL: a second platform on the same database, with another data dir, serves them',
    async () => {
      const url = await requirePgDatabase()
      const env = {
        UNDERSTUDY_API_KEY_ID: 'pg-key',
        UNDERSTUDY_API_KEY_SECRET: 'pg-secret-0123456789',
      }
      const auth = `Basic ${Buffer.from('pg-key:pg-secret-0123456789').toString('base64')}`
      const first = await startCli(
        ['platform', '--data-dir', tempDir(), '--port', '0', '--store', url],
        { env },
      )
      // the bootstrap's workspace, the first of a new database
      const workspaceId = 1
      const created = await fetch(`${first.url}/api/v1/workspaces/${workspaceId}/services`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'kept in postgres' }),
      })
      expect(created.status).toBe(201)
      await first.stop()
      const second = await startCli(['platform', '--data-dir', tempDir(), '--port', '0'], {
        env: { ...env, UNDERSTUDY_STORE: url },
      })
      const listed = (await (
        await fetch(`${second.url}/api/v1/workspaces/${workspaceId}/services`, {
          headers: { authorization: auth },
        })
      ).json()) as { result: Array<{ name: string }> }
      expect(listed.result.map((s) => s.name)).toEqual(['kept in postgres'])
      await second.stop()
    },
  )
})
