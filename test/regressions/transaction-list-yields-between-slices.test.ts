import { describe, expect, it } from 'vitest'
import { startTestPlatform } from '../helpers/platform.js'

// Defect: the page of a filter only a few rows match (a search for one transaction among tens of
// thousands) was read in one SQLite statement walking every row of the workspace on the event
// loop (40 ms at 50,000 rows), and every page was read and decoded in one turn: requests to the
// same platform waited. A page is now read in turns, a filtered one between its list's positions.

const ROWS = 6000

/** How many turns of the event loop other work got while `call` ran. */
async function turnsDuring(call: () => Promise<unknown>): Promise<number> {
  let turns = 0
  let running = true
  const tick = (): void => {
    if (!running) return
    turns++
    setImmediate(tick)
  }
  setImmediate(tick)
  await call()
  running = false
  return turns
}

describe('a transaction list lets other work run while it reads its page', () => {
  it('answers a rare filter and a common one exactly, taking turns of the event loop', async () => {
    const platform = await startTestPlatform()
    const { store, workspaceId } = platform
    const service = await store.services.create({
      workspaceId,
      name: 'orders',
      description: null,
      by: 'test',
    })
    await store.write(async (tx) => {
      await tx.transactions.createEncodedMany(
        { workspaceId, serviceId: service.id, by: 'test' },
        Array.from({ length: ROWS }, (_, i) => ({
          name: `GET /orders/${i}`,
          description: null,
          dslType: 'GENERIC_DSL',
          tags: [],
          dslJson: '{"requestDsl":{"method":"GET","path":"/x"},"responseDsl":{"status":200}}',
        })),
      )
    })
    const path = `/api/v1/workspaces/${workspaceId}/transactions`
    const rare = `orders/${ROWS - 1}`

    // The first request reads the list's positions; the answer is the one matching row.
    const first = await platform.request(`${path}?search=${rare}`)
    expect(first.status).toBe(200)
    const page = (await first.json()) as { result: Array<{ name: string }>; total: number }
    expect(page.total).toBe(1)
    expect(page.result.map((t) => t.name)).toEqual([`GET /orders/${ROWS - 1}`])

    // Asked again (positions known, nothing to count), the page is still read in turns.
    const filter = { contains: rare }
    let answer: Awaited<ReturnType<typeof store.transactions.list>> | undefined
    const turns = await turnsDuring(async () => {
      answer = await store.transactions.list(workspaceId, filter, { limit: 50, skip: 0 })
    })
    expect(answer?.items.map((t) => t.name)).toEqual([`GET /orders/${ROWS - 1}`])
    expect(turns).toBeGreaterThanOrEqual(2)

    // A common filter's far page: the same rows as the whole list read at once, in turns.
    const common = { contains: 'orders/1' }
    const whole = await store.transactions.list(workspaceId, common, { limit: 1000, skip: 0 })
    const skip = 400
    let far: typeof answer
    const farTurns = await turnsDuring(async () => {
      far = await store.transactions.list(workspaceId, common, { limit: 50, skip })
    })
    expect(far?.total).toBe(whole.total)
    expect(far?.items.map((t) => t.id)).toEqual(whole.items.slice(skip, skip + 50).map((t) => t.id))
    expect(farTurns).toBeGreaterThanOrEqual(2)
  })
})
