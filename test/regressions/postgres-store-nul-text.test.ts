import { describe, expect, it } from 'vitest'
import { startCli } from '../helpers/cli.js'
import { hasPostgres, requirePgDatabase } from '../helpers/postgres.js'
import { tempDir } from '../helpers/temp-dir.js'

/*
 * PostgreSQL's text cannot hold U+0000. A name holding it reached the database and came back as
 * a 500; it is the request that cannot be stored, so it is answered 400, and nothing is stored.
 */
describe.skipIf(!hasPostgres)('the PostgreSQL store and the NUL character', () => {
  it('answers 400 for a name holding U+0000, and stores nothing', async () => {
    const env = {
      UNDERSTUDY_API_KEY_ID: 'nul-key',
      UNDERSTUDY_API_KEY_SECRET: 'nul-secret-0123456789',
    }
    const auth = `Basic ${Buffer.from('nul-key:nul-secret-0123456789').toString('base64')}`
    const store = await requirePgDatabase()
    const platform = await startCli(
      ['platform', '--data-dir', tempDir(), '--port', '0', '--store', store],
      { env },
    )
    const services = `${platform.url}/api/v1/workspaces/1/services`
    const res = await fetch(services, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'a\u0000b' }),
    })
    expect(res.status).toBe(400)
    const body = (await res.json()) as { error: { code: string; message: string } }
    expect(body.error.code).toBe('ERR_API_BAD_REQUEST')
    expect(body.error.message).toContain('U+0000')
    const listed = (await (await fetch(services, { headers: { authorization: auth } })).json()) as {
      result: unknown[]
    }
    expect(listed.result).toEqual([])
    await platform.stop()
  })
})
