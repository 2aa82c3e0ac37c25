import { randomUUID } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { WorkItem } from './work.js'

/** What the agent last did to a mock service: compared with the desired state to find changes. */
export interface Applied {
  desired: 'RUNNING' | 'STOPPED'
  documentHash: string
  replicas: number
  endpointPreference: 'HTTP' | 'HTTPS'
  /** The platform's tracking it last finished. */
  trackingId: string | null
  /** The ports it runs on here (0: the system's choice, before the first start). */
  port: number
  tlsPort: number | null
  /** Its runtime's process, when it is a local one (a restarted agent ends a leftover). */
  pid: number | null
}

/**
 * The agent's memory across restarts, in `<data-dir>/agent-state.json`: the last desired state it
 * received (so that its mock services run again when the agent restarts while the platform is
 * down) and what it applied (so that, once the platform answers again, nothing that did not
 * change is restarted).
 */
export interface AgentState {
  version: number | null
  mockServices: WorkItem[]
  applied: Record<string, Applied>
}

const FILE = 'agent-state.json'

/**
 * The state last saved in `dataDir`, or an empty one.
 *
 * @example
 * const state = await loadState('./agent-data') // { version: 4, mockServices: [...], applied: {...} }
 */
export async function loadState(dataDir: string): Promise<AgentState> {
  try {
    const parsed = JSON.parse(await readFile(join(dataDir, FILE), 'utf8')) as Partial<AgentState>
    return {
      version: typeof parsed.version === 'number' ? parsed.version : null,
      mockServices: Array.isArray(parsed.mockServices) ? parsed.mockServices : [],
      applied: typeof parsed.applied === 'object' && parsed.applied !== null ? parsed.applied : {},
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      return { version: null, mockServices: [], applied: {} }
    }
    throw err
  }
}

/** Writes the state to a temporary file and renames it over the old one: never half a state. */
export async function saveState(dataDir: string, state: AgentState): Promise<void> {
  await mkdir(dataDir, { recursive: true })
  const temporary = join(dataDir, `.${FILE}.${randomUUID()}.tmp`)
  await writeFile(temporary, JSON.stringify(state), { mode: 0o600 })
  await rename(temporary, join(dataDir, FILE))
}
