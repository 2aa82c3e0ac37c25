import { describe, expect, it } from 'vitest'
import { startServer } from '../../helpers/server.js'
import { burst, ticketRace } from '../../helpers/traffic.js'
import { waitFor } from '../../helpers/wait.js'

const orderFlow = `
transactions:
${ticketRace}  - name: per-session step one
    dsl:
      requestDsl: {method: GET, path: /cart}
      scenario: {name: cart, requiredState: Started, newState: Filled, instanceKey: {part: header, key: X-Session}, ttl: 300}
      responseDsl: {text: empty}
  - name: per-session step two
    dsl:
      requestDsl: {method: GET, path: /cart}
      scenario: {name: cart, requiredState: Filled, instanceKey: {part: header, key: X-Session}}
      responseDsl: {text: filled}
`

describe('stateful scenarios', () => {
  it('moves a scenario exactly once under 1,000 concurrent requests', async () => {
    const app = await startServer({ yaml: orderFlow, admin: true })
    const counts = await burst(app.url, 1000)
    expect(counts.get(201)).toBe(1)
    expect(counts.get(409)).toBe(999)

    // Reset through the admin API: the next request wins again.
    const listed = (await (await fetch(`${app.admin?.url ?? ''}/scenarios`)).json()) as {
      result: { scenarios: unknown[] }
    }
    expect(listed.result.scenarios).toEqual([{ name: 'ticket', instance: null, state: 'Claimed' }])
    const reset = await fetch(`${app.admin?.url ?? ''}/scenarios`, { method: 'DELETE' })
    expect(reset.status).toBe(200)
    expect((await fetch(`${app.url}/ticket`, { method: 'POST' })).status).toBe(201)
    expect((await fetch(`${app.url}/ticket`, { method: 'POST' })).status).toBe(409)
    // PUT a state by hand.
    const put = await fetch(`${app.admin?.url ?? ''}/scenarios/ticket`, {
      method: 'PUT',
      body: JSON.stringify({ state: 'Started' }),
    })
    expect(put.status).toBe(200)
    expect((await fetch(`${app.url}/ticket`, { method: 'POST' })).status).toBe(201)
    const bad = await fetch(`${app.admin?.url ?? ''}/scenarios/ticket`, {
      method: 'PUT',
      body: '{}',
    })
    expect(bad.status).toBe(400)
  })

  it('keeps one state per instance key, and forgets it after the TTL', async () => {
    const app = await startServer({ yaml: orderFlow, admin: true })
    const cart = async (session: string): Promise<string> =>
      (await fetch(`${app.url}/cart`, { headers: { 'x-session': session } })).text()
    expect(await cart('a')).toBe('empty')
    expect(await cart('a')).toBe('filled')
    expect(await cart('b')).toBe('empty')
    // Instance `a` returns to Started once its TTL (300 ms) has passed.
    let answer = ''
    await waitFor(
      async () => {
        answer = await cart('a')
        return answer !== 'filled'
      },
      "instance a's TTL to pass",
      { intervalMs: 50 },
    )
    expect(answer).toBe('empty')
    // Reset one instance.
    expect(await cart('c')).toBe('empty')
    const reset = (await (
      await fetch(`${app.admin?.url ?? ''}/scenarios/cart?instance=c`, { method: 'DELETE' })
    ).json()) as { result: { reset: number } }
    expect(reset.result.reset).toBe(1)
    expect(await cart('c')).toBe('empty')
  })
})
