import { randomBytes } from 'node:crypto'
import type { KubernetesObject } from '@kubernetes/client-node'
import { readDefinition, type MockServiceDocument } from '../../dsl/index.js'
import { createError } from '../../errors/index.js'
import { adminHeaders, putConfig, type RuntimeAdmin } from '../admin-client.js'
import { stamped, upToDate } from './applied-stamp.js'
import { SCALE_FIELD_MANAGER, type ClusterApi } from './cluster.js'
import { documentHash } from './document-hash.js'
import { fanInAdmin, type MockServiceAdmin, type PodSet } from './fan-in-admin.js'
import {
  HASH_ANNOTATION,
  TOKEN_KEY,
  ingressHostOf,
  objectNames,
  renderConfigMap,
  renderDeployment,
  renderMockService,
  type RenderedObject,
} from './render.js'
import type {
  KubernetesDriverOptions,
  KubernetesMockService,
  KubernetesPlacement,
  PodView,
  RuntimeDriver,
} from './types.js'

/* The few fields of the objects read back that the driver uses. */
interface DeploymentRead extends KubernetesObject {
  spec?: { replicas?: number }
  status?: {
    readyReplicas?: number
    conditions?: Array<{ type?: string; status?: string; reason?: string; message?: string }>
  }
}
interface EndpointsRead extends KubernetesObject {
  subsets?: Array<{
    addresses?: Array<{ ip: string; targetRef?: { name?: string } }>
    notReadyAddresses?: Array<{ ip: string; targetRef?: { name?: string } }>
    ports?: Array<{ name?: string; port: number }>
  }>
}
interface ServiceRead extends KubernetesObject {
  spec?: { type?: string; ports?: Array<{ name?: string; port: number; nodePort?: number }> }
  status?: { loadBalancer?: { ingress?: Array<{ ip?: string; hostname?: string }> } }
}
interface SecretRead extends KubernetesObject {
  data?: Record<string, string>
}

/** A pod's address and admin API, from the admin Service's Endpoints. */
interface PodAddress {
  name: string | null
  ip: string
  ready: boolean
  admin: RuntimeAdmin
}

const sleep = async (ms: number): Promise<void> => {
  await new Promise((resolve) => setTimeout(resolve, ms))
}

function hostOf(ip: string): string {
  return ip.includes(':') ? `[${ip}]` : ip
}

/**
 * Places mock services on Kubernetes (docs/deploy.md#kubernetes): per mock service a ConfigMap with its
 * document, a Secret with its runtime's admin token, a Deployment of the project's image running
 * `understudy run`, a Service (and a headless one over the admin port), optionally an Ingress,
 * all server-side applied. A new document is pushed to every pod's admin API and confirmed by its
 * hash, so that no pod restarts; the ConfigMap carries it for pods started later.
 *
 * Pods are reached at their own addresses (the admin Service's Endpoints): the agent must run in
 * the cluster, or where pod addresses are routed.
 *
 * @example
 * const driver = new KubernetesDriver(await connectCluster({ kind: 'default' }), { namespace: 'mocks', image: 'ghcr.io/acme/understudy:1.0' })
 * const placed = await driver.deploy({ mockServiceId: 7, name: 'pets', replicas: 2, document })
 */
export class KubernetesDriver implements RuntimeDriver {
  readonly #cluster: ClusterApi
  readonly #options: KubernetesDriverOptions

  constructor(cluster: ClusterApi, options: KubernetesDriverOptions) {
    this.#cluster = cluster
    this.#options = options
  }

  /*
   * The document is validated and normalized here (readDefinition, as the runtime does on load),
   * and the ConfigMap holds it so: a pod started from it and a pod given it by `PUT /config` serve
   * the same document, with the hash in the ConfigMap's annotation. An invalid one throws
   * ERR_DSL_INVALID before anything in the cluster changes.
   */
  async deploy(mock: KubernetesMockService): Promise<KubernetesPlacement> {
    const served = readDefinition(mock.document)
    const token =
      (await this.#adminToken(mock.mockServiceId)) ?? randomBytes(24).toString('base64url')
    for (const object of renderMockService({ ...mock, document: served }, this.#options, token)) {
      await this.#applyChanged(object)
    }
    // An Ingress of an earlier deploy goes when the driver no longer has an Ingress domain.
    if (ingressHostOf(mock.mockServiceId, this.#options) === null) {
      await this.#cluster.remove(
        'networking.k8s.io/v1',
        'Ingress',
        this.#options.namespace,
        objectNames(mock.mockServiceId).ingress,
      )
    }
    return await this.#converge(mock, served, token)
  }

  async configure(mock: KubernetesMockService): Promise<KubernetesPlacement> {
    const token = await this.#adminToken(mock.mockServiceId)
    const deployment = await this.#deployment(mock.mockServiceId)
    if (token === null || deployment === null) return await this.deploy(mock)
    const served = readDefinition(mock.document)
    // One pod first: a document the runtime refuses (ERR_DSL_INVALID...) throws here, before the
    // ConfigMap changes, and every pod keeps serving the old one.
    const first = (await this.#pods(mock.mockServiceId, token)).find((p) => p.ready)
    if (first !== undefined) await this.#push(first, served)
    await this.#applyChanged(renderConfigMap({ ...mock, document: served }, this.#options))
    // Same pod template: only `replicas` can change, which adds or removes pods and restarts none.
    await this.#applyChanged(renderDeployment(mock, this.#options))
    return await this.#converge(mock, served, token)
  }

  async stop(mockServiceId: number): Promise<void> {
    const deployment = await this.#deployment(mockServiceId)
    if (deployment === null) return
    await this.#cluster.apply(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: {
          name: objectNames(mockServiceId).deployment,
          namespace: this.#options.namespace,
        },
        spec: { replicas: 0 },
      } as KubernetesObject,
      SCALE_FIELD_MANAGER,
    )
  }

  async remove(mockServiceId: number): Promise<void> {
    const names = objectNames(mockServiceId)
    const ns = this.#options.namespace
    await this.#cluster.remove('networking.k8s.io/v1', 'Ingress', ns, names.ingress)
    await this.#cluster.remove('v1', 'Service', ns, names.service)
    await this.#cluster.remove('v1', 'Service', ns, names.adminService)
    await this.#cluster.remove('apps/v1', 'Deployment', ns, names.deployment)
    await this.#cluster.remove('v1', 'ConfigMap', ns, names.configMap)
    await this.#cluster.remove('v1', 'Secret', ns, names.secret)
  }

  async status(mockServiceId: number): Promise<KubernetesPlacement | null> {
    const deployment = await this.#deployment(mockServiceId)
    if (deployment === null) return null
    const token = await this.#adminToken(mockServiceId)
    const configMap = await this.#cluster.read<KubernetesObject>(
      'v1',
      'ConfigMap',
      this.#options.namespace,
      objectNames(mockServiceId).configMap,
    )
    const expected = configMap?.metadata?.annotations?.[HASH_ANNOTATION] ?? null
    const pods = token === null ? [] : await this.#podViews(await this.#pods(mockServiceId, token))
    return await this.#placement(mockServiceId, deployment, expected, pods)
  }

  /**
   * The runtime admin API of a mock service over every pod behind its Service (fan-in-admin.ts):
   * inspection and verification answered as one runtime would, failing closed (503) when a pod
   * the Deployment wants is not ready or does not answer within the admin timeout. The pods are
   * read from the cluster at every call, so a scaled or replaced pod is seen at once.
   *
   * @example
   * (await driver.admin(7).request('GET', '/inspection/count?path=/orders')).result // { count: 3 }
   */
  admin(mockServiceId: number): MockServiceAdmin {
    return fanInAdmin(
      mockServiceId,
      async () => await this.podSet(mockServiceId),
      this.#adminTimeout(),
    )
  }

  /** The pods of a mock service now: how many its Deployment wants, the ready ones with their admin API, the others by name. */
  async podSet(mockServiceId: number): Promise<PodSet> {
    const deployment = await this.#deployment(mockServiceId)
    const token = await this.#adminToken(mockServiceId)
    if (deployment === null || token === null) return { wanted: 0, ready: [], notReady: [] }
    const pods = await this.#pods(mockServiceId, token)
    return {
      wanted: deployment.spec?.replicas ?? 1,
      ready: pods.filter((p) => p.ready).map((p) => ({ name: p.name ?? p.ip, admin: p.admin })),
      notReady: pods.filter((p) => !p.ready).map((p) => p.name ?? p.ip),
    }
  }

  /**
   * Waits until the Deployment has every pod ready and every ready pod serves `served` (by hash),
   * pushing it to a pod that serves another (one started before the ConfigMap changed, one that
   * missed the push). Throws ERR_DEPLOY_FAILED when the Deployment gives up or time runs out.
   */
  async #converge(
    mock: KubernetesMockService,
    served: MockServiceDocument,
    token: string,
  ): Promise<KubernetesPlacement> {
    const expected = documentHash(served)
    const deadline = Date.now() + (this.#options.readyTimeoutMs ?? 120_000)
    let last: KubernetesPlacement | null = null
    for (;;) {
      const deployment = await this.#deployment(mock.mockServiceId)
      if (deployment === null) {
        throw createError('ERR_DEPLOY_FAILED', [
          `the Deployment of mock service ${mock.mockServiceId} disappeared while it started`,
        ])
      }
      const pods = await this.#pods(mock.mockServiceId, token)
      const views: PodView[] = []
      for (const pod of pods) {
        let hash = pod.ready ? await this.#servedHash(pod) : null
        if (pod.ready && hash !== expected && (await this.#push(pod, served))) {
          hash = await this.#servedHash(pod)
        }
        views.push({ name: pod.name, ip: pod.ip, ready: pod.ready, documentHash: hash })
      }
      last = await this.#placement(mock.mockServiceId, deployment, expected, views)
      if (last.status === 'RUNNING' || last.status === 'STOPPED') return last
      if (last.status === 'FAILED') {
        throw createError('ERR_DEPLOY_FAILED', [
          `mock service ${mock.mockServiceId} did not start on Kubernetes: ${last.message ?? 'the Deployment stopped progressing'}`,
        ])
      }
      if (Date.now() > deadline) {
        const serving = views.filter((p) => p.ready && p.documentHash === expected).length
        throw createError('ERR_DEPLOY_FAILED', [
          `mock service ${mock.mockServiceId}: ${serving} of ${mock.replicas} pods ready and serving the document after ${Math.round((this.#options.readyTimeoutMs ?? 120_000) / 1000)} s${last.message === null ? '' : ` (${last.message})`}`,
        ])
      }
      await sleep(this.#options.pollMs ?? 1000)
    }
  }

  async #placement(
    mockServiceId: number,
    deployment: DeploymentRead,
    expected: string | null,
    pods: PodView[],
  ): Promise<KubernetesPlacement> {
    const replicas = deployment.spec?.replicas ?? 1
    const readyReplicas = deployment.status?.readyReplicas ?? 0
    const stalled = deployment.status?.conditions?.find(
      (c) => c.type === 'Progressing' && c.status === 'False',
    )
    const serving = pods.filter(
      (p) => p.ready && p.documentHash !== null && p.documentHash === expected,
    ).length
    const status: KubernetesPlacement['status'] =
      replicas === 0
        ? 'STOPPED'
        : stalled !== undefined
          ? 'FAILED'
          : readyReplicas >= replicas && serving >= replicas
            ? 'RUNNING'
            : 'STARTING'
    const message =
      stalled?.message ??
      (status === 'STARTING'
        ? `${readyReplicas} of ${replicas} pods ready, ${serving} serving the document`
        : null)
    return {
      mockServiceId,
      status,
      replicas,
      readyReplicas,
      documentHash: expected,
      pods,
      endpoints: await this.#endpoints(mockServiceId),
      message,
    }
  }

  /** Where clients reach the mock: the Service's DNS name, its load balancer, node port and Ingress. */
  async #endpoints(mockServiceId: number): Promise<string[]> {
    const names = objectNames(mockServiceId)
    const ns = this.#options.namespace
    const service = await this.#cluster.read<ServiceRead>('v1', 'Service', ns, names.service)
    if (service === null) return []
    const out = [`http://${names.service}.${ns}.svc`]
    for (const lb of service.status?.loadBalancer?.ingress ?? []) {
      const host = lb.hostname ?? lb.ip
      if (host !== undefined) out.push(`http://${hostOf(host)}`)
    }
    const nodePort = service.spec?.ports?.find((p) => p.name === 'http')?.nodePort
    if (service.spec?.type === 'NodePort' && nodePort !== undefined) {
      out.push(`nodePort:${nodePort}`)
    }
    const ingressHost = ingressHostOf(mockServiceId, this.#options)
    if (
      ingressHost !== null &&
      (await this.#cluster.read('networking.k8s.io/v1', 'Ingress', ns, names.ingress)) !== null
    ) {
      out.push(`http://${ingressHost}`)
    }
    return out
  }

  /**
   * Applies the object unless the cluster's already is it (its applied stamp, and a Deployment's
   * replicas): a restarted agent, or a deploy of what runs already, changes nothing in the cluster.
   */
  async #applyChanged(object: RenderedObject): Promise<void> {
    const wanted = stamped(object)
    const live = await this.#cluster.read(
      wanted.apiVersion,
      wanted.kind,
      wanted.metadata.namespace,
      wanted.metadata.name,
    )
    if (!upToDate(live, wanted)) await this.#cluster.apply(wanted)
  }

  async #deployment(mockServiceId: number): Promise<DeploymentRead | null> {
    return await this.#cluster.read<DeploymentRead>(
      'apps/v1',
      'Deployment',
      this.#options.namespace,
      objectNames(mockServiceId).deployment,
    )
  }

  async onePodAdmin(mockServiceId: number): Promise<RuntimeAdmin | null> {
    const token = await this.#adminToken(mockServiceId)
    if (token === null) return null
    return (await this.#pods(mockServiceId, token)).find((p) => p.ready)?.admin ?? null
  }

  /** The admin token in the mock service's Secret, or null before its first deploy. */
  async #adminToken(mockServiceId: number): Promise<string | null> {
    const secret = await this.#cluster.read<SecretRead>(
      'v1',
      'Secret',
      this.#options.namespace,
      objectNames(mockServiceId).secret,
    )
    const encoded = secret?.data?.[TOKEN_KEY]
    return encoded === undefined ? null : Buffer.from(encoded, 'base64').toString('utf8')
  }

  /** Every pod of the admin Service's Endpoints, ready or not, with its admin API address. */
  async #pods(mockServiceId: number, token: string): Promise<PodAddress[]> {
    const endpoints = await this.#cluster.read<EndpointsRead>(
      'v1',
      'Endpoints',
      this.#options.namespace,
      objectNames(mockServiceId).adminService,
    )
    const out: PodAddress[] = []
    for (const subset of endpoints?.subsets ?? []) {
      const port = subset.ports?.find((p) => p.name === 'admin')?.port ?? subset.ports?.[0]?.port
      if (port === undefined) continue
      const add = (ready: boolean) => (a: { ip: string; targetRef?: { name?: string } }) => {
        out.push({
          name: a.targetRef?.name ?? null,
          ip: a.ip,
          ready,
          admin: { url: `http://${hostOf(a.ip)}:${port}`, token },
        })
      }
      subset.addresses?.forEach(add(true))
      subset.notReadyAddresses?.forEach(add(false))
    }
    return out
  }

  async #podViews(pods: PodAddress[]): Promise<PodView[]> {
    const views: PodView[] = []
    for (const pod of pods) {
      views.push({
        name: pod.name,
        ip: pod.ip,
        ready: pod.ready,
        documentHash: pod.ready ? await this.#servedHash(pod) : null,
      })
    }
    return views
  }

  /**
   * `PUT /config` to one pod. A pod that does not answer (it is going away, or not listening yet)
   * is left for the next round (false); a runtime that refuses the document throws its error.
   */
  async #push(pod: PodAddress, served: MockServiceDocument): Promise<boolean> {
    try {
      await putConfig(pod.admin, served, this.#adminTimeout())
      return true
    } catch (err) {
      if ((err as { code?: unknown }).code === 'ERR_DEPLOY_FAILED') return false
      throw err
    }
  }

  /** The hash of the document a pod serves (`GET /config`), or null when it does not answer. */
  async #servedHash(pod: PodAddress): Promise<string | null> {
    try {
      const res = await fetch(`${pod.admin.url}/config`, {
        headers: adminHeaders(pod.admin),
        signal: AbortSignal.timeout(this.#adminTimeout()),
      })
      if (!res.ok) return null
      const body = (await res.json()) as { result?: unknown }
      return body.result === undefined ? null : documentHash(body.result)
    } catch {
      return null
    }
  }

  #adminTimeout(): number {
    return this.#options.adminTimeoutMs ?? 10_000
  }
}
