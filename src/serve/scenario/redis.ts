import { createError } from '../../errors/index.js'
import { SharedScenarios } from './shared.js'
import {
  instanceKey,
  STARTED,
  type ScenarioRead,
  type ScenarioView,
  type ScenarioWrite,
} from './store.js'

/**
 * Scenario states shared by every process that names the same Redis and prefix
 * (`--scenario-store redis://host:port/db?prefix=orders`): several `run` or `serve` processes, or
 * containers, behind one load balancer. Matching stays synchronous on what this process last
 * heard (SharedScenarios); each request that read or wrote a scenario commits through one Lua
 * script, which Redis runs atomically: the writes are made only when every state read still
 * holds, and the answer carries the current states so a stale read is matched again. So exactly
 * one of any number of concurrent requests racing for a transition wins, whichever process they
 * reach.
 *
 * Keys: `{prefix}:scenario:<name>` or `{prefix}:scenario:<name>\0<instance>`, the value the state;
 * `Started` is the absence of the key; a `ttl` is the key's expiry. The braces keep every key of a
 * prefix in one slot, so the script is valid on Redis Cluster too.
 */

/** What the store needs of a Redis client (node-redis's `createClient()` answers it). */
interface RedisLike {
  eval: (script: string, options: { keys: string[]; arguments: string[] }) => Promise<unknown>
  sendCommand: (args: string[]) => Promise<unknown>
  close?: () => Promise<void>
  quit?: () => Promise<unknown>
}

// KEYS: the instances read, then the instances written. ARGV: #reads, #writes, each state read,
// then each write as (state, ttl or ''). Answers {ok, state of every key in order}.
const COMMIT = `
local reads = tonumber(ARGV[1])
local writes = tonumber(ARGV[2])
local ok = 1
for i = 1, reads do
  local v = redis.call('GET', KEYS[i]) or '${STARTED}'
  if v ~= ARGV[2 + i] then ok = 0 end
end
if ok == 1 then
  for j = 1, writes do
    local key = KEYS[reads + j]
    local state = ARGV[2 + reads + (j - 1) * 2 + 1]
    local ttl = ARGV[2 + reads + (j - 1) * 2 + 2]
    if state == '${STARTED}' then redis.call('DEL', key)
    elseif ttl == '' then redis.call('SET', key, state)
    else redis.call('SET', key, state, 'PX', ttl) end
  end
end
local out = { ok }
for i = 1, reads + writes do out[#out + 1] = redis.call('GET', KEYS[i]) or '${STARTED}' end
return out
`

class RedisScenarios extends SharedScenarios {
  private readonly keyPrefix: string

  constructor(
    private readonly client: RedisLike,
    prefix: string,
  ) {
    const keyPrefix = `{${prefix}}:scenario:`
    super(async (reads, writes) => await commitInRedis(client, keyPrefix, reads, writes))
    this.keyPrefix = keyPrefix
  }

  /** Every instance not in `Started`, read from Redis (the truth, not what this process heard). */
  override async list(): Promise<ScenarioView[]> {
    const out: ScenarioView[] = []
    const keys = await this.keys()
    // One round trip for every state, not one per key.
    const states =
      keys.length === 0
        ? []
        : ((await this.client.sendCommand(['MGET', ...keys])) as Array<string | null>)
    for (const [i, key] of keys.entries()) {
      const state = states[i]
      if (typeof state !== 'string') continue
      const rest = key.slice(this.keyPrefix.length)
      const cut = rest.indexOf('\u0000')
      out.push({
        name: cut === -1 ? rest : rest.slice(0, cut),
        instance: cut === -1 ? null : rest.slice(cut + 1),
        state,
      })
    }
    return out.sort(
      (a, b) => a.name.localeCompare(b.name) || (a.instance ?? '').localeCompare(b.instance ?? ''),
    )
  }

  /** Back to `Started` in Redis: all, one scenario, or one instance; how many were reset. */
  override async reset(name?: string, instance?: string): Promise<number> {
    await super.reset()
    const keys = (await this.keys()).filter((key) => {
      const rest = key.slice(this.keyPrefix.length)
      const cut = rest.indexOf('\u0000')
      if (name !== undefined && (cut === -1 ? rest : rest.slice(0, cut)) !== name) return false
      if (instance !== undefined && (cut === -1 ? null : rest.slice(cut + 1)) !== instance) {
        return false
      }
      return true
    })
    if (keys.length === 0) return 0
    return Number(await this.client.sendCommand(['DEL', ...keys]))
  }

  async close(): Promise<void> {
    if (this.client.close !== undefined) await this.client.close()
    else await this.client.quit?.()
  }

  private async keys(): Promise<string[]> {
    const found: string[] = []
    let cursor = '0'
    do {
      const answer = (await this.client.sendCommand([
        'SCAN',
        cursor,
        'MATCH',
        `${escapeGlob(this.keyPrefix)}*`,
        'COUNT',
        '1000',
      ])) as [string, string[]]
      cursor = answer[0]
      found.push(...answer[1])
    } while (cursor !== '0')
    return found
  }
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`)
}

async function commitInRedis(
  client: RedisLike,
  keyPrefix: string,
  reads: readonly ScenarioRead[],
  writes: readonly ScenarioWrite[],
): Promise<{ ok: boolean; states: ScenarioRead[] }> {
  const keys = [
    ...reads.map(([n, i]) => keyPrefix + instanceKey(n, i)),
    ...writes.map(([n, i]) => keyPrefix + instanceKey(n, i)),
  ]
  const args = [
    String(reads.length),
    String(writes.length),
    ...reads.map(([, , s]) => s),
    ...writes.flatMap(([, , s, ttl]) => [
      s,
      ttl === null ? '' : String(Math.max(1, Math.round(ttl))),
    ]),
  ]
  const answer = await client.eval(COMMIT, { keys, arguments: args })
  if (!Array.isArray(answer)) {
    throw createError('ERR_SERVE_SCENARIO_UNAVAILABLE', [
      'Redis answered the scenario commit with no list',
    ])
  }
  const [ok, ...states] = answer as [number, ...string[]]
  const involved = [...reads, ...writes]
  return { ok: ok === 1, states: involved.map(([n, i], k) => [n, i, states[k] ?? STARTED]) }
}

/**
 * Connects to the Redis a `--scenario-store` URL names (`redis://[user:password@]host:port[/db]`,
 * `rediss://` for TLS; `?prefix=NAME`, default `understudy`), loading the client only then:
 * a runtime without a shared store never loads it.
 */
export async function connectRedisScenarios(url: string): Promise<RedisScenarios> {
  const parsed = new URL(url)
  const prefix = parsed.searchParams.get('prefix') ?? 'understudy'
  parsed.search = ''
  let createClient: (options: {
    url: string
    socket?: {
      connectTimeout?: number
      reconnectStrategy?: (retries: number, cause: Error) => number | Error
    }
  }) => RedisLike & {
    connect: () => Promise<unknown>
    on: (event: 'error', listener: (err: Error) => void) => unknown
  }
  try {
    ;({ createClient } = (await import('@redis/client')) as unknown as {
      createClient: typeof createClient
    })
  } catch {
    throw createError('ERR_CONFIG_INVALID', [
      '--scenario-store redis:// needs the optional package @redis/client: npm install @redis/client',
    ])
  }
  // Not reachable at start: fail at once (the operator typed a wrong address). Lost later: keep
  // trying, while requests that need a state answer 503 ERR_SERVE_SCENARIO_UNAVAILABLE.
  let connected = false
  const client = createClient({
    url: parsed.toString(),
    socket: {
      connectTimeout: 5000,
      reconnectStrategy: (retries, cause) => (connected ? Math.min(retries * 100, 2000) : cause),
    },
  })
  // Errors after connecting are retried by the client; a request that commits meanwhile fails with ERR_SERVE_SCENARIO_UNAVAILABLE.
  client.on('error', () => {})
  try {
    await client.connect()
    connected = true
  } catch (err) {
    throw createError('ERR_CONFIG_INVALID', [
      `--scenario-store: cannot reach ${redacted(parsed)}: ${err instanceof Error ? err.message : String(err)}`,
    ])
  }
  return new RedisScenarios(client, prefix)
}

function redacted(url: URL): string {
  const copy = new URL(url.toString())
  if (copy.password !== '') copy.password = '***'
  return copy.toString()
}
