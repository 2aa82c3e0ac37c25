import type { MonitorEnvironment, MonitorIntegration, Repositories } from '../../store/index.js'
import { isObject } from './validate.js'

/*
 * What a run needs of the monitoring API's other parts, kept in a leaf so that the run queue
 * depends on none of the route modules (which depend on the queue's type through their context).
 */

/** The one region of this platform: runs execute in its process. */
export const LOCAL_REGION = 'local'

/** The integrations an environment references that still exist (one deleted since is left out). */
export async function integrationsOf(
  store: Pick<Repositories, 'monitoring'>,
  workspaceId: number,
  refs: unknown,
): Promise<MonitorIntegration[]> {
  if (!Array.isArray(refs)) return []
  const out: MonitorIntegration[] = []
  for (const ref of refs) {
    const id = isObject(ref) ? ref['id'] : undefined
    const integration =
      typeof id === 'string' ? await store.monitoring.getIntegration(workspaceId, id) : undefined
    if (integration !== undefined) out.push(integration)
  }
  return out
}

/** Environment inheritance is followed this deep at most (a cycle ends there). */
const MAX_CHAIN = 11

/** An environment and its ancestors, root first; an ancestor that no longer exists ends the chain. */
export async function environmentChain(
  store: Pick<Repositories, 'monitoring'>,
  bucketKey: string,
  environmentId: string,
): Promise<MonitorEnvironment[]> {
  const chain: MonitorEnvironment[] = []
  let id: string | null = environmentId
  while (id !== null && chain.length < MAX_CHAIN) {
    const env: MonitorEnvironment | undefined = await store.monitoring.getEnvironment(bucketKey, id)
    if (env === undefined) break
    chain.unshift(env)
    id =
      typeof env.doc['parent_environment_id'] === 'string' ? env.doc['parent_environment_id'] : null
  }
  return chain
}
