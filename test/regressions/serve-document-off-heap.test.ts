import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'
import { waitFor } from '../helpers/wait.js'

/** A response body whose base64 form (the document's `content`) nothing but the document holds. */
const BODY = 'only-the-document-holds-this-4d1c9e'
const CONTENT = Buffer.from(BODY).toString('base64')

/** Writes a heap snapshot (taken after a full collection) and returns its strings. */
async function liveStrings(pid: number, dir: string): Promise<string[]> {
  process.kill(pid, 'SIGUSR2')
  let size = -1
  let file = ''
  await waitFor(
    async () => {
      const found = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot'))
      if (found === undefined) return false
      file = join(dir, found)
      const now = statSync(file).size
      const done = now > 0 && now === size
      size = now
      return done
    },
    'the heap snapshot to be written',
    { timeoutMs: 60_000, intervalMs: 300 },
  )
  return (JSON.parse(readFileSync(file, 'utf8')) as { strings: string[] }).strings
}

// `serve` merges its files into one document; the runtime used to keep that document on the heap
// for GET /config (every full collection walked it). It keeps its text now, read again on demand.
describe('serve keeps the merged document as text', () => {
  it('holds no copy of the document while serving, and GET /config still answers it', async () => {
    const dir = tempDir()
    const snapshots = tempDir()
    mkdirSync(join(dir, 'a'))
    mkdirSync(join(dir, 'b'))
    writeFileSync(
      join(dir, 'a', 'orders.json'),
      JSON.stringify({
        name: 'orders',
        thinkTime: 1,
        transactions: [
          {
            id: 7,
            name: 'order',
            dsl: {
              requestDsl: { method: 'GET', path: '/orders/{id}' },
              responseDsl: { text: BODY },
            },
          },
        ],
      }),
    )
    writeFileSync(
      join(dir, 'b', 'tenants.yaml'),
      [
        '- name: tenant',
        '  dsl:',
        '    requestDsl: { method: POST, path: /tenants, headers: [{ key: X-T, matcherName: equals, matchingValue: t1 }] }',
        '    responseDsl: { status: 201, json: { ok: true } }',
        '',
      ].join('\n'),
    )
    const server = await startCli(
      ['serve', join(dir, 'a'), join(dir, 'b'), '--port', '0', '--admin-port', '0'],
      { env: { NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshots}` } },
    )
    await server.waitFor('stdout', /admin on http:\/\/\S+/)
    const admin = /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1] as string

    const strings = await liveStrings(server.child.pid as number, snapshots)
    expect(strings.length).toBeGreaterThan(1000)
    expect(strings).not.toContain(CONTENT)

    const res = await fetch(`${admin}/config`)
    expect(res.status).toBe(200)
    const config = (
      (await res.json()) as {
        result: { name: string; thinkTime: unknown; transactions: Array<Record<string, unknown>> }
      }
    ).result
    expect(config.name).toBe('orders')
    expect(config.thinkTime).toEqual({ type: 'fixed', duration: 1 })
    expect(config.transactions.map((t) => t['name'])).toEqual(['order', 'tenant'])
    expect(config.transactions[0]).toMatchObject({
      id: 7,
      dsl: { responseDsl: { status: 200, content: CONTENT, contentType: 'text' } },
    })
    expect(config.transactions[1]).toMatchObject({
      dsl: {
        requestDsl: {
          method: 'POST',
          headers: [{ key: 'X-T', matcherName: 'equals', matchingValue: 't1' }],
        },
        responseDsl: { status: 201 },
      },
    })
    const served = await fetch(`${server.url}/orders/3`)
    expect(await served.text()).toBe(BODY)
  }, 120_000)
})
