import { describe, expect, it } from 'vitest'
import { startTestPlatform, unavailableDeployer } from '../helpers/platform.js'
import { startServer } from '../helpers/server.js'

/*
 * A refusal by a mock service's runtime reaches the control plane's caller as the runtime gave it:
 * the same code, message and details, through the one runtime admin client. The scenario endpoint
 * used to wrap the runtime's "Invalid request: ..." in a second "Invalid request: " and drop the
 * details naming the field.
 */

interface Envelope {
  error: {
    code: string
    message: string
    details?: Array<{ path: string; message: string }>
  } | null
}

describe('a runtime refusal relayed by the control plane', () => {
  it("keeps the runtime's code, message and field when a scenario state is refused", async () => {
    const runtime = await startServer({
      yaml: '- dsl: {requestDsl: {method: POST, path: /t}, scenario: {name: s, requiredState: Started, newState: Done}, responseDsl: {text: first}}\n',
      admin: true,
    })
    const platform = await startTestPlatform({
      deployer: () => ({
        ...unavailableDeployer,
        admin: async () =>
          runtime.admin === null ? null : { url: runtime.admin.url, token: null },
      }),
    })
    const ws = platform.workspaceId
    const service = (await (
      await platform.request(`/api/v1/workspaces/${ws}/services`, {
        method: 'POST',
        json: { name: 'svc' },
      })
    ).json()) as { result: { id: number } }
    const mock = (await (
      await platform.request(`/api/v1/workspaces/${ws}/service-mocks`, {
        method: 'POST',
        json: { serviceId: service.result.id, name: 'm' },
      })
    ).json()) as { result: { id: number } }
    const refused = await platform.request(
      `/api/v1/workspaces/${ws}/service-mocks/${mock.result.id}/scenarios/s`,
      { method: 'PUT', json: { state: 7 } },
    )
    expect(refused.status).toBe(400)
    const { error } = (await refused.json()) as Envelope
    expect(error).toEqual({
      code: 'ERR_API_VALIDATION',
      message: 'Invalid request: state must be a non-empty string',
      details: [{ path: '/state', message: 'must be a non-empty string' }],
    })
  })
})
