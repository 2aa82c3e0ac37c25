import type * as KubernetesClient from '@kubernetes/client-node'
import type { KubeConfig, KubernetesObject, KubernetesObjectApi } from '@kubernetes/client-node'
import { createError } from '../../errors/index.js'

/** The few calls the driver makes to the Kubernetes API, by apiVersion, kind, namespace and name. */
export interface ClusterApi {
  /**
   * Server-side apply (`PATCH` with `application/apply-patch+yaml`, forced) as `fieldManager`
   * (default FIELD_MANAGER). The object is that manager's whole intent: a field it applied before
   * and leaves out now is removed.
   */
  apply: <T extends KubernetesObject>(object: T, fieldManager?: string) => Promise<T>
  /** The object, or null when the cluster has none by that name. */
  read: <T extends KubernetesObject>(
    apiVersion: string,
    kind: string,
    namespace: string,
    name: string,
  ) => Promise<T | null>
  /** False when there was nothing to delete. */
  remove: (apiVersion: string, kind: string, namespace: string, name: string) => Promise<boolean>
}

/** Where the cluster is: the usual places (KUBECONFIG, ~/.kube/config, in-cluster), a kubeconfig file, or a server URL. */
type ClusterSource =
  | { kind: 'default' }
  | { kind: 'file'; path: string }
  | { kind: 'server'; server: string; token?: string; namespace?: string }

/** The field manager of every apply: the objects' fields it sets are the agent's. */
export const FIELD_MANAGER = 'understudy-agent'
/**
 * The field manager of a stop: it owns `spec.replicas` alone, so that its apply (replicas 0) leaves
 * the rest of the Deployment as the agent applied it; the agent's next forced apply takes it back.
 */
export const SCALE_FIELD_MANAGER = 'understudy-agent-scale'

type ClientModule = typeof KubernetesClient

/**
 * The client library, loaded when a driver is made: it is an optional dependency, which `serve`
 * and the platform never load.
 */
async function clientModule(): Promise<ClientModule> {
  try {
    return await import('@kubernetes/client-node')
  } catch (err) {
    throw createError(
      'ERR_CONFIG_INVALID',
      [
        `the kubernetes driver needs the optional dependency @kubernetes/client-node 1.4 (npm install @kubernetes/client-node@~1.4): ${(err as Error).message}`,
      ],
      { cause: err },
    )
  }
}

function statusOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown }).code
  return typeof code === 'number' ? code : undefined
}

/** An API error, in one line that names the call (the client's own message carries the whole response). */
function failure(what: string, err: unknown): Error {
  const status = statusOf(err)
  const body = (err as { body?: unknown }).body
  const reason =
    typeof body === 'string' ? (safeMessage(body) ?? body.slice(0, 300)) : (err as Error).message
  return createError(
    'ERR_DEPLOY_FAILED',
    [`Kubernetes ${what} failed${status === undefined ? '' : ` (HTTP ${status})`}: ${reason}`],
    { cause: err },
  )
}

function safeMessage(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { message?: unknown }
    return typeof parsed.message === 'string' ? parsed.message : undefined
  } catch {
    return undefined
  }
}

function kubeConfigOf(k8s: ClientModule, source: ClusterSource): KubeConfig {
  const kc = new k8s.KubeConfig()
  switch (source.kind) {
    case 'default':
      kc.loadFromDefault()
      break
    case 'file':
      kc.loadFromFile(source.path)
      break
    case 'server':
      kc.loadFromOptions({
        // The client refuses http:// unless told to skip TLS verification; over plain HTTP (a
        // `kubectl proxy` on loopback) there is no TLS to verify, so that is all it means there.
        clusters: [
          {
            name: 'cluster',
            server: source.server,
            skipTLSVerify: source.server.startsWith('http://'),
          },
        ],
        users: [{ name: 'user', ...(source.token === undefined ? {} : { token: source.token }) }],
        contexts: [
          {
            name: 'context',
            cluster: 'cluster',
            user: 'user',
            ...(source.namespace === undefined ? {} : { namespace: source.namespace }),
          },
        ],
        currentContext: 'context',
      })
      break
  }
  return kc
}

/**
 * A ClusterApi over `@kubernetes/client-node`'s generic object client (it finds each kind's
 * resource path through the API's discovery documents, once per apiVersion).
 *
 * @example
 * const cluster = await connectCluster({ kind: 'default' })
 * await cluster.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'mocks' }, data: {} })
 */
export async function connectCluster(source: ClusterSource): Promise<ClusterApi> {
  const k8s = await clientModule()
  const client: KubernetesObjectApi = k8s.KubernetesObjectApi.makeApiClient(
    kubeConfigOf(k8s, source),
  )
  const header = (apiVersion: string, kind: string, namespace: string, name: string) => ({
    apiVersion,
    kind,
    metadata: { name, namespace },
  })
  return {
    async apply(object, fieldManager = FIELD_MANAGER) {
      try {
        return await client.patch(
          object,
          undefined,
          undefined,
          fieldManager,
          true,
          k8s.PatchStrategy.ServerSideApply,
        )
      } catch (err) {
        throw failure(`apply of ${object.kind} ${object.metadata?.name ?? ''}`, err)
      }
    },
    async read(apiVersion, kind, namespace, name) {
      try {
        return await client.read(header(apiVersion, kind, namespace, name))
      } catch (err) {
        if (statusOf(err) === 404) return null
        throw failure(`read of ${kind} ${name}`, err)
      }
    },
    async remove(apiVersion, kind, namespace, name) {
      try {
        await client.delete(
          header(apiVersion, kind, namespace, name),
          undefined,
          undefined,
          undefined,
          undefined,
          'Background',
        )
        return true
      } catch (err) {
        if (statusOf(err) === 404) return false
        throw failure(`delete of ${kind} ${name}`, err)
      }
    },
  }
}
