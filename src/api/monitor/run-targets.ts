import type { MonitorEnvironment, Repositories } from '../../store/index.js'
import { LOCAL_REGION } from './run-context.js'

/**
 * Where one run executes: a region served by agents, one agent (the environment's
 * `remote_agents`), or neither: this platform's local runner.
 */
export interface RunTarget {
  region: string | null
  pinnedAgent: string | null
}

const LOCAL_TARGET: RunTarget = { region: null, pinnedAgent: null }

export function isLocal(target: RunTarget): boolean {
  return target.region === null && target.pinnedAgent === null
}

/** A target's part of a scheduled run's unique key. */
export function targetKey(target: RunTarget): string {
  if (target.pinnedAgent !== null) return `agent:${target.pinnedAgent}`
  return target.region === null ? LOCAL_REGION : `region:${target.region}`
}

/** The region and agent a run shows (`region` `local` for the local runner, `agent` its ship). */
export function placementView(target: RunTarget & { agent?: string | null }): {
  region: string | null
  agent: string | null
} {
  return {
    region: target.region ?? (target.pinnedAgent === null ? LOCAL_REGION : null),
    agent: target.agent ?? target.pinnedAgent,
  }
}

/** The setting of the chain's nearest environment that sets it (a child without its own inherits). */
function nearest(chain: readonly MonitorEnvironment[], key: string): unknown[] {
  for (let i = chain.length - 1; i >= 0; i--) {
    const value = chain[i]?.doc[key]
    if (Array.isArray(value)) return value
  }
  return []
}

/** The ship ids of `remote_agents` entries (`{uuid, name}` as the product writes them, or plain ids). */
function agentIdsOf(entries: readonly unknown[]): string[] {
  const ids = entries.map((e) =>
    typeof e === 'string'
      ? e
      : typeof e === 'object' && e !== null && typeof (e as { uuid?: unknown }).uuid === 'string'
        ? (e as { uuid: string }).uuid
        : '',
  )
  return [...new Set(ids.filter((id) => id !== ''))]
}

/**
 * The runs a trigger or a schedule tick starts for an environment: one per region of its
 * `regions` that an agent of the bucket's workspace serves, one per `remote_agents` ship offered
 * to that workspace, and one on the local runner for `local`, for a region no agent serves (so
 * that environments written for another product's regions, `us1`, keep running here), or when
 * nothing else is named. The local runner gets at most one run. `only` (a trigger's
 * `runscope_region`) replaces the environment's regions and remote agents.
 */
export async function runTargets(
  store: Pick<Repositories, 'monitoring'>,
  workspaceId: number,
  chain: readonly MonitorEnvironment[],
  only?: readonly string[],
): Promise<RunTarget[]> {
  const regions = [
    ...new Set(
      (only ?? nearest(chain, 'regions')).filter((r): r is string => typeof r === 'string'),
    ),
  ]
  const agentIds = only === undefined ? agentIdsOf(nearest(chain, 'remote_agents')) : []
  const served = regions.some((r) => r !== LOCAL_REGION)
    ? new Set((await store.monitoring.listAgentRegions([workspaceId])).map((r) => r.region))
    : new Set<string>()
  const targets: RunTarget[] = []
  let local = false
  for (const region of regions) {
    if (region !== LOCAL_REGION && served.has(region)) targets.push({ region, pinnedAgent: null })
    else local = true
  }
  for (const id of await store.monitoring.agentsOffered(workspaceId, agentIds)) {
    targets.push({ region: null, pinnedAgent: id })
  }
  if (local || targets.length === 0) targets.unshift(LOCAL_TARGET)
  return targets
}
