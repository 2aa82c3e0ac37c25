import { describe, expect, it } from 'vitest'
import { CaptureQueue, coalesce, type CapturedRequest } from '../../../src/serve/record/capture.js'
import {
  MAX_RECORDED_REQUESTS,
  RecordedRequests,
  type HarImporter,
} from '../../../src/serve/record/recorded-requests.js'
import type { LiveExchange } from '../../../src/serve/index.js'
import { liveExchange as exchange } from '../../helpers/live-exchange.js'

/*
 * The merge of a recording as a cluster primary does it (run --replicas N): each replica coalesces
 * its own queue into CapturedRequests (sent over IPC as JSON, here through a JSON round trip) and
 * the primary merges every replica's into one entry per distinct request.
 */

/** One replica's batch as the primary receives it: coalesced, then through the IPC channel's JSON. */
function batchOf(...exchanges: LiveExchange[]): CapturedRequest[] {
  const { requests } = coalesce(exchanges.map((x) => ({ exchange: x, origin: 'http://live' })))
  return JSON.parse(JSON.stringify(requests)) as CapturedRequest[]
}

/** The response body a recorded entry answers with. */
function bodyOf(recorded: RecordedRequests, index = 0): string {
  const entry = recorded.list()[index]?.entry as { response: { content: { text: string } } }
  return Buffer.from(entry.response.content.text, 'base64').toString('utf8')
}

describe('coalesce: a replica batch', () => {
  it('gives one request per distinct method, url and body, with the newest answer and every latency', () => {
    const { requests, exchanges, skipped } = coalesce([
      { exchange: exchange('/a?x=1', { durationMs: 5 }), origin: 'http://live' },
      {
        exchange: exchange('/a?x=1', {
          durationMs: 7,
          endedAt: 2_000,
          responseBody: Buffer.from('second'),
        }),
        origin: 'http://live',
      },
      {
        exchange: exchange('/a', { method: 'POST', requestBody: Buffer.from('1') }),
        origin: 'http://live',
      },
      {
        exchange: exchange('/a', { method: 'POST', requestBody: Buffer.from('2') }),
        origin: 'http://live',
      },
      { exchange: exchange('/big', { truncated: true }), origin: 'http://live' },
    ])
    expect(exchanges).toBe(4)
    expect(skipped).toEqual(['/big'])
    expect(requests.map((r) => [r.url, r.latencies, r.at])).toEqual([
      ['/a?x=1', [5, 7], 2_000],
      ['/a', [12], 1_000],
      ['/a', [12], 1_000],
    ])
    expect(JSON.stringify(requests[0]?.entry)).toContain(Buffer.from('second').toString('base64'))
    expect((requests[0]?.entry as { startedDateTime: string }).startedDateTime).toBe(
      new Date(2_000 - 7).toISOString(),
    )
  })

  it('is what a queue hands over when due, and a dropped queue hands over nothing', async () => {
    const due: number[] = []
    const queue = new CaptureQueue({
      flushEvery: 10,
      onDue: () => due.push(queue.take().requests.length),
    })
    queue.add(exchange('/a'), 'http://live')
    queue.add(exchange('/a'), 'http://live')
    queue.add(exchange('/b'), 'http://live')
    expect(queue.queued).toBe(3)
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(due).toEqual([2])
    queue.add(exchange('/c'), 'http://live')
    expect(queue.drop()).toBe(1)
    queue.stop()
    expect(queue.take().requests).toEqual([])
  })
})

describe('RecordedRequests: the merge over replicas', () => {
  it('records the same request sent to two replicas once, with the samples of both', () => {
    const recorded = new RecordedRequests()
    const replica1 = batchOf(
      exchange('/pets', { durationMs: 10 }),
      exchange('/pets', { durationMs: 20 }),
      exchange('/orders'),
    )
    const replica2 = batchOf(
      exchange('/pets', { durationMs: 40 }),
      exchange('/orders', { method: 'POST', requestBody: Buffer.from('{}') }),
    )
    expect(recorded.merge(replica1)).toEqual({ merged: 3, skipped: [] })
    expect(recorded.merge(replica2)).toEqual({ merged: 2, skipped: [] })
    expect(recorded.size).toBe(3)
    expect(recorded.list().map((r) => r.key.split(' ').slice(0, 2).join(' '))).toEqual([
      'GET /pets',
      'GET /orders',
      'POST /orders',
    ])
    // --keep-latency fits the samples of every replica
    expect(recorded.list()[0]?.latencies).toEqual([10, 20, 40])
  })

  it('recording again updates: the newest answer wins, even when its batch arrives first', () => {
    const recorded = new RecordedRequests()
    recorded.merge(batchOf(exchange('/pets', { endedAt: 1_000, responseBody: Buffer.from('v1') })))
    recorded.merge(batchOf(exchange('/pets', { endedAt: 3_000, responseBody: Buffer.from('v3') })))
    // a replica's older batch arriving late adds its sample but keeps the newer answer
    recorded.merge(
      batchOf(
        exchange('/pets', { endedAt: 2_000, responseBody: Buffer.from('v2'), durationMs: 30 }),
      ),
    )
    expect(recorded.size).toBe(1)
    expect(bodyOf(recorded)).toBe('v3')
    expect(recorded.list()[0]?.latencies).toEqual([12, 12, 30])
    recorded.merge(batchOf(exchange('/pets', { endedAt: 4_000, responseBody: Buffer.from('v4') })))
    expect(bodyOf(recorded)).toBe('v4')
    // a request restored from an older state (no `at`) is replaced by any new capture
    const restored = new RecordedRequests()
    const { at: _at, ...old } = recorded.list()[0] as { at?: number }
    restored.restore([old as never])
    restored.merge(batchOf(exchange('/pets', { endedAt: 1, responseBody: Buffer.from('new') })))
    expect(bodyOf(restored)).toBe('new')
  })

  it('bounds distinct requests across replicas: new ones past the bound are skipped and reported, known ones still update', () => {
    const reasons: string[] = []
    const recorded = new RecordedRequests((url, reason) => reasons.push(`${url}: ${reason}`))
    const many = Array.from({ length: MAX_RECORDED_REQUESTS }, (_, i) => exchange(`/r/${i}`))
    recorded.merge(batchOf(...many))
    const result = recorded.merge(
      batchOf(
        exchange('/r/new'),
        exchange('/r/0', { endedAt: 5_000, responseBody: Buffer.from('updated') }),
      ),
    )
    expect(result).toEqual({ merged: 1, skipped: ['/r/new'] })
    expect(reasons).toEqual([
      `/r/new: the recording holds ${MAX_RECORDED_REQUESTS} distinct requests already; not recorded`,
    ])
    expect(recorded.size).toBe(MAX_RECORDED_REQUESTS)
    expect(bodyOf(recorded)).toBe('updated')
    expect(recorded.clear()).toBe(MAX_RECORDED_REQUESTS)
    expect(recorded.size).toBe(0)
  })

  it('keeps the last 200 latency samples of a request', () => {
    const recorded = new RecordedRequests()
    for (let i = 0; i < 3; i++) {
      recorded.merge(
        batchOf(
          ...Array.from({ length: 100 }, (_, j) => exchange('/x', { durationMs: i * 100 + j })),
        ),
      )
    }
    const latencies = recorded.list()[0]?.latencies ?? []
    expect(latencies).toHaveLength(200)
    expect(latencies[0]).toBe(100)
    expect(latencies.at(-1)).toBe(299)
  })

  it('converts to one transaction per distinct request, with the fitted delay when asked', () => {
    const recorded = new RecordedRequests()
    expect(
      recorded.transactions(() => {
        throw new Error('not loaded for an empty recording')
      }, true),
    ).toEqual([])
    recorded.merge(batchOf(exchange('/a', { durationMs: 10 }), exchange('/b', { durationMs: 30 })))
    recorded.merge(batchOf(exchange('/a', { durationMs: 40 })))
    const seen: unknown[] = []
    // A stand-in for the HAR importer: one transaction per entry, named after it as the real one does.
    const importHar: HarImporter = ({ bytes }) => {
      const har = JSON.parse(Buffer.from(bytes).toString('utf8')) as {
        log: { entries: Array<{ request: { url: string } }> }
      }
      seen.push(...har.log.entries.map((e) => e.request.url))
      return {
        document: {
          transactions: har.log.entries.map(
            (e, i) =>
              ({
                name: e.request.url,
                description: `log.entries[${i}]`,
                dsl: { requestDsl: {}, responseDsl: {} },
              }) as never,
          ),
        },
      }
    }
    const withDelay = recorded.transactions(importHar, true)
    expect(seen).toEqual(['http://live/a', 'http://live/b'])
    expect(withDelay.map((t) => t.dsl.responseDsl?.responseDelay)).toEqual([
      { type: 'lognormal', median: 20, sigma: expect.any(Number) },
      { type: 'fixed', duration: 30 },
    ])
    expect(
      recorded
        .transactions(importHar, false)
        .every((t) => t.dsl.responseDsl?.responseDelay === undefined),
    ).toBe(true)
  })
})
