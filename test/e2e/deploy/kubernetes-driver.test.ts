import { afterEach, describe, expect, it } from 'vitest'
import { readDefinition } from '../../../src/dsl/index.js'
import {
  connectCluster,
  documentHash,
  FIELD_MANAGER,
  HASH_ANNOTATION,
  KubernetesDriver,
} from '../../../src/deploy/kubernetes/index.js'
import { startFakeKubernetes, type FakeKubernetes } from '../../helpers/fake-kubernetes.js'

/*
 * Layer (b) of the Kubernetes driver's tests: the real client (@kubernetes/client-node) against a
 * fake API server whose pods are real `understudy run` processes on loopback, so that pushing a
 * document to every pod's admin API and confirming it by hash is done for real.
 */

const NS = 'mocks'
const pets = {
  name: 'pets',
  transactions: [
    {
      name: 'list',
      dsl: {
        requestDsl: { method: 'GET', path: '/pets' },
        responseDsl: { json: [{ id: 1, name: 'Rex' }] },
      },
    },
  ],
}
const gone = {
  name: 'pets',
  transactions: [
    {
      name: 'gone',
      dsl: {
        requestDsl: { method: 'GET', path: '/pets' },
        responseDsl: { status: 410, json: { gone: true } },
      },
    },
  ],
}

let fake: FakeKubernetes | null = null
afterEach(async () => {
  await fake?.close()
  fake = null
})

async function driverFor(cluster: FakeKubernetes): Promise<KubernetesDriver> {
  const api = await connectCluster({
    kind: 'server',
    server: cluster.url,
    token: 'test',
    namespace: NS,
  })
  return new KubernetesDriver(api, {
    namespace: NS,
    image: 'understudy:test',
    pollMs: 100,
    readyTimeoutMs: 60_000,
  })
}

async function statusOfPets(port: number | undefined): Promise<number> {
  return (await fetch(`http://127.0.0.1:${String(port)}/pets`)).status
}

describe('the Kubernetes driver against a fake API server with real runtimes', () => {
  it('deploys with server-side apply, pushes a new document to every pod without restarting any, scales, stops and removes', async () => {
    fake = await startFakeKubernetes()
    const driver = await driverFor(fake)
    const name = 'understudy-ms-7'

    const placed = await driver.deploy({
      mockServiceId: 7,
      name: 'pets',
      replicas: 2,
      document: pets as never,
    })
    expect(placed.status).toBe('RUNNING')
    expect(placed.readyReplicas).toBe(2)
    expect(placed.documentHash).toBe(documentHash(readDefinition(pets)))
    expect(placed.pods).toHaveLength(2)
    for (const pod of placed.pods) {
      expect(pod).toMatchObject({ ready: true, documentHash: placed.documentHash })
    }
    expect(placed.endpoints).toContain(`http://${name}.${NS}.svc`)
    // Every write was a server-side apply by the agent's field manager, forced.
    const writes = fake.calls.filter((c) => c.method !== 'GET')
    expect(writes.length).toBeGreaterThanOrEqual(5)
    for (const w of writes.filter((c) => c.method === 'PATCH')) {
      expect(w).toMatchObject({
        contentType: 'application/apply-patch+yaml',
        query: { fieldManager: FIELD_MANAGER, force: 'true' },
      })
    }
    const pods = fake.pods(NS, name)
    expect(pods).toHaveLength(2)
    for (const pod of pods) expect(await statusOfPets(pod.ports['http'])).toBe(200)
    // The pods started from the ConfigMap serve the document as the driver hashed it: nothing was pushed.
    for (const pod of pods) expect(pod.stderr).not.toContain('configuration swapped')
    const pids = pods.map((p) => p.child.pid)

    const configured = await driver.configure({
      mockServiceId: 7,
      name: 'pets',
      replicas: 2,
      document: gone as never,
    })
    expect(configured.status).toBe('RUNNING')
    expect(configured.documentHash).toBe(documentHash(readDefinition(gone)))
    for (const pod of configured.pods) expect(pod.documentHash).toBe(configured.documentHash)
    expect(fake.pods(NS, name).map((p) => p.child.pid)).toEqual(pids)
    expect(fake.started(NS, name)).toBe(2)
    for (const pod of fake.pods(NS, name)) {
      expect(await statusOfPets(pod.ports['http'])).toBe(410)
      expect(pod.stderr).toContain('configuration swapped')
    }
    const configMap = fake.object('ConfigMap', NS, name)
    expect(configMap?.['metadata']?.annotations?.[HASH_ANNOTATION]).toBe(configured.documentHash)
    expect(JSON.parse(configMap?.['data']?.['mock.json'] as string)).toEqual(readDefinition(gone))

    // A document the runtime would refuse changes nothing: not the ConfigMap, not a pod.
    await expect(
      driver.configure({
        mockServiceId: 7,
        name: 'pets',
        replicas: 2,
        document: {
          transactions: [
            { dsl: { requestDsl: { path: '/pets' }, responseDsl: { status: 'abc' } } },
          ],
        } as never,
      }),
    ).rejects.toMatchObject({ code: 'ERR_DSL_INVALID' })
    expect(fake.object('ConfigMap', NS, name)?.['metadata']?.annotations?.[HASH_ANNOTATION]).toBe(
      configured.documentHash,
    )
    for (const pod of fake.pods(NS, name)) expect(await statusOfPets(pod.ports['http'])).toBe(410)

    // One more replica: a new pod, started from the ConfigMap's (new) document; the others stay.
    const scaled = await driver.configure({
      mockServiceId: 7,
      name: 'pets',
      replicas: 3,
      document: gone as never,
    })
    expect(scaled).toMatchObject({ status: 'RUNNING', replicas: 3, readyReplicas: 3 })
    const three = fake.pods(NS, name)
    expect(three).toHaveLength(3)
    expect(three.map((p) => p.child.pid).filter((pid) => pids.includes(pid))).toHaveLength(2)
    for (const pod of three) expect(await statusOfPets(pod.ports['http'])).toBe(410)

    const status = await driver.status(7)
    expect(status).toMatchObject({
      status: 'RUNNING',
      replicas: 3,
      readyReplicas: 3,
      documentHash: configured.documentHash,
    })
    expect(status?.pods.every((p) => p.ready && p.documentHash === configured.documentHash)).toBe(
      true,
    )

    await driver.stop(7)
    expect(fake.pods(NS, name)).toHaveLength(0)
    expect(await driver.status(7)).toMatchObject({ status: 'STOPPED', replicas: 0 })
    // The stop kept the pod template: a deploy starts it again from it.
    expect(
      fake.object('Deployment', NS, name)?.['spec']?.template?.spec?.containers?.[0]?.image,
    ).toBe('understudy:test')

    const restarted = await driver.deploy({
      mockServiceId: 7,
      name: 'pets',
      replicas: 1,
      document: gone as never,
    })
    expect(restarted).toMatchObject({ status: 'RUNNING', replicas: 1, readyReplicas: 1 })
    expect(await statusOfPets(fake.pods(NS, name)[0]?.ports['http'])).toBe(410)

    await driver.remove(7)
    expect(await driver.status(7)).toBeNull()
    for (const kind of ['ConfigMap', 'Secret', 'Deployment', 'Service']) {
      expect(fake.object(kind, NS, name) ?? fake.object(kind, NS, `${name}-admin`)).toBeUndefined()
    }
  }, 120_000)

  it('a pod that serves another document (it missed a push) is given the current one; the token it needs stays in its Secret', async () => {
    fake = await startFakeKubernetes()
    const driver = await driverFor(fake)
    await driver.deploy({ mockServiceId: 8, name: 'pets', replicas: 1, document: pets as never })
    const [pod] = fake.pods(NS, 'understudy-ms-8')
    const token = Buffer.from(
      String(fake.object('Secret', NS, 'understudy-ms-8-admin')?.['data']?.['token']),
      'base64',
    ).toString()
    // Someone swaps the pod's document behind the driver's back.
    const swapped = await fetch(`http://127.0.0.1:${String(pod?.ports['admin'])}/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(gone),
    })
    expect(swapped.status).toBe(200)
    const drifted = await driver.status(8)
    expect(drifted?.status).toBe('STARTING')
    expect(drifted?.pods[0]?.documentHash).toBe(documentHash(readDefinition(gone)))
    // Without the token a pod's admin API refuses: the driver's calls carry it.
    expect((await fetch(`http://127.0.0.1:${String(pod?.ports['admin'])}/config`)).status).toBe(401)
    const again = await driver.deploy({
      mockServiceId: 8,
      name: 'pets',
      replicas: 1,
      document: pets as never,
    })
    expect(again.status).toBe('RUNNING')
    expect(await statusOfPets(pod?.ports['http'])).toBe(200)
    expect(fake.started(NS, 'understudy-ms-8')).toBe(1)
  }, 120_000)
})

describe('the Kubernetes driver when pods never become ready', () => {
  it('fails the deploy with how many pods were ready and serving, after its timeout', async () => {
    fake = await startFakeKubernetes()
    const api = await connectCluster({ kind: 'server', server: fake.url, namespace: NS })
    const driver = new KubernetesDriver(api, {
      namespace: NS,
      image: 'understudy:crash',
      pollMs: 100,
      readyTimeoutMs: 2000,
    })
    await expect(
      driver.deploy({ mockServiceId: 9, name: 'pets', replicas: 2, document: pets as never }),
    ).rejects.toMatchObject({
      code: 'ERR_DEPLOY_FAILED',
      message: expect.stringMatching(/0 of 2 pods ready and serving the document after 2 s/),
    })
    expect(await driver.status(9)).toMatchObject({ status: 'STARTING', readyReplicas: 0 })
  }, 60_000)
})
