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

it('lists it on a 10,000-transaction mock, in the problem answered and in the inspection record', async () => {
  // As a recorded API looks: GET /v1/orders/N for every other N, and the one PUT of /v1/orders/10.
  const orders = Array.from({ length: 10_000 }, (_, i) => i)
    .filter((n) => n !== 10)
    .map((n) => ({
      name: `GET /v1/orders/${n}`,
      dsl: {
        requestDsl: { method: 'GET', path: `/v1/orders/${n}` },
        responseDsl: { json: { id: n } },
      },
    }))
  const app = await startServer({
    admin: true,
    dsl: [
      ...orders,
      {
        name: 'PUT /v1/orders/10',
        dsl: {
          requestDsl: { method: 'PUT', path: '/v1/orders/10' },
          responseDsl: { text: 'updated' },
        },
      },
    ],
  })
  const res = await fetch(`${app.url}/v1/orders/10`)
  expect(res.status).toBe(404)
  const problem = (await res.json()) as {
    nearMisses: Array<{ name: string; failed: Array<{ part: string }> }>
  }
  expect(problem.nearMisses.map((m) => m.name)).toContain('PUT /v1/orders/10')
  // The inspection record (what the live view shows) carries the same diagnosis.
  const [entry] = (
    (await (await fetch(`${app.admin?.url ?? ''}/inspection?limit=1`)).json()) as {
      result: Array<{ id: number }>
    }
  ).result
  const detail = (
    (await (await fetch(`${app.admin?.url ?? ''}/inspection/${entry?.id ?? 0}`)).json()) as {
      result: {
        matchingData: { nearMisses: Array<{ name: string; failed: Array<{ part: string }> }> }
      }
    }
  ).result
  const put = detail.matchingData.nearMisses.find((m) => m.name === 'PUT /v1/orders/10')
  // Only its method differs.
  expect(put?.failed.map((f) => f.part)).toEqual(['method'])
}, 60_000)
