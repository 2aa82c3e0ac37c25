import { createError } from '../../errors/index.js'
import { documentHash } from './document-hash.js'
import type { KubernetesDriverOptions, KubernetesMockService } from './types.js'

/*
 * The Kubernetes objects of one mock service, as plain JSON: pure functions of the mock service
 * and the driver's options, so that they can be validated against the Kubernetes schemas without
 * a cluster (test/unit/kubernetes-render.test.ts) and applied as they are (server-side apply).
 * The image's contract is the Dockerfile's: entrypoint `understudy run`, the mock on 8080, the
 * admin API on 9090 with its token from UNDERSTUDY_ADMIN_TOKEN and `GET /health` open for probes.
 */

/** Where the ConfigMap's document is mounted, and the ports of the image. */
const MOCK_PATH = '/config/mock.json'
const HTTP_PORT = 8080
const ADMIN_PORT = 9090
/** The key of the document in the ConfigMap, and of the token in the Secret. */
const DOCUMENT_KEY = 'mock.json'
export const TOKEN_KEY = 'token'
/** The annotation carrying the sha256 of the ConfigMap's document: what every pod must serve. */
export const HASH_ANNOTATION = 'understudy.dev/document-sha256'
const MOCK_ID_LABEL = 'understudy.dev/mock-service-id'
/**
 * A ConfigMap holds at most 1 MiB (data and metadata together); the document must leave room for
 * the metadata. A larger mock service is refused here, in words, rather than by the API server.
 */
export const MAX_DOCUMENT_BYTES = 1_000_000

/** A Kubernetes object as the driver renders it. */
export interface RenderedObject {
  apiVersion: string
  kind: string
  metadata: {
    name: string
    namespace: string
    labels: Record<string, string>
    annotations?: Record<string, string>
  }
  [field: string]: unknown
}

/** The names of a mock service's objects: from its id, so always a valid DNS-1035 label. */
export function objectNames(mockServiceId: number) {
  const base = `understudy-ms-${mockServiceId}`
  return {
    base,
    configMap: base,
    deployment: base,
    service: base,
    ingress: base,
    adminService: `${base}-admin`,
    secret: `${base}-admin`,
  }
}

function labelsOf(mockServiceId: number): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'understudy',
    'app.kubernetes.io/component': 'mock-service',
    'app.kubernetes.io/instance': objectNames(mockServiceId).base,
    'app.kubernetes.io/managed-by': 'understudy',
    [MOCK_ID_LABEL]: String(mockServiceId),
  }
}

/** The pods of a mock service, as its Deployment and Services select them. */
export function selectorOf(mockServiceId: number): Record<string, string> {
  return {
    'app.kubernetes.io/instance': objectNames(mockServiceId).base,
    'app.kubernetes.io/component': 'mock-service',
  }
}

function metadata(
  name: string,
  options: Pick<KubernetesDriverOptions, 'namespace'>,
  mock: Pick<KubernetesMockService, 'mockServiceId' | 'name'>,
  annotations: Record<string, string> = {},
) {
  return {
    name,
    namespace: options.namespace,
    labels: labelsOf(mock.mockServiceId),
    annotations: { 'understudy.dev/mock-service-name': mock.name, ...annotations },
  }
}

/**
 * The ConfigMap holding the document (JSON, mounted at /config/mock.json), annotated with its hash.
 * Throws ERR_DEPLOY_FAILED for a document larger than a ConfigMap may hold.
 */
export function renderConfigMap(
  mock: KubernetesMockService,
  options: Pick<KubernetesDriverOptions, 'namespace'>,
): RenderedObject {
  const text = JSON.stringify(mock.document)
  const bytes = Buffer.byteLength(text)
  if (bytes > MAX_DOCUMENT_BYTES) {
    throw createError('ERR_DEPLOY_FAILED', [
      `mock service ${mock.mockServiceId}'s document is ${bytes} bytes; a Kubernetes ConfigMap holds at most ${MAX_DOCUMENT_BYTES} (split the mock service, or move large bodies to assets)`,
    ])
  }
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: metadata(objectNames(mock.mockServiceId).configMap, options, mock, {
      [HASH_ANNOTATION]: documentHash(mock.document),
    }),
    data: { [DOCUMENT_KEY]: text },
  }
}

/** The Secret with the runtime's admin token (the driver's only way into a pod's admin API). */
function renderSecret(
  mock: Pick<KubernetesMockService, 'mockServiceId' | 'name'>,
  token: string,
  options: Pick<KubernetesDriverOptions, 'namespace'>,
): RenderedObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: metadata(objectNames(mock.mockServiceId).secret, options, mock),
    type: 'Opaque',
    data: { [TOKEN_KEY]: Buffer.from(token).toString('base64') },
  }
}

/**
 * The Deployment: `replicas` pods of the image running `understudy run` on the mounted document.
 * Nothing in its pod template depends on the document, so a new document (pushed to the pods'
 * admin API) never rolls the pods; a new image or option does.
 */
export function renderDeployment(
  mock: KubernetesMockService,
  options: KubernetesDriverOptions,
): RenderedObject {
  const names = objectNames(mock.mockServiceId)
  const health = { httpGet: { path: '/health', port: 'admin' } }
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: metadata(names.deployment, options, mock),
    spec: {
      replicas: mock.replicas,
      selector: { matchLabels: selectorOf(mock.mockServiceId) },
      // A new pod is ready before an old one goes: the mock keeps answering through a rollout.
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      progressDeadlineSeconds: 300,
      template: {
        metadata: { labels: labelsOf(mock.mockServiceId) },
        spec: {
          automountServiceAccountToken: false,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 1000,
            runAsGroup: 1000,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          containers: [
            {
              name: 'understudy',
              image: options.image,
              imagePullPolicy: options.imagePullPolicy ?? 'IfNotPresent',
              args: [
                '--mock',
                MOCK_PATH,
                '--host',
                '0.0.0.0',
                '--port',
                String(HTTP_PORT),
                '--admin-port',
                String(ADMIN_PORT),
              ],
              env: [
                {
                  name: 'UNDERSTUDY_ADMIN_TOKEN',
                  valueFrom: { secretKeyRef: { name: names.secret, key: TOKEN_KEY } },
                },
              ],
              ports: [
                { name: 'http', containerPort: HTTP_PORT, protocol: 'TCP' },
                { name: 'admin', containerPort: ADMIN_PORT, protocol: 'TCP' },
              ],
              readinessProbe: { ...health, periodSeconds: 5, failureThreshold: 2 },
              livenessProbe: {
                ...health,
                initialDelaySeconds: 5,
                periodSeconds: 10,
                failureThreshold: 3,
              },
              resources: { requests: { cpu: '100m', memory: '96Mi' }, limits: { memory: '256Mi' } },
              securityContext: {
                readOnlyRootFilesystem: true,
                allowPrivilegeEscalation: false,
                capabilities: { drop: ['ALL'] },
              },
              volumeMounts: [{ name: 'config', mountPath: '/config', readOnly: true }],
            },
          ],
          volumes: [{ name: 'config', configMap: { name: names.configMap } }],
        },
      },
    },
  }
}

/** The Service clients reach the mock through (the mock's port only, never the admin API). */
function renderService(
  mock: Pick<KubernetesMockService, 'mockServiceId' | 'name'>,
  options: KubernetesDriverOptions,
): RenderedObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(objectNames(mock.mockServiceId).service, options, mock),
    spec: {
      type: options.serviceType ?? 'ClusterIP',
      selector: selectorOf(mock.mockServiceId),
      ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }],
    },
  }
}

/**
 * A headless Service over the pods' admin port: its Endpoints list every pod's address, which is
 * how the driver reaches each pod's admin API (the token still required) to push a document.
 */
function renderAdminService(
  mock: Pick<KubernetesMockService, 'mockServiceId' | 'name'>,
  options: Pick<KubernetesDriverOptions, 'namespace'>,
): RenderedObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(objectNames(mock.mockServiceId).adminService, options, mock),
    spec: {
      type: 'ClusterIP',
      clusterIP: 'None',
      selector: selectorOf(mock.mockServiceId),
      ports: [{ name: 'admin', port: ADMIN_PORT, targetPort: 'admin', protocol: 'TCP' }],
    },
  }
}

/** The host of a mock service's Ingress, when the driver has an Ingress domain. */
export function ingressHostOf(
  mockServiceId: number,
  options: Pick<KubernetesDriverOptions, 'ingressDomain'>,
): string | null {
  return options.ingressDomain === undefined ||
    options.ingressDomain === null ||
    options.ingressDomain === ''
    ? null
    : `ms-${mockServiceId}.${options.ingressDomain}`
}

/** The Ingress for `ms-<id>.<ingressDomain>`, or null without a domain. */
function renderIngress(
  mock: Pick<KubernetesMockService, 'mockServiceId' | 'name'>,
  options: KubernetesDriverOptions,
): RenderedObject | null {
  const host = ingressHostOf(mock.mockServiceId, options)
  if (host === null) return null
  const names = objectNames(mock.mockServiceId)
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: metadata(names.ingress, options, mock),
    spec: {
      ...(options.ingressClassName === undefined || options.ingressClassName === null
        ? {}
        : { ingressClassName: options.ingressClassName }),
      rules: [
        {
          host,
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: names.service, port: { name: 'http' } } },
              },
            ],
          },
        },
      ],
    },
  }
}

/**
 * Every object of a mock service in the order they are applied: what a pod mounts or reads
 * (ConfigMap, Secret) before the Deployment that starts pods, then what exposes them.
 *
 * @example
 * renderMockService({ mockServiceId: 7, name: 'pets', replicas: 2, document }, options, token).map((o) => o.kind)
 * // ['ConfigMap', 'Secret', 'Deployment', 'Service', 'Service']
 */
export function renderMockService(
  mock: KubernetesMockService,
  options: KubernetesDriverOptions,
  adminToken: string,
): RenderedObject[] {
  const ingress = renderIngress(mock, options)
  return [
    renderConfigMap(mock, options),
    renderSecret(mock, adminToken, options),
    renderDeployment(mock, options),
    renderService(mock, options),
    renderAdminService(mock, options),
    ...(ingress === null ? [] : [ingress]),
  ]
}
