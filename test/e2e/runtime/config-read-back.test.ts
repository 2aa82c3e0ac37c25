import { readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { waitFor } from '../../helpers/wait.js'

/** A document with the parts GET /config must give back: settings, templates, matchers, ids. */
function documentText(count: number, tag: string): string {
  return JSON.stringify({
    name: `orders-${tag}`,
    thinkTime: 1,
    transactions: Array.from({ length: count }, (_, i) => ({
      id: i + 1,
      name: `${tag}-${i}`,
      dsl: {
        requestDsl: {
          method: i % 2 === 0 ? 'GET' : 'POST',
          path: i % 3 === 0 ? `/orders/{id}/lines/${i}` : `/orders/${i}`,
          headers:
            i % 5 === 0 ? [{ key: 'X-Tenant', matcherName: 'equals', matchingValue: `t${i}` }] : [],
        },
        responseDsl: { json: { i, tag }, headers: [{ name: 'X-Order', value: String(i) }] },
      },
    })),
  })
}

/** Sends the signal that makes the runtime write a heap snapshot (after a full collection). */
async function collectGarbage(pid: number, dir: string, count: number): Promise<void> {
  process.kill(pid, 'SIGUSR2')
  let size = -1
  await waitFor(
    async () => {
      const files = readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot'))
      if (files.length < count) return false
      const now = statSync(join(dir, files.sort().at(-1) as string)).size
      const done = now > 0 && now === size
      size = now
      return done
    },
    'the heap snapshot to be written',
    { timeoutMs: 60_000, intervalMs: 300 },
  )
}

// A runtime started from a file keeps the file's text, not the document: GET /config reads it
// again. What it answers must be the document it serves, before and after the first copy is
// collected, and after a swap.
describe('GET /config of a runtime that keeps its document as text', () => {
  it('answers the served document after a full garbage collection, and after PUT /config', async () => {
    const dir = tempDir()
    const snapshots = tempDir()
    writeFileSync(join(dir, 'mock.json'), documentText(300, 'first'))
    const server = await startCli(
      ['run', '--mock', join(dir, 'mock.json'), '--port', '0', '--admin-port', '0'],
      { env: { NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshots}` } },
    )
    await server.waitFor('stdout', /admin on http:\/\/\S+/)
    const admin = /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1] as string
    const read = async (): Promise<{ name: string; transactions: unknown[] }> => {
      const res = await fetch(`${admin}/config`)
      expect(res.status).toBe(200)
      return ((await res.json()) as { result: { name: string; transactions: unknown[] } }).result
    }
    const first = await read()
    expect(first.name).toBe('orders-first')
    expect(first.transactions).toHaveLength(300)

    await collectGarbage(server.child.pid as number, snapshots, 1)
    expect(await read()).toEqual(first)
    const served = await fetch(`${server.url}/orders/abc/lines/6`)
    expect(await served.json()).toEqual({ i: 6, tag: 'first' })

    const swapped = await fetch(`${admin}/config`, {
      method: 'PUT',
      body: documentText(120, 'second'),
      headers: { 'content-type': 'application/json' },
    })
    expect(swapped.status).toBe(200)
    const second = await read()
    expect(second.name).toBe('orders-second')
    expect(second.transactions).toHaveLength(120)
    await collectGarbage(server.child.pid as number, snapshots, 2)
    expect(await read()).toEqual(second)
    const log = await fetch(`${admin}/log?limit=5`)
    expect(log.status).toBe(200)
  }, 120_000)
})
