import { expect, it } from 'vitest'
import { startServer } from '../helpers/server.js'

it('lists the same path with another method among the near misses of a large mock', async () => {
  const orders = Array.from({ length: 2000 }, (_, i) => ({
    name: `get order ${i + 100}`,
    dsl: {
      requestDsl: { method: 'GET', path: `/v1/orders/${i + 100}` },
      responseDsl: { text: 'order' },
    },
  }))
  const app = await startServer({
    dsl: [
      ...orders,
      {
        name: 'update order 10',
        dsl: {
          requestDsl: { method: 'PUT', path: '/v1/orders/10' },
          responseDsl: { text: 'updated' },
        },
      },
    ],
  })
  const res = await fetch(`${app.url}/v1/orders/10`)
  expect(res.status).toBe(404)
  const problem = (await res.json()) as { nearMisses: Array<{ name: string }> }
  expect(problem.nearMisses.map((m) => m.name)).toContain('update order 10')
})
