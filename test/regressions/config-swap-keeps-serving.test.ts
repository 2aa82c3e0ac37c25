import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

const pets = { dsl: { requestDsl: { path: '/pets' }, responseDsl: { text: 'pets' } } }
const COUNT = 150_000
const methods = ['GET', 'POST', 'PUT', 'DELETE']

/** `/pets` and literal paths, `{id}` templates and header matchers, as a large imported API has. */
function largeDocument(): string {
  const transactions: unknown[] = Array.from({ length: COUNT - 1 }, (_, i) => {
    const path =
      i % 3 === 0
        ? `/items/${i}`
        : i % 3 === 1
          ? `/res${i % 500}/{id}/sub${i}`
          : `/things/${i}/detail`
    const headers =
      i % 5 === 0 ? [{ key: 'x-k', matcherName: 'equals', matchingValue: String(i) }] : []
    return {
      name: `t${i}`,
      dsl: {
        requestDsl: { method: methods[i % 4], path, headers },
        responseDsl: { status: 200, json: { id: i } },
      },
    }
  })
  return JSON.stringify({ transactions: [pets, ...transactions] })
}

// Defect: a large PUT /config held the runtime's event loop for seconds at a stretch: one
// JSON.parse of the whole body (about 2 s at 250,000 transactions) and one build of the route
// index (about 3 s), during which no other request was answered. The body is now parsed a
// transaction at a time and the index built in time slices: the runtime keeps answering.
describe('PUT /config of a large document keeps the runtime answering', () => {
  it('answers mock requests throughout a 150,000-transaction swap', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'mock.json'), JSON.stringify({ transactions: [pets] }))
    const server = await startCli([
      'serve',
      '--port',
      '0',
      '--admin-port',
      '0',
      join(dir, 'mock.json'),
    ])
    await server.waitFor('stdout', /admin on http:\/\/\S+/)
    const admin = /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1] as string
    const text = largeDocument()
    const swap = { done: false }
    let answered = 0
    let longestGap = 0
    const pings = (async () => {
      let last = performance.now()
      while (!swap.done) {
        expect(await (await fetch(`${server.url}/pets`)).text()).toBe('pets')
        const now = performance.now()
        longestGap = Math.max(longestGap, now - last)
        last = now
        answered++
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    })()
    const res = await fetch(`${admin}/config`, {
      method: 'PUT',
      body: text,
      headers: { 'content-type': 'application/json' },
    })
    const body = (await res.json()) as { result: { transactions: number } }
    swap.done = true
    await pings
    expect(res.status).toBe(200)
    expect(body.result.transactions).toBe(COUNT)
    // A generous bound for a shared machine; the old code held the loop for seconds at a stretch.
    expect(longestGap).toBeLessThan(1000)
    expect(answered).toBeGreaterThan(10)
    const served = await fetch(`${server.url}/res7/42/sub1507`, { method: 'DELETE' })
    expect(await served.json()).toEqual({ id: 1507 })
  }, 180_000)
})
