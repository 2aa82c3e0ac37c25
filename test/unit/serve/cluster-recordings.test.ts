import { describe, expect, it } from 'vitest'
import { clusterAdminTarget } from '../../../src/serve/cluster-admin.js'
import { ReplicaGoneError, type ReplicaSet } from '../../../src/serve/cluster-primary.js'
import type { ReplicaCall } from '../../../src/serve/cluster-protocol.js'
import { coalesce } from '../../../src/serve/record/capture.js'
import { RecordedRequests, type HarImporter } from '../../../src/serve/record/recorded-requests.js'
import type { LiveExchange } from '../../../src/serve/index.js'
import { liveExchange } from '../../helpers/live-exchange.js'

/*
 * `/recordings` of a cluster primary (cluster-admin.ts) in one process: the replica set is a
 * stand-in whose replicas hold a queue each; `flushRecording` merges a replica's queue into the
 * primary's recording before answering, as the IPC channel delivers the `recorded` messages before
 * the reply. The real processes are tested in test/e2e/deploy/replicas-shared.test.ts.
 */

const exchange = (url: string, body: string): LiveExchange =>
  liveExchange(url, { responseBody: Buffer.from(body) })

type Behaviour = 'up' | 'gone' | 'broken'

function fakeSet(behaviours: Behaviour[]): {
  set: ReplicaSet
  queues: LiveExchange[][]
  calls: string[]
} {
  const recording = new RecordedRequests()
  const queues: LiveExchange[][] = behaviours.map(() => [])
  const calls: string[] = []
  const set = {
    replicas: behaviours.length,
    recording,
    views: () => behaviours.map((_, i) => ({ replica: i + 1, state: 'UP', pid: 1, restarts: 0 })),
    call: async (replica: number, call: ReplicaCall) => {
      calls.push(`${replica} ${call.op}`)
      const behaviour = behaviours[replica - 1]
      if (behaviour === 'gone') throw new ReplicaGoneError(replica)
      if (behaviour === 'broken') throw new Error(`replica ${replica} did not answer`)
      const queue = queues[replica - 1] as LiveExchange[]
      const taken = queue.splice(0)
      if (call.op === 'flushRecording') {
        recording.merge(
          coalesce(taken.map((x) => ({ exchange: x, origin: 'http://live' }))).requests,
        )
      }
      return taken.length
    },
  }
  return { set: set as unknown as ReplicaSet, queues, calls }
}

const importHar: HarImporter = ({ bytes }) => {
  const har = JSON.parse(Buffer.from(bytes).toString('utf8')) as {
    log: { entries: Array<{ request: { url: string } }> }
  }
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

describe('GET/DELETE /recordings of a cluster primary', () => {
  it('reads after every replica sent its queue: one transaction per distinct request across replicas', async () => {
    const { set, queues, calls } = fakeSet(['up', 'up'])
    queues[0]?.push(exchange('/a', '1'), exchange('/b', '1'))
    queues[1]?.push(exchange('/a', '2'))
    const recordings = clusterAdminTarget(set, null, async () => importHar).recordings
    const read = await recordings?.list(false)
    expect(calls).toEqual(['1 flushRecording', '2 flushRecording'])
    expect(read?.count).toBe(2)
    expect(read?.transactions.map((t) => t.name)).toEqual(['http://live/a', 'http://live/b'])
    expect(set.recording.list()[0]?.latencies).toHaveLength(2)
  })

  it('reads what it holds when a replica does not answer, and answers an empty recording without loading the importer', async () => {
    const { set, queues } = fakeSet(['up', 'broken'])
    const never = async (): Promise<HarImporter> => {
      throw new Error('not needed')
    }
    expect(await clusterAdminTarget(set, null, never).recordings?.list(true)).toEqual({
      count: 0,
      transactions: [],
    })
    queues[0]?.push(exchange('/a', '1'))
    expect(
      (await clusterAdminTarget(set, null, async () => importHar).recordings?.list(true))?.count,
    ).toBe(1)
  })

  it('clears every replica queue and the merged recording; a replica that does not answer fails the reset, one that is gone does not', async () => {
    const { set, queues, calls } = fakeSet(['up', 'gone'])
    queues[0]?.push(exchange('/a', '1'))
    const target = clusterAdminTarget(set, null, async () => importHar)
    await target.recordings?.list(false)
    queues[0]?.push(exchange('/b', '1'))
    expect(await target.recordings?.clear()).toBe(1)
    expect(calls.at(-2)).toBe('1 dropRecording')
    expect(queues[0]).toEqual([])
    expect((await target.recordings?.list(false))?.count).toBe(0)

    const broken = fakeSet(['up', 'broken'])
    broken.set.recording.merge(
      coalesce([{ exchange: exchange('/a', '1'), origin: 'http://live' }]).requests,
    )
    await expect(
      clusterAdminTarget(broken.set, null, async () => importHar).recordings?.clear(),
    ).rejects.toThrow(/did not answer/)
  })

  it('has no /recordings without the HAR importer', () => {
    expect(clusterAdminTarget(fakeSet(['up']).set, null).recordings).toBeUndefined()
  })
})
