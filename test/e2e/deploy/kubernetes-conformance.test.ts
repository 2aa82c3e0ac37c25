import { describe, expect, it } from 'vitest'
import { readDefinition } from '../../../src/dsl/index.js'
import {
  connectCluster,
  documentHash,
  KubernetesDriver,
} from '../../../src/deploy/kubernetes/index.js'

/*
 * Layer (c) of the Kubernetes driver's tests: the driver against a real cluster. It runs only when
 * KUBECONFIG names one and UNDERSTUDY_K8S_IMAGE names an image of this project the cluster can
 * pull (`docker build -t understudy:dev .`, then load it: `kind load docker-image understudy:dev`);
 * otherwise it is skipped, and its title says why. The namespace (UNDERSTUDY_K8S_NAMESPACE,
 * default `understudy-conformance`) must exist. The driver reaches pods at their own addresses,
 * so run it where the pod network is routed (inside the cluster, or on a kind node).
 */

const kubeconfig = process.env['KUBECONFIG'] ?? ''
const image = process.env['UNDERSTUDY_K8S_IMAGE'] ?? ''
const namespace = process.env['UNDERSTUDY_K8S_NAMESPACE'] ?? 'understudy-conformance'
const skipped =
  kubeconfig === ''
    ? 'KUBECONFIG is not set'
    : image === ''
      ? 'UNDERSTUDY_K8S_IMAGE is not set'
      : null
const title =
  skipped === null
    ? `the Kubernetes driver on the cluster of ${kubeconfig}, namespace ${namespace}`
    : `the Kubernetes driver on a real cluster (SKIPPED: ${skipped}; no cluster was contacted)`

// Said once per run, whatever the reporter: a skipped suite must not read as a passed one.
if (skipped !== null) {
  console.warn(
    `kubernetes-conformance: SKIPPED (${skipped}); the driver was not run against a real cluster`,
  )
}

const v1 = {
  name: 'conformance',
  transactions: [
    {
      name: 'hello',
      dsl: { requestDsl: { method: 'GET', path: '/hello' }, responseDsl: { json: { v: 1 } } },
    },
  ],
}
const v2 = {
  name: 'conformance',
  transactions: [
    {
      name: 'hello',
      dsl: { requestDsl: { method: 'GET', path: '/hello' }, responseDsl: { json: { v: 2 } } },
    },
  ],
}

describe.skipIf(skipped !== null)(title, () => {
  it('deploys two replicas, pushes a new document to both without a restart, reads status and endpoints back, removes everything', async () => {
    const cluster = await connectCluster({ kind: 'file', path: kubeconfig })
    const driver = new KubernetesDriver(cluster, {
      namespace,
      image,
      imagePullPolicy: 'IfNotPresent',
      readyTimeoutMs: 180_000,
      pollMs: 2000,
    })
    const id = 900_000 + Math.floor(Math.random() * 99_999)
    try {
      const placed = await driver.deploy({
        mockServiceId: id,
        name: 'conformance',
        replicas: 2,
        document: v1 as never,
      })
      expect(placed).toMatchObject({
        status: 'RUNNING',
        replicas: 2,
        readyReplicas: 2,
        documentHash: documentHash(readDefinition(v1)),
      })
      const pods = placed.pods.map((p) => p.name)
      const configured = await driver.configure({
        mockServiceId: id,
        name: 'conformance',
        replicas: 2,
        document: v2 as never,
      })
      expect(configured.status).toBe('RUNNING')
      expect(configured.pods.map((p) => p.name).sort()).toEqual([...pods].sort())
      for (const pod of configured.pods) {
        expect(pod.documentHash).toBe(documentHash(readDefinition(v2)))
      }
      const status = await driver.status(id)
      expect(status?.endpoints).toContain(`http://understudy-ms-${id}.${namespace}.svc`)
    } finally {
      await driver.remove(id)
    }
    expect(await driver.status(id)).toBeNull()
  }, 600_000)
})
