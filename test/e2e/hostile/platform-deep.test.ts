import { describe, expect, it } from 'vitest'
import { startTestPlatform } from '../../helpers/platform.js'
import { createService, transactionsPath } from '../platform/catalog-helpers.js'

describe('deep transactions sent to the platform', () => {
  it(
    'refuses a transaction nested 10,000 deep with a 400 DSL error, never a 500',
    { timeout: 30_000 },
    async () => {
      const platform = await startTestPlatform()
      const serviceId = await createService(platform)
      const deepText = '['.repeat(10_000) + ']'.repeat(10_000)
      const bodies = [
        `{"serviceId":${serviceId},"name":"deep json","dsl":{"requestDsl":{"path":"/a"},"responseDsl":{"json":${deepText}}}}`,
        JSON.stringify({
          serviceId,
          name: 'deep equals_json',
          dsl: {
            requestDsl: {
              path: '/b',
              body: [{ matcherName: 'equals_json', matchingValue: deepText }],
            },
            responseDsl: { text: 'b' },
          },
        }),
      ]
      for (const body of bodies) {
        const res = await platform.request(transactionsPath(platform), {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json' },
        })
        const answer = (await res.json()) as { error?: { code?: string } }
        expect(res.status).toBe(400)
        expect(answer.error?.code).toMatch(/^ERR_(DSL_INVALID|API_VALIDATION|API_BAD_REQUEST)$/)
      }
    },
  )
})
