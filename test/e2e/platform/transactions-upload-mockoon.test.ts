import { describe, expect, it } from 'vitest'
import { startTestPlatform } from '../../helpers/platform.js'
import { testEnvironment } from '../../importers/mockoon/environment.js'
import { createService, envelope, formOf, transactionsPath } from './catalog-helpers.js'

describe('/api/v1 transactions: a Mockoon environment uploaded', () => {
  it('imports each route response as a transaction with dslType MOCKOON_DSL, and warns with verbose=true', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform, 'mockoon')
    const env = testEnvironment()
    ;(env['routes'] as Array<Record<string, unknown>>).push({
      uuid: 'ws',
      type: 'ws',
      method: 'get',
      endpoint: 'socket',
      responses: [{ uuid: 'w', statusCode: 200, body: '', headers: [], rules: [], default: true }],
    })
    const res = await platform.request(transactionsPath(platform), {
      method: 'POST',
      body: formOf({ serviceId: String(serviceId), verbose: 'true' }, [
        { name: 'env.json', bytes: Buffer.from(JSON.stringify(env)) },
      ]),
    })
    expect(res.status).toBe(200)
    const body = await envelope<Array<{ name: string; dslType: string }>>(res)
    expect(body.result.length).toBeGreaterThan(10)
    expect(new Set(body.result.map((t) => t.dslType))).toEqual(new Set(['MOCKOON_DSL']))
    expect(body.result.map((t) => t.name)).toContain('GET /api/users/me 200')
    expect(JSON.stringify(body.warnings)).toMatch(/WebSocket routes have no equivalent/)
  })
})
