import { createError } from '../../errors/index.js'
import type { JsonObject, MonitorRun } from '../../store/index.js'
import { invalidField } from '../validation.js'
import { bucketOf, pageOf } from './access.js'
import type { MonitorContext, MonitorRoute } from './types.js'

/*
 * A bucket's messages (the product's traffic stream, `messages_url`): on this platform the only
 * HTTP traffic that passes through a bucket is what its tests' runs send, so a message is one
 * request step of a stored run, with the request as sent and the response as received. The list
 * is newest first (`count` default 50, at most 1000; `since` / `before` epoch seconds); `/errors`
 * keeps the messages whose response was 4xx/5xx or never came. They go with the runs they belong
 * to (the newest `--result-retention` runs per test are kept). Collections (saved requests of the
 * product's traffic inspector) do not exist here: those lists are empty.
 */

/** One request step of a run, as a message; `index` is its position among the run's request steps. */
function messageOf(run: MonitorRun, step: JsonObject, index: number): JsonObject {
  const started = run.doc['started_at']
  const timestamp = typeof started === 'number' ? started : run.created / 1000
  const request = (step['request'] ?? {}) as JsonObject
  const response = step['response'] as JsonObject | null | undefined
  return {
    uuid: `${run.id}.${index}`,
    timestamp,
    test_id: run.testId,
    test_run_id: run.id,
    step_id: step['uuid'] ?? null,
    request: {
      method: request['method'] ?? step['method'] ?? null,
      url: request['url'] ?? step['url'] ?? null,
      headers: request['headers'] ?? {},
      body: request['body'] ?? '',
      timestamp,
    },
    response:
      response === null || response === undefined
        ? null
        : {
            status: response['status'] ?? null,
            reason: response['reason'] ?? null,
            headers: response['headers'] ?? {},
            body: response['body'] ?? '',
            // The product gives seconds here (its NewMessage schema).
            response_time:
              typeof response['time_ms'] === 'number' ? response['time_ms'] / 1000 : null,
            size_bytes: response['size_bytes'] ?? null,
            timestamp,
          },
    error: step['error'] ?? null,
  }
}

/** The request steps of a run, nested condition steps included, in run order. */
function requestSteps(requests: unknown, into: JsonObject[]): JsonObject[] {
  if (!Array.isArray(requests)) return into
  for (const step of requests as JsonObject[]) {
    if (
      step['step_type'] === 'request' &&
      step['request'] !== null &&
      step['request'] !== undefined
    ) {
      into.push(step)
    }
    requestSteps(step['steps'], into)
  }
  return into
}

function isError(message: JsonObject): boolean {
  const response = message['response'] as JsonObject | null
  return response === null || (typeof response['status'] === 'number' && response['status'] >= 400)
}

/** The list view drops headers and bodies. */
function summaryOf(message: JsonObject): JsonObject {
  const request = message['request'] as JsonObject
  const response = message['response'] as JsonObject | null
  return {
    ...message,
    request: { method: request['method'], url: request['url'], timestamp: request['timestamp'] },
    response:
      response === null
        ? null
        : {
            status: response['status'],
            reason: response['reason'],
            response_time: response['response_time'],
            size_bytes: response['size_bytes'],
            timestamp: response['timestamp'],
          },
  }
}

function epochParam(query: URLSearchParams, name: string): number | null {
  const raw = query.get(name)
  if (raw === null || raw === '') return null
  const value = Number(raw)
  if (!Number.isFinite(value) || value < 0) {
    throw invalidField(`/${name}`, 'must be a Unix timestamp (seconds)')
  }
  return value
}

/** Every message of the bucket, newest first. */
async function messagesOf(ctx: MonitorContext, bucketKey: string): Promise<JsonObject[]> {
  const store = ctx.deps.store.monitoring
  const out: JsonObject[] = []
  for (const test of await store.listTests(bucketKey, -1, 0)) {
    for (const run of await store.listRuns(test.id, -1)) {
      requestSteps(run.doc['requests'], []).forEach((step, i) => out.push(messageOf(run, step, i)))
    }
  }
  return out.sort((a, b) => (b['timestamp'] as number) - (a['timestamp'] as number))
}

function listRoute(path: string, onlyErrors: boolean): MonitorRoute {
  return {
    method: 'GET',
    path,
    scope: 'api:read',
    handler: async (ctx) => {
      const { bucket } = await bucketOf(ctx)
      const { count } = pageOf(ctx.query, 50, 1000)
      const since = epochParam(ctx.query, 'since')
      const before = epochParam(ctx.query, 'before')
      const messages = (await messagesOf(ctx, bucket.key)).filter((m) => {
        const at = m['timestamp'] as number
        return (
          (since === null || at > since) &&
          (before === null || at < before) &&
          (!onlyErrors || isError(m))
        )
      })
      return { data: messages.slice(0, count).map(summaryOf) }
    },
  }
}

export const messageRoutes: MonitorRoute[] = [
  listRoute('/buckets/:bucketKey/messages', false),
  // `messages_url` of a bucket, as the product names it.
  listRoute('/buckets/:bucketKey/stream', false),
  listRoute('/buckets/:bucketKey/errors', true),
  {
    method: 'GET',
    path: '/buckets/:bucketKey/messages/:messageId',
    scope: 'api:read',
    handler: async (ctx) => {
      const { bucket } = await bucketOf(ctx)
      const id = ctx.params['messageId'] ?? ''
      const message = (await messagesOf(ctx, bucket.key)).find((m) => m['uuid'] === id)
      if (message === undefined) throw createError('ERR_API_NOT_FOUND', [`Message ${id}`])
      return { data: message }
    },
  },
  {
    method: 'GET',
    path: '/collections',
    scope: 'api:read',
    handler: async () => ({ data: [] }),
  },
  {
    method: 'GET',
    path: '/buckets/:bucketKey/collections',
    scope: 'api:read',
    handler: async (ctx) => {
      await bucketOf(ctx)
      return { data: [] }
    },
  },
]
