import { describe, expect, it } from 'vitest'
import { startTestPlatform, unavailableDeployer } from '../../helpers/platform.js'
import { startServer } from '../../helpers/server.js'

interface Envelope<T> {
  error: { code: string; message: string; details?: Array<{ path: string }> } | null
  result: T
}
const json = async <T>(res: Response): Promise<Envelope<T>> => (await res.json()) as Envelope<T>

describe('control plane: templates, scenarios, transaction actions', () => {
  it('validates a handlebars template', async () => {
    const platform = await startTestPlatform()
    const good = await json<{ valid: boolean; message: string }>(
      await platform.request('/api/v1/system/validations/handlebars', {
        method: 'POST',
        json: { template: 'Hi {{request.query.name}} {{now format="yyyy"}}' },
      }),
    )
    expect(good.result).toEqual({ valid: true, message: 'OK' })
    const bad = await json<{ valid: boolean; message: string }>(
      await platform.request('/api/v1/system/validations/handlebars', {
        method: 'POST',
        json: { template: 'a\n{{#if x}}' },
      }),
    )
    expect(bad.result.valid).toBe(false)
    expect(bad.result.message).toMatch(/^line 2: /)
    const missing = await platform.request('/api/v1/system/validations/handlebars', {
      method: 'POST',
      json: {},
    })
    expect(missing.status).toBe(400)
    expect((await json(missing)).error?.details?.[0]?.path).toBe('/template')
  })

  it('reads and resets the scenarios of a running mock service, and answers 404 for another workspace', async () => {
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
    const service = await json<{ id: number }>(
      await platform.request(`/api/v1/workspaces/${ws}/services`, {
        method: 'POST',
        json: { name: 'svc' },
      }),
    )
    const mock = await json<{ id: number }>(
      await platform.request(`/api/v1/workspaces/${ws}/service-mocks`, {
        method: 'POST',
        json: { serviceId: service.result.id, name: 'm' },
      }),
    )
    const base = `/api/v1/workspaces/${ws}/service-mocks/${mock.result.id}/scenarios`
    await fetch(`${runtime.url}/t`, { method: 'POST' })
    const listed = await json<{ scenarios: unknown[] }>(await platform.request(base))
    expect(listed.result.scenarios).toEqual([{ name: 's', instance: null, state: 'Done' }])
    expect((await platform.request(base, { method: 'DELETE' })).status).toBe(200)
    expect(
      (await json<{ scenarios: unknown[] }>(await platform.request(base))).result.scenarios,
    ).toEqual([])
    const put = await platform.request(`${base}/s`, { method: 'PUT', json: { state: 'Done' } })
    expect(put.status).toBe(200)
    expect((await fetch(`${runtime.url}/t`, { method: 'POST' })).status).toBe(404)
    expect(
      (await platform.request(`${base}/s`, { method: 'PUT', json: { state: 7 } })).status,
    ).toBe(400)
    expect(
      (await platform.request(`/api/v1/workspaces/${ws}/service-mocks/999999/scenarios`)).status,
    ).toBe(404)
  })

  it('adds WEBHOOK actions to a transaction as postServe calls, refusing bad ones', async () => {
    const platform = await startTestPlatform()
    const ws = platform.workspaceId
    const service = await json<{ id: number }>(
      await platform.request(`/api/v1/workspaces/${ws}/services`, {
        method: 'POST',
        json: { name: 'svc' },
      }),
    )
    const created = await json<{ id: number }>(
      await platform.request(
        `/api/v1/workspaces/${ws}/transactions?serviceId=${service.result.id}`,
        {
          method: 'POST',
          json: {
            name: 'a',
            dsl: { requestDsl: { method: 'GET', path: '/a' }, responseDsl: { status: 200 } },
          },
        },
      ),
    )
    const txnId = created.result.id
    const path = `/api/v1/workspaces/${ws}/transactions/${txnId}/actions`
    const added = await platform.request(path, {
      method: 'POST',
      json: {
        type: 'WEBHOOK',
        url: 'http://hooks.local/x',
        method: 'put',
        headers: { 'X-A': '1' },
        body: '{{request.path}}',
        delay: 10,
      },
    })
    expect(added.status).toBe(201)
    const view = await json<{ dsl: { responseDsl: { postServe: unknown[] } } }>(added)
    expect(view.result.dsl.responseDsl.postServe).toEqual([
      {
        url: 'http://hooks.local/x',
        method: 'PUT',
        headers: [{ name: 'X-A', value: '1' }],
        body: '{{request.path}}',
        delay: 10,
      },
    ])
    const listed = await json<unknown[]>(await platform.request(path))
    expect(listed.result).toHaveLength(1)
    for (const [body, field] of [
      [{ url: 'ftp://x' }, '/url'],
      [{ type: 'EMAIL', url: 'http://x' }, '/type'],
      [{ url: 'http://x', body: '{{#if}}' }, '/body'],
    ] as const) {
      const res = await platform.request(path, { method: 'POST', json: body })
      expect(res.status).toBe(400)
      expect((await json(res)).error?.details?.[0]?.path).toBe(field)
    }
    expect((await json<unknown[]>(await platform.request(path))).result).toHaveLength(1)
    expect(
      (
        await platform.request(`/api/v1/workspaces/${ws}/transactions/999999/actions`, {
          method: 'POST',
          json: { url: 'http://x' },
        })
      ).status,
    ).toBe(404)
  })
})
