import autocannon from 'autocannon'
import { describe, expect, it } from 'vitest'
import { settle, startDeployer, textDocument } from '../../helpers/deployer.js'
import { createMock } from '../../helpers/fake-store.js'

/*
 * `configure` swaps a running mock service's configuration atomically (docs/deploy.md#configure): under
 * a load of 10 connections for 3 s, with a swap every few hundred milliseconds, not one request
 * fails, single runtime or replicas.
 */

async function runLoad(options: autocannon.Options): Promise<autocannon.Result> {
  return await new Promise((resolve, reject) => {
    autocannon(options, (err, result) => {
      if (err !== null && err !== undefined) {
        reject(err instanceof Error ? err : new Error(String(err)))
      } else resolve(result)
    })
  })
}

const answering = (tag: string) => textDocument({ '/load': `answer ${tag}`, [`/only-${tag}`]: tag })

describe('configure under load', () => {
  for (const replicas of [1, 2]) {
    it(`swaps the configuration of ${replicas} replica(s) during a load with zero failed requests`, async () => {
      const { deployer, store } = startDeployer()
      const mock = await createMock(store, { replicas })
      await settle(deployer, await deployer.deploy(mock, answering('A'), 'ada@example.com'))
      const record = await store.mockServices.getById(mock.id)
      if (record === undefined) throw new Error('record gone')
      const endpoint = record.httpEndpoint ?? ''

      const load = runLoad({ url: `${endpoint}/load`, connections: 10, duration: 3 })
      const state = { done: false }
      load.then(
        () => {
          state.done = true
        },
        () => {
          state.done = true
        },
      )
      let swaps = 0
      let tag = 'A'
      while (!state.done) {
        await new Promise((resolve) => setTimeout(resolve, 200))
        if (state.done) break
        tag = tag === 'A' ? 'B' : 'A'
        const ended = await settle(
          deployer,
          await deployer.configure(record, answering(tag), 'ada@example.com'),
        )
        expect(ended.status).toBe('FINISHED')
        expect(ended.warnings).toEqual([])
        swaps++
      }
      const result = await load

      expect(swaps).toBeGreaterThanOrEqual(4)
      expect(result.errors).toBe(0)
      expect(result.timeouts).toBe(0)
      expect(result.non2xx).toBe(0)
      expect(result.requests.total).toBeGreaterThan(100)
      expect(result['2xx']).toBe(result.requests.total)
      // The last swap serves now, on every replica (fresh connections spread over them).
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${endpoint}/load`, { headers: { connection: 'close' } })
        expect(await res.text()).toBe(`answer ${tag}`)
      }
      expect((await fetch(`${endpoint}/only-${tag === 'A' ? 'B' : 'A'}`)).status).toBe(404)
    })
  }
})
