import type { RuntimeAdmin } from '../admin-client.js'
import type { MockServiceDocument } from '../../dsl/index.js'
import type { MockServiceAdmin } from './fan-in-admin.js'

/*
 * The Kubernetes driver's own contract. It is written for the agent (`understudy agent --driver
 * kubernetes`), which will place the mock services assigned to its ship through it; the platform's
 * local deployer does not use it.
 */

/** One mock service as the driver places it. */
export interface KubernetesMockService {
  /** The mock service's id on the platform: the objects are named and labelled by it. */
  mockServiceId: number
  /** Shown as an annotation (the objects' names come from the id, always valid DNS labels). */
  name: string
  /** Pods of the Deployment (the mock service's `replicas`); 0 stops it and keeps its objects. */
  replicas: number
  /** What every pod serves: mounted from the ConfigMap at start, pushed to the admin API on change. */
  document: MockServiceDocument
}

/** Where and how the driver places runtimes. */
export interface KubernetesDriverOptions {
  namespace: string
  /** The project's image, whose entrypoint is `understudy run` (the Dockerfile's). */
  image: string
  imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never'
  /** How the mock is exposed: ClusterIP (default), NodePort or LoadBalancer. */
  serviceType?: 'ClusterIP' | 'NodePort' | 'LoadBalancer'
  /** With it, an Ingress per mock service for `ms-<id>.<ingressDomain>`; none without. */
  ingressDomain?: string | null
  ingressClassName?: string | null
  /** Longest wait for the pods to be ready and to serve the document (default 120 s). */
  readyTimeoutMs?: number
  /** Interval of the readiness and document checks (default 1 s). */
  pollMs?: number
  /** Timeout of one admin API call to a pod (default 10 s). */
  adminTimeoutMs?: number
}

/** A pod as the driver sees it: its address, readiness, and the hash of the document it serves. */
export interface PodView {
  name: string | null
  ip: string
  ready: boolean
  /** sha256 of the document its admin API serves; null when it could not be read. */
  documentHash: string | null
}

/** The state of a mock service, read back from the cluster. */
export interface KubernetesPlacement {
  mockServiceId: number
  /**
   * RUNNING: every wanted pod ready and serving the document; STARTING: not yet; STOPPED: scaled
   * to 0; FAILED: the Deployment gave up progressing (image pull, crash loop past its deadline).
   */
  status: 'RUNNING' | 'STARTING' | 'STOPPED' | 'FAILED'
  replicas: number
  readyReplicas: number
  /** sha256 of the document in the ConfigMap: what every pod must serve. */
  documentHash: string | null
  pods: PodView[]
  /** Where clients reach the mock: the Service's cluster DNS name, and the node port, load balancer and Ingress when there are. */
  endpoints: string[]
  /** Why it is FAILED or STARTING, in words, when the cluster says. */
  message: string | null
}

/** What the agent asks of a driver (the kubernetes one here; the process one is the local deployer's code). */
export interface RuntimeDriver {
  /** Creates or updates every object, then waits until all pods are ready and serve the document. */
  deploy: (mock: KubernetesMockService) => Promise<KubernetesPlacement>
  /**
   * Changes the document (and replicas) without restarting a pod: the first ready pod is given it
   * first (a document it refuses changes nothing), then the ConfigMap, then every other pod; it
   * resolves when every ready pod serves it, confirmed by its hash.
   */
  configure: (mock: KubernetesMockService) => Promise<KubernetesPlacement>
  /** Scales to 0, keeping the objects (a later deploy starts it again). */
  stop: (mockServiceId: number) => Promise<void>
  /** Deletes every object of the mock service; resolves when the API accepted the deletes. */
  remove: (mockServiceId: number) => Promise<void>
  /** Status, pods and endpoints read from the cluster; null when it has no Deployment there. */
  status: (mockServiceId: number) => Promise<KubernetesPlacement | null>
  /**
   * The runtime admin API of the mock service over all its pods (inspection and verification
   * fanned in, failing closed with 503 when a pod is not ready or does not answer).
   */
  admin: (mockServiceId: number) => MockServiceAdmin
  /**
   * The admin API of one ready pod of the mock service, with its token, for what is not fanned in
   * (scenarios, recordings, health); null when none is ready.
   */
  onePodAdmin: (mockServiceId: number) => Promise<RuntimeAdmin | null>
}
