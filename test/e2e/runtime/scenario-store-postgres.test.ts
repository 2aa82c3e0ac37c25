import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Agent, request } from 'undici'
import { describe, expect, it } from 'vitest'
import { runCli, startCli, type CliServer } from '../../helpers/cli.js'
import { freshPgDatabase, hasPostgres, PG_SKIP_REASON } from '../../helpers/postgres.js'
import { tempDir } from '../../helpers/temp-dir.js'

/*
 * Scenario states shared by several processes through PostgreSQL (`--scenario-store
 * postgres://...`): 1,000 concurrent requests racing for one transition, spread over two `run`
 * processes, make exactly one transition; both processes see and reset the same states.
 */

if (!hasPostgres) console.warn(`[PostgreSQL scenario-store tests skipped] ${PG_SKIP_REASON}`)

const MOCK = `
transactions:
  - name: pay once
    dsl:
      requestDsl: { method: POST, path: /checkout }
      scenario: { name: checkout, requiredState: Started, newState: Paid }
      responseDsl: { status: 200, json: { won: true } }
  - name: already paid
    dsl:
      requestDsl: { method: POST, path: /checkout }
      priority: 20
      responseDsl: { status: 409, json: { won: false } }
`

async function databaseUrl(): Promise<string> {
  const url = await freshPgDatabase()
  if (url === undefined) throw new Error(PG_SKIP_REASON)
  return url
}

async function twoProcesses(store: string): Promise<CliServer[]> {
  const dir = tempDir('understudy-scenario-pg-')
  writeFileSync(join(dir, 'mock.yaml'), MOCK)
  return await Promise.all(
    [0, 1].map(
      async () =>
        await startCli(
          [
            'run',
            '--mock',
            join(dir, 'mock.yaml'),
            '--port',
            '0',
            '--admin-port',
            '0',
            '--scenario-store',
            store,
            '--no-inspection',
          ],
          { timeoutMs: 20_000 },
        ),
    ),
  )
}

function adminOf(server: CliServer): string {
  return /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1] ?? ''
}

describe.skipIf(!hasPostgres)('scenario states shared through PostgreSQL', () => {
  it('makes exactly one transition out of 1,000 concurrent requests over two processes, and both see and reset it', async () => {
    const url = await databaseUrl()
    const servers = await twoProcesses(`${url}?prefix=checkout-test`)
    for (const s of servers) await s.waitFor('stdout', /admin on http:\/\/\S+/)
    const agent = new Agent({ connections: 256 })
    const race = async (): Promise<number[]> =>
      await Promise.all(
        Array.from({ length: 1000 }, async (_, i) => {
          const res = await request(`${servers[i % 2]?.url ?? ''}/checkout`, {
            method: 'POST',
            dispatcher: agent,
          })
          await res.body.dump()
          return res.statusCode
        }),
      )
    const statuses = await race()
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(999)

    // Both processes' admin APIs read the state from the database.
    for (const s of servers) {
      const body = (await (await fetch(`${adminOf(s)}/scenarios`)).json()) as {
        result: { scenarios: Array<{ name: string; state: string }> }
      }
      expect(body.result.scenarios).toEqual([{ name: 'checkout', instance: null, state: 'Paid' }])
    }
    // A reset through one process resets it for the other: the race can be won once more.
    expect(
      (await fetch(`${adminOf(servers[1] as CliServer)}/scenarios`, { method: 'DELETE' })).status,
    ).toBe(200)
    const again = await race()
    expect(again.filter((s) => s === 200)).toHaveLength(1)
    await agent.close()
  }, 90_000)

  it('refuses a database it cannot reach, in one line', async () => {
    const dir = tempDir('understudy-scenario-pg-bad-')
    writeFileSync(join(dir, 'mock.yaml'), MOCK)
    const unreachable = await runCli(
      [
        'run',
        '--mock',
        join(dir, 'mock.yaml'),
        '--port',
        '0',
        '--scenario-store',
        'postgres://u:secret@127.0.0.1:1/db',
      ],
      { timeoutMs: 20_000 },
    )
    expect(unreachable.code).not.toBe(0)
    expect(unreachable.stderr).toMatch(
      /--scenario-store: cannot reach postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/db/,
    )
    expect(unreachable.stderr.trim().split('\n')).toHaveLength(1)
  }, 40_000)
})
