import { afterEach, describe, expect, it } from 'vitest'
import { PortPool, ProcessRunner, startAgent, type Agent } from '../../../src/agent/index.js'
import { createSilentLogger } from '../../../src/log/index.js'
import { freePortBlock, testHarbor, type HarborShip } from '../../helpers/agent.js'
import { startTestPlatform } from '../../helpers/platform.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { waitFor } from '../../helpers/wait.js'
import { call } from '../platform/tenancy-helpers.js'

/*
 * The agent with its default driver, in process against a real platform: the local deployer's
 * code runs `understudy run` children on ports of the agent's range; configure pushes the new
 * document to the running runtime (same process), stop and delete end it.
 */

let agent: Agent | null = null
afterEach(async () => {
  await agent?.stop()
  agent = null
})

describe('understudy agent --driver process', () => {
  it('deploys on a port of its range, configures without restarting the runtime, stops and removes it', async () => {
    const platform = await startTestPlatform()
    const { harborId, ships } = await testHarbor(platform, 'lab', ['lab-1'])
    const ship = ships[0] as HarborShip
    const block = await freePortBlock(3)
    const runner = new ProcessRunner({
      dataDir: tempDir('understudy-agent-process-'),
      log: createSilentLogger(),
      host: '127.0.0.1',
      endpointHost: 'localhost',
    })
    agent = startAgent({
      platform: platform.url,
      harborId,
      shipId: ship.id,
      token: ship.token,
      dataDir: tempDir('understudy-agent-state-'),
      advertiseHost: 'localhost',
      version: 'test',
      runner,
      ports: new PortPool([block, block + 2], '127.0.0.1'),
      log: createSilentLogger(),
      heartbeatMs: 200,
    })
    await agent.ready

    const ws = `/api/v1/workspaces/${platform.workspaceId}`
    const service = await call<{ id: number }>(platform, platform.auth, 'POST', `${ws}/services`, {
      name: 'pets',
    })
    const transaction = async (path: string): Promise<number> =>
      (
        await call<{ id: number }>(
          platform,
          platform.auth,
          'POST',
          `${ws}/transactions?serviceId=${service.body.result.id}`,
          {
            name: path,
            dsl: { requestDsl: { method: 'GET', path }, responseDsl: { status: 200, json: [] } },
          },
        )
      ).body.result.id
    const mock = await call<{ id: number }>(
      platform,
      platform.auth,
      'POST',
      `${ws}/service-mocks`,
      {
        serviceId: service.body.result.id,
        name: 'pets',
        harborId,
        mockServiceTransactions: [await transaction('/pets')],
      },
    )
    const id = mock.body.result.id
    const path = `${ws}/service-mocks/${id}`
    const until = async (status: string): Promise<{ status: string; httpEndpoint: string }> => {
      let record = { status: '', httpEndpoint: '' }
      await waitFor(
        async () => {
          record = (
            await call<{ status: string; httpEndpoint: string }>(
              platform,
              platform.auth,
              'GET',
              path,
            )
          ).body.result
          return record.status === status
        },
        `the record to say ${status}`,
        { timeoutMs: 30_000, intervalMs: 100 },
      )
      return record
    }

    await call(platform, platform.auth, 'GET', `${path}/deploy`)
    const running = await until('RUNNING')
    expect(running.httpEndpoint).toBe(`http://localhost:${block}`)
    const local = `http://127.0.0.1:${block}`
    expect((await fetch(`${local}/pets`)).status).toBe(200)
    expect((await fetch(`${local}/cats`)).status).toBe(404)
    const pid = runner.view(id)?.pid
    expect(pid).toBeGreaterThan(0)

    await call(platform, platform.auth, 'PATCH', path, { includeIds: [await transaction('/cats')] })
    const configured = await call<{ trackingId: string }>(
      platform,
      platform.auth,
      'GET',
      `${path}/configure`,
    )
    await waitFor(
      async () =>
        (
          await call<{ status: string }>(
            platform,
            platform.auth,
            'GET',
            `/api/v1/trackings/${configured.body.result.trackingId}`,
          )
        ).body.result.status === 'FINISHED',
      'the configure to finish',
      { timeoutMs: 30_000, intervalMs: 100 },
    )
    expect((await fetch(`${local}/cats`)).status).toBe(200)
    expect(runner.view(id)?.pid).toBe(pid)

    await call(platform, platform.auth, 'GET', `${path}/stop`)
    await until('STOPPED')
    await expect(fetch(`${local}/pets`)).rejects.toThrow()

    await call(platform, platform.auth, 'DELETE', path)
    await waitFor(() => runner.view(id) === undefined, 'the agent to forget it', {
      timeoutMs: 10_000,
      intervalMs: 100,
    })
  })
})
