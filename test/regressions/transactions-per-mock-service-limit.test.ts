import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAX_TRANSACTIONS } from '../../src/dsl/index.js'
import { startServer } from '../helpers/server.js'
import { adminCall } from '../helpers/admin.js'
import { runCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

const mock = {
  transactions: [{ dsl: { requestDsl: { path: '/pets' }, responseDsl: { text: 'pets' } } }],
}
const transaction = (i: number): unknown => ({
  dsl: { requestDsl: { path: `/items/${i}` }, responseDsl: { text: String(i) } },
})

// Defect: no bound on transactions per mock service. PUT /config of 1,000,000 grew the runtime past
// 1.5 GiB and blocked it for seconds; `serve` of 300,000 died with "Maximum call stack size
// exceeded". Past 250,000 a document is refused, naming the bound, before anything is compiled.
describe('a mock service has at most 250,000 transactions', () => {
  it('is the documented bound', () => {
    expect(MAX_TRANSACTIONS).toBe(250_000)
  })

  it('PUT /config refuses one more with 400 naming the bound, and keeps serving', async () => {
    const app = await startServer({ dsl: mock, admin: true })
    // Counted before validation: the items need not even be transactions.
    const text = JSON.stringify({ transactions: Array<unknown>(MAX_TRANSACTIONS + 1).fill({}) })
    const { status, body } = await adminCall(app, 'PUT', '/config', {
      text,
      contentType: 'application/json',
    })
    expect(status).toBe(400)
    expect(body.error?.code).toBe('ERR_DSL_INVALID')
    expect(body.error?.message).toContain(
      '250,001 transactions: a mock service may have at most 250,000',
    )
    expect(body.error?.details?.[0]?.path).toBe('/transactions')
    expect(await (await fetch(`${app.url}/pets`)).text()).toBe('pets')
  })

  it('serve refuses a file past it, and files that are past it together, in one line', async () => {
    const dir = tempDir()
    writeFileSync(
      join(dir, 'one.json'),
      JSON.stringify({ transactions: Array<unknown>(MAX_TRANSACTIONS + 1).fill({}) }),
    )
    const one = await runCli(['serve', '--port', '0', join(dir, 'one.json')], { timeoutMs: 60_000 })
    expect(one.code).toBe(1)
    expect(one.stderr.trim().split('\n')).toHaveLength(1)
    expect(one.stderr).toContain('250,001 transactions: a mock service may have at most 250,000')

    const split = join(dir, 'split')
    mkdirSync(split)
    const half = JSON.stringify({
      transactions: Array.from({ length: MAX_TRANSACTIONS / 2 + 1 }, (_, i) => transaction(i)),
    })
    for (const name of ['a.json', 'b.json']) writeFileSync(join(split, name), half)
    const both = await runCli(['serve', '--port', '0', split], { timeoutMs: 60_000 })
    expect(both.code).toBe(1)
    expect(both.stderr.trim().split('\n')).toHaveLength(1)
    expect(both.stderr).toContain('250,002 transactions: a mock service may have at most 250,000')
  }, 120_000)
})
