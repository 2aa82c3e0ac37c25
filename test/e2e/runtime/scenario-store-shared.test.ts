import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Agent, request } from 'undici'
import { describe, expect, it } from 'vitest'
import { runCli, startCli, type CliServer } from '../../helpers/cli.js'
import { freshPgDatabase, hasPostgres, PG_SKIP_REASON } from '../../helpers/postgres.js'
import { hasRedis, REDIS_SKIP_REASON, startRedis } from '../../helpers/redis.js'
import { tempDir } from '../../helpers/temp-dir.js'

/*
 * Scenario states shared by several processes through Redis (`--scenario-store redis://...`) and
 * PostgreSQL (`--scenario-store postgres://...`): 1,000 concurrent requests racing for one
 * transition, spread over two `run` processes, make exactly one transition; both processes see and
 * reset the same states. Each store runs the same body.
 */

interface SharedStore {
  name: string
  available: boolean
  skipReason: string
  /** A fresh store's URL, without a prefix. */
  start: () => Promise<string>
  /** A store that does not answer, and how the one-line refusal names it. */
  unreachable: string
  unreachableMessage: RegExp
}

const STORES: SharedStore[] = [
  {
    name: 'Redis',
    available: hasRedis,
    skipReason: REDIS_SKIP_REASON,
    start: async () => (await startRedis()).url,
    unreachable: 'redis://127.0.0.1:1',
    unreachableMessage: /--scenario-store: cannot reach redis:\/\/127\.0\.0\.1:1/,
  },
  {
    name: 'PostgreSQL',
    available: hasPostgres,
    skipReason: PG_SKIP_REASON,
    start: async () => {
      const url = await freshPgDatabase()
      if (url === undefined) throw new Error(PG_SKIP_REASON)
      return url
    },
    unreachable: 'postgres://u:secret@127.0.0.1:1/db',
    // The password is never printed.
    unreachableMessage: /--scenario-store: cannot reach postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/db/,
  },
]

for (const store of STORES) {
  if (!store.available) {
    console.warn(`[${store.name} scenario-store tests skipped] ${store.skipReason}`)
  }
}

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

async function twoProcesses(store: string): Promise<CliServer[]> {
  const dir = tempDir('understudy-scenario-shared-')
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

describe.each(STORES)('scenario states shared through $name', (store) => {
  it.skipIf(!store.available)(
    'makes exactly one transition out of 1,000 concurrent requests over two processes, and both see and reset it',
    async () => {
      const servers = await twoProcesses(`${await store.start()}?prefix=checkout-test`)
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

      // Both processes' admin APIs read the state from the shared store.
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
    },
    90_000,
  )

  it.skipIf(!store.available)(
    'keeps the states of another prefix apart',
    async () => {
      const url = await store.start()
      const [a] = await twoProcesses(`${url}?prefix=one`)
      const [b] = await twoProcesses(`${url}?prefix=two`)
      expect((await fetch(`${a?.url ?? ''}/checkout`, { method: 'POST' })).status).toBe(200)
      expect((await fetch(`${b?.url ?? ''}/checkout`, { method: 'POST' })).status).toBe(200)
      expect((await fetch(`${a?.url ?? ''}/checkout`, { method: 'POST' })).status).toBe(409)
    },
    60_000,
  )

  it('refuses a store it cannot reach, in one line', async () => {
    const dir = tempDir('understudy-scenario-unreachable-')
    writeFileSync(join(dir, 'mock.yaml'), MOCK)
    const unreachable = await runCli(
      [
        'run',
        '--mock',
        join(dir, 'mock.yaml'),
        '--port',
        '0',
        '--scenario-store',
        store.unreachable,
      ],
      { timeoutMs: 20_000 },
    )
    expect(unreachable.code).not.toBe(0)
    expect(unreachable.stderr).toMatch(store.unreachableMessage)
    expect(unreachable.stderr.trim().split('\n')).toHaveLength(1)
  }, 40_000)
})

describe('--scenario-store refusals', () => {
  it('refuses a store that is neither redis:// nor postgres://, in one line', async () => {
    const dir = tempDir('understudy-scenario-bad-')
    writeFileSync(join(dir, 'mock.yaml'), MOCK)
    const wrong = await runCli([
      'run',
      '--mock',
      join(dir, 'mock.yaml'),
      '--port',
      '0',
      '--scenario-store',
      'http://127.0.0.1:1',
    ])
    expect(wrong.code).not.toBe(0)
    expect(wrong.stderr.trim().split('\n')).toHaveLength(1)
    expect(wrong.stderr).toMatch(/scenarioStore|scenario-store/)
  }, 40_000)
})
