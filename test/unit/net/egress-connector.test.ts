import { Agent, interceptors, request } from 'undici'
import { describe, expect, it, onTestFinished } from 'vitest'
import { EgressPolicy, egressConnector, type EgressSettings } from '../../../src/net/index.js'
import { startUpstream } from '../../helpers/upstream.js'

function agentWith(settings: Partial<EgressSettings>): Agent {
  const policy = new EgressPolicy({
    level: 'loopback',
    allow: [],
    protectedPorts: [],
    protectedPortsFile: null,
    ...settings,
  })
  const agent = new Agent({ connect: egressConnector(policy) })
  onTestFinished(async () => await agent.close())
  return agent
}

describe('egressConnector', () => {
  it('connects to an allowed address, the name resolved by the connector itself', async () => {
    const upstream = await startUpstream()
    const res = await request(`http://localhost:${upstream.port}/x`, { dispatcher: agentWith({}) })
    expect(res.statusCode).toBe(200)
    await res.body.dump()
    expect(upstream.requests.map((r) => r.url)).toEqual(['/x'])
  })

  it('fails the request with ERR_NET_EGRESS_REFUSED before any byte is sent', async () => {
    const upstream = await startUpstream()
    await expect(
      request(`http://localhost:${upstream.port}/x`, {
        dispatcher: agentWith({ level: 'public' }),
      }),
    ).rejects.toMatchObject({ code: 'ERR_NET_EGRESS_REFUSED' })
    await expect(
      request(`http://127.0.0.1:${upstream.port}/x`, {
        dispatcher: agentWith({ protectedPorts: [upstream.port] }),
      }),
    ).rejects.toMatchObject({ code: 'ERR_NET_EGRESS_REFUSED' })
    expect(upstream.requests).toHaveLength(0)
  })

  it('checks every redirect hop: a redirect to a protected port is refused', async () => {
    const target = await startUpstream()
    const redirecting = await startUpstream((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${target.port}/admin` })
      res.end()
    })
    const dispatcher = agentWith({ protectedPorts: [target.port] }).compose(
      interceptors.redirect({ maxRedirections: 3 }),
    )
    await expect(request(`${redirecting.url}/start`, { dispatcher })).rejects.toMatchObject({
      code: 'ERR_NET_EGRESS_REFUSED',
    })
    expect(redirecting.requests).toHaveLength(1)
    expect(target.requests).toHaveLength(0)
  })
})
