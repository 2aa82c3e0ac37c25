import { afterEach, describe, expect, it } from 'vitest'
import { KubernetesRunner, PortPool, startAgent, type Agent } from '../../../src/agent/index.js'
import { connectCluster, KubernetesDriver } from '../../../src/deploy/index.js'
import { createSilentLogger } from '../../../src/log/index.js'
import { startFakeKubernetes, type FakeKubernetes } from '../../helpers/fake-kubernetes.js'
import { testHarbor, type HarborShip } from '../../helpers/agent.js'
import { startTestPlatform } from '../../helpers/platform.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { waitFor } from '../../helpers/wait.js'
import { call } from '../platform/tenancy-helpers.js'

/*
 * The agent with `--driver kubernetes`, in process: a real platform, the real Kubernetes client
 * against the fake API server whose pods are real `understudy run` processes. A mock service
 * deployed to the harbor becomes Kubernetes objects; its endpoint is the Service's; a new
 * document reaches the pods without a restart.
 */

const NS = 'mocks'
let fake: FakeKubernetes | null = null
let agent: Agent | null = null
afterEach(async () => {
  await agent?.stop()
  agent = null
  await fake?.close()
  fake = null
})

describe('understudy agent --driver kubernetes', () => {
  it('places a deployed mock service as Kubernetes objects, reports the Service endpoint, and configures it without restarting a pod', async () => {
    const platform = await startTestPlatform()
    const { harborId, ships } = await testHarbor(platform, 'cluster', ['in-cluster'])
    const ship = ships[0] as HarborShip
    fake = await startFakeKubernetes()
    const cluster = await connectCluster({
      kind: 'server',
      server: fake.url,
      token: 'test',
      namespace: NS,
    })
    const runner = new KubernetesRunner(
      new KubernetesDriver(cluster, {
        namespace: NS,
        image: 'understudy:test',
        pollMs: 100,
        readyTimeoutMs: 60_000,
      }),
    )
    agent = startAgent({
      platform: platform.url,
      harborId,
      shipId: ship.id,
      token: ship.token,
      dataDir: tempDir('understudy-agent-k8s-'),
      advertiseHost: null,
      version: 'test',
      runner,
      ports: new PortPool(null, '127.0.0.1'),
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
        replicas: 1,
        mockServiceTransactions: [await transaction('/pets')],
      },
    )
    const path = `${ws}/service-mocks/${mock.body.result.id}`
    const name = `understudy-ms-${mock.body.result.id}`
    const ended = async (trackingId: string): Promise<string> => {
      let status = ''
      await waitFor(
        async () => {
          status = (
            await call<{ status: string }>(
              platform,
              platform.auth,
              'GET',
              `/api/v1/trackings/${trackingId}`,
            )
          ).body.result.status
          return status === 'FINISHED' || status === 'FAILED'
        },
        'the tracking to end',
        { timeoutMs: 60_000, intervalMs: 200 },
      )
      return status
    }

    const deployed = await call<{ trackingId: string }>(
      platform,
      platform.auth,
      'GET',
      `${path}/deploy`,
    )
    expect(await ended(deployed.body.result.trackingId)).toBe('FINISHED')
    await waitFor(
      async () =>
        (await call<{ status: string }>(platform, platform.auth, 'GET', path)).body.result
          .status === 'RUNNING',
      'the record to say RUNNING',
      { timeoutMs: 10_000, intervalMs: 100 },
    )
    const record = await call<{ httpEndpoint: string }>(platform, platform.auth, 'GET', path)
    expect(record.body.result.httpEndpoint).toBe(`http://${name}.${NS}.svc`)
    expect(fake.object('Deployment', NS, name)).toBeDefined()
    const pods = fake.pods(NS, name)
    expect(pods).toHaveLength(1)
    const port = pods[0]?.ports['http']
    expect((await fetch(`http://127.0.0.1:${String(port)}/pets`)).status).toBe(200)
    expect((await fetch(`http://127.0.0.1:${String(port)}/cats`)).status).toBe(404)
    const pids = pods.map((p) => p.child.pid)

    // A new transaction, then configure: the pod serves it, and no pod was restarted.
    await call(platform, platform.auth, 'PATCH', path, { includeIds: [await transaction('/cats')] })
    const configured = await call<{ trackingId: string }>(
      platform,
      platform.auth,
      'GET',
      `${path}/configure`,
    )
    expect(await ended(configured.body.result.trackingId)).toBe('FINISHED')
    expect((await fetch(`http://127.0.0.1:${String(port)}/cats`)).status).toBe(200)
    expect(fake.pods(NS, name).map((p) => p.child.pid)).toEqual(pids)
    expect(fake.started(NS, name)).toBe(1)

    // The platform's admin calls reach the pod through the agent (the relay): what it served.
    const counted = await call<{ count: number }>(
      platform,
      platform.auth,
      'GET',
      `${path}/inspection/count?path=/cats`,
    )
    expect(counted.status).toBe(200)
    expect(counted.body.result.count).toBe(2)

    // Deleted on the platform: the agent deletes its objects.
    await call(platform, platform.auth, 'DELETE', path)
    await waitFor(
      () => fake?.object('Deployment', NS, name) === undefined,
      'the Deployment to be deleted',
      { timeoutMs: 30_000, intervalMs: 100 },
    )
  })

  it('restarted, reads the objects back and applies none of an unchanged mock service: no pod restarts', async () => {
    const platform = await startTestPlatform()
    const { harborId, ships } = await testHarbor(platform, 'cluster', ['in-cluster'])
    const ship = ships[0] as HarborShip
    const kube = await startFakeKubernetes()
    fake = kube
    const dataDir = tempDir('understudy-agent-k8s-')
    let runner: KubernetesRunner | null = null
    const start = async (): Promise<Agent> => {
      runner = new KubernetesRunner(
        new KubernetesDriver(
          await connectCluster({ kind: 'server', server: kube.url, token: 'test', namespace: NS }),
          { namespace: NS, image: 'understudy:test', pollMs: 100, readyTimeoutMs: 60_000 },
        ),
      )
      const started = startAgent({
        platform: platform.url,
        harborId,
        shipId: ship.id,
        token: ship.token,
        dataDir,
        advertiseHost: null,
        version: 'test',
        runner,
        ports: new PortPool(null, '127.0.0.1'),
        log: createSilentLogger(),
        heartbeatMs: 200,
      })
      await started.ready
      return started
    }
    agent = await start()

    const ws = `/api/v1/workspaces/${platform.workspaceId}`
    const service = await call<{ id: number }>(platform, platform.auth, 'POST', `${ws}/services`, {
      name: 'pets',
    })
    const transaction = await call<{ id: number }>(
      platform,
      platform.auth,
      'POST',
      `${ws}/transactions?serviceId=${service.body.result.id}`,
      {
        name: '/pets',
        dsl: { requestDsl: { method: 'GET', path: '/pets' }, responseDsl: { status: 200 } },
      },
    )
    const mock = await call<{ id: number }>(
      platform,
      platform.auth,
      'POST',
      `${ws}/service-mocks`,
      {
        serviceId: service.body.result.id,
        name: 'pets',
        harborId,
        replicas: 1,
        mockServiceTransactions: [transaction.body.result.id],
      },
    )
    const id = mock.body.result.id
    const name = `understudy-ms-${id}`
    await call(platform, platform.auth, 'GET', `${ws}/service-mocks/${id}/deploy`)
    const running = (): boolean => runner?.view(id)?.status === 'RUNNING'
    await waitFor(running, 'the mock service to run on the cluster', {
      timeoutMs: 60_000,
      intervalMs: 100,
    })
    const applies = (): number => kube.calls.filter((c) => c.method === 'PATCH').length
    const appliedOnce = applies()
    expect(appliedOnce).toBeGreaterThanOrEqual(5)
    const pids = kube.pods(NS, name).map((p) => p.child.pid)
    expect(pids).toHaveLength(1)

    // The agent stops and starts again on the same data dir: it deploys what it ran before...
    await agent.stop()
    agent = await start()
    await waitFor(running, 'the restarted agent to find the mock service running', {
      timeoutMs: 60_000,
      intervalMs: 100,
    })
    // ...by reading the cluster back: not one apply, the same pod.
    expect(applies()).toBe(appliedOnce)
    expect(kube.started(NS, name)).toBe(1)
    expect(kube.pods(NS, name).map((p) => p.child.pid)).toEqual(pids)
    const pod = kube.pods(NS, name)[0]
    expect((await fetch(`http://127.0.0.1:${String(pod?.ports['http'])}/pets`)).status).toBe(200)
  })
})
