import { describe, expect, it } from 'vitest'
import {
  agentCommand,
  freePortBlock,
  harborWithShips,
  platformProcessApi,
  runtimeOf,
  startAgent,
  startGroup,
  startPlatformProcess,
  type AgentProcess,
  type HarborShip,
} from '../../helpers/agent.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * The platform and two agents as a user runs them: separate processes on loopback, each agent
 * with its own data dir and port range. A mock service deployed to a harbor runs on one agent;
 * it keeps answering while the platform is killed and restarted, with nothing redeployed; when its
 * agent's machine is lost, it is placed on the other agent and answers there.
 */

/** The platform of these tests: a ship unheard of for 3 s is lost. */
async function startPlatform(port: number, dataDir: string): Promise<AgentProcess> {
  return await startPlatformProcess(port, dataDir, ['--ship-lost-after', '3'])
}

async function answers(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint}/pets`, { signal: AbortSignal.timeout(2000) })
    return res.status === 200 && JSON.stringify(await res.json()) === '[{"id":1}]'
  } catch {
    return false
  }
}

interface MockRecord {
  status: string
  httpEndpoint: string | null
  shipId: string
  harborId: string
  deployDate: number | null
}
interface ShipView {
  id: string
  state: string
  ts: number | null
}

describe('understudy agent: ships that run the mock services of a harbor', () => {
  it(
    'runs a deployed mock at the agent, keeps it serving through a platform crash and restart without redeploying it, and re-places it when its agent is lost',
    { timeout: 150_000 },
    async () => {
      const block = await freePortBlock(30)
      const platformPort = block
      const platformDir = tempDir('understudy-agent-platform-')
      let platform = await startPlatform(platformPort, platformDir)
      const base = `http://127.0.0.1:${platformPort}`
      const platformApi = platformProcessApi(base)
      const { api } = platformApi
      const { ws, harbor, ships } = await harborWithShips(platformApi, ['lab-1', 'lab-2'])
      const agentDirs = ships.map(() => tempDir('understudy-agent-'))
      const agents = await Promise.all(
        ships.map(
          async (ship, i) =>
            await startAgent({
              platform: base,
              harborId: harbor.id,
              ship,
              ports: [block + 10 * (i + 1), block + 10 * (i + 1) + 4],
              dataDir: agentDirs[i] as string,
            }),
        ),
      )

      // A mock service deployed to the harbor alone: the platform picks a live ship.
      const w = `/api/v1/workspaces/${ws}`
      const service = await api<{ id: number }>('POST', `${w}/services`, { name: 'pets' })
      const transaction = await api<{ id: number }>(
        'POST',
        `${w}/transactions?serviceId=${service.id}`,
        {
          name: 'list',
          dsl: {
            requestDsl: { method: 'GET', path: '/pets' },
            responseDsl: { status: 200, json: [{ id: 1 }] },
          },
        },
      )
      const mock = await api<{ id: number }>('POST', `${w}/service-mocks`, {
        serviceId: service.id,
        name: 'pets',
        harborId: harbor.id,
        mockServiceTransactions: [transaction.id],
      })
      const deploy = await api<{ trackingId: string; status: string }>(
        'GET',
        `${w}/service-mocks/${mock.id}/deploy`,
      )
      let tracking = deploy
      await waitFor(
        async () => {
          tracking = await api('GET', `/api/v1/trackings/${deploy.trackingId}`)
          return tracking.status === 'FINISHED' || tracking.status === 'FAILED'
        },
        'the deploy to finish',
        { timeoutMs: 30_000, intervalMs: 200 },
      )
      expect(tracking.status).toBe('FINISHED')
      const deployed = await api<MockRecord>('GET', `${w}/service-mocks/${mock.id}`)
      const first = ships.findIndex((s) => s.id === deployed.shipId)
      expect(first).toBeGreaterThanOrEqual(0)
      const firstRange = [block + 10 * (first + 1), block + 10 * (first + 1) + 4]
      expect(deployed).toMatchObject({ status: 'RUNNING', harborId: harbor.id })
      const endpoint = deployed.httpEndpoint as string
      const port = Number(new URL(endpoint).port)
      expect(new URL(endpoint).hostname).toBe('127.0.0.1')
      expect(port).toBeGreaterThanOrEqual(firstRange[0] as number)
      expect(port).toBeLessThanOrEqual(firstRange[1] as number)
      expect(await answers(endpoint)).toBe(true)
      const runtime = runtimeOf(agentDirs[first] as string, mock.id)
      expect(runtime).not.toBeNull()

      // The platform dies: the mock service keeps answering at its agent.
      await platform.killGroup()
      expect(await answers(endpoint)).toBe(true)
      await new Promise((resolve) => setTimeout(resolve, 1500))
      expect(await answers(endpoint)).toBe(true)

      // The platform comes back on its data dir: the ships are live again, nothing was redeployed.
      const restarted = Date.now()
      platform = await startPlatform(platformPort, platformDir)
      await waitFor(
        async () => {
          const list = await api<ShipView[]>(
            'GET',
            `/api/v4/private-locations/${harbor.id}/servers`,
          )
          return list.every((s) => s.state === 'ready' && (s.ts ?? 0) * 1000 >= restarted - 1000)
        },
        'both ships to heartbeat to the restarted platform',
        { timeoutMs: 20_000, intervalMs: 200 },
      )
      // A long poll's worth of time for an agent that would wrongly redeploy.
      await new Promise((resolve) => setTimeout(resolve, 2000))
      expect(runtimeOf(agentDirs[first] as string, mock.id)).toEqual(runtime)
      const after = await api<MockRecord>('GET', `${w}/service-mocks/${mock.id}`)
      expect(after).toMatchObject({
        status: 'RUNNING',
        httpEndpoint: endpoint,
        shipId: deployed.shipId,
        deployDate: deployed.deployDate,
      })
      expect(await answers(endpoint)).toBe(true)
      // The restarted platform knows the mock service runs on the agent: its admin calls go there.
      const counted = await api<{ count: number }>(
        'GET',
        `${w}/service-mocks/${mock.id}/inspection/count?path=/pets`,
      )
      expect(counted.count).toBeGreaterThanOrEqual(4)

      // The first agent's machine is lost: its mock service is placed on the other ship.
      await (agents[first] as AgentProcess).killGroup()
      const other = 1 - first
      let moved: MockRecord = after
      await waitFor(
        async () => {
          moved = await api<MockRecord>('GET', `${w}/service-mocks/${mock.id}`)
          return moved.shipId === ships[other]?.id && moved.status === 'RUNNING'
        },
        'the mock service to run on the other ship',
        { timeoutMs: 30_000, intervalMs: 200 },
      )
      const movedPort = Number(new URL(moved.httpEndpoint as string).port)
      expect(movedPort).toBeGreaterThanOrEqual(block + 10 * (other + 1))
      expect(movedPort).toBeLessThanOrEqual(block + 10 * (other + 1) + 4)
      expect(await answers(moved.httpEndpoint as string)).toBe(true)
      const list = await api<ShipView[]>('GET', `/api/v4/private-locations/${harbor.id}/servers`)
      expect(list.find((s) => s.id === ships[first]?.id)?.state).toBe('lost')
      expect(list.find((s) => s.id === ships[other]?.id)?.state).toBe('ready')
    },
  )

  it(
    'an agent restarted while the platform is down runs its mock services again on their ports, ending the runtime its killed predecessor left',
    { timeout: 120_000 },
    async () => {
      const block = await freePortBlock(20)
      const platformDir = tempDir('understudy-agent-platform-')
      let platform = await startPlatform(block, platformDir)
      const base = `http://127.0.0.1:${block}`
      const platformApi = platformProcessApi(base)
      const { api } = platformApi
      const { ws, harbor, ships } = await harborWithShips(platformApi, ['lab-1'])
      const ship = ships[0] as HarborShip
      const agentDir = tempDir('understudy-agent-')
      const { args: agentArgs } = agentCommand({
        platform: base,
        harborId: harbor.id,
        ship,
        ports: [block + 10, block + 14],
        dataDir: agentDir,
        tokenVia: 'flag',
      })
      const agent = await startGroup(agentArgs, /^agent ready$/m)
      const w = `/api/v1/workspaces/${ws}`
      const service = await api<{ id: number }>('POST', `${w}/services`, { name: 'pets' })
      const transaction = await api<{ id: number }>(
        'POST',
        `${w}/transactions?serviceId=${service.id}`,
        {
          name: 'list',
          dsl: {
            requestDsl: { method: 'GET', path: '/pets' },
            responseDsl: { status: 200, json: [{ id: 1 }] },
          },
        },
      )
      const mock = await api<{ id: number }>('POST', `${w}/service-mocks`, {
        serviceId: service.id,
        name: 'pets',
        harborId: harbor.id,
        shipId: ship.id,
        mockServiceTransactions: [transaction.id],
      })
      await api('GET', `${w}/service-mocks/${mock.id}/deploy`)
      let record: MockRecord | null = null
      await waitFor(
        async () => {
          record = await api<MockRecord>('GET', `${w}/service-mocks/${mock.id}`)
          return record.status === 'RUNNING'
        },
        'the mock service to run',
        { timeoutMs: 30_000, intervalMs: 200 },
      )
      const endpoint = (record as unknown as MockRecord).httpEndpoint as string
      expect(await answers(endpoint)).toBe(true)
      const before = runtimeOf(agentDir, mock.id)
      expect(before).not.toBeNull()

      // Platform and agent die; the agent's runtime is left behind, holding the port.
      await platform.killGroup()
      process.kill(agent.child.pid as number, 'SIGKILL')
      await waitFor(
        () => agent.child.exitCode !== null || agent.child.signalCode !== null,
        'the agent to die',
      )

      // A new agent on the same data dir, with the platform still down: the mock answers again
      // from a runtime of its own, on the same port.
      const again = await startGroup(agentArgs, /runtime started/, { timeoutMs: 30_000 })
      await waitFor(async () => await answers(endpoint), 'the mock service to answer again', {
        timeoutMs: 30_000,
        intervalMs: 200,
      })
      await waitFor(
        () => {
          const now = runtimeOf(agentDir, mock.id)
          return now !== null && now.pid !== before?.pid
        },
        'a new runtime',
        { timeoutMs: 10_000, intervalMs: 100 },
      )
      let leftover = true
      try {
        process.kill(before?.pid as number, 0)
      } catch {
        leftover = false
      }
      expect(leftover).toBe(false)
      expect(again.stdout()).not.toContain('agent ready')

      // The platform comes back: the agent registers and the record is RUNNING at the same endpoint.
      platform = await startPlatform(block, platformDir)
      await waitFor(() => again.stdout().includes('agent ready'), 'the agent to register', {
        timeoutMs: 20_000,
        intervalMs: 100,
      })
      const after = await api<MockRecord>('GET', `${w}/service-mocks/${mock.id}`)
      expect(after).toMatchObject({ status: 'RUNNING', httpEndpoint: endpoint, shipId: ship.id })
    },
  )
})
