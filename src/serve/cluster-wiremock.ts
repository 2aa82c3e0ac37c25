import { compileHere } from './cluster-admin.js'
import { ReplicaGoneError, type ReplicaSet } from './cluster-primary.js'
import { recordFromWire, type WireRecord } from './cluster-protocol.js'
import type { CompiledMock } from './compile-mock.js'
import { newestFirst, type InspectionRecord } from '../inspect/index.js'
import { journalUnavailable, UnconfirmedChangeError, type WireMockHost } from './wiremock/index.js'

/** How long the primary waits for every replica to swap in a change of the stubs. */
const SWAP_TIMEOUT_MS = 60_000
/** How long it waits for a replica's journal. */
const JOURNAL_TIMEOUT_MS = 15_000

/**
 * WireMock's admin API over a cluster (`run --replicas N`): the primary owns the stubs, compiles
 * each change here (a stub that does not compile changes nothing anywhere), then has every
 * replica swap the same document in, off its request path as `PUT /config` does, and answers
 * once all confirmed; the journal is every replica's inspection ring, merged newest first; the
 * scenario states are the primary's, which the replicas already share. Fails closed: a replica
 * that does not answer makes the call fail (503) rather than answer for part of the traffic. A
 * replica that is not running counts as confirmed (it starts on the current document) and as
 * reset (its ring ended with it), but fails a journal read: the requests it answered are not
 * there to count, as the admin API's verification refuses then too.
 *
 * @example
 * createWireMockAdmin({ host: clusterWireMockHost(set), ... })
 */
export function clusterWireMockHost(set: ReplicaSet): WireMockHost {
  let compiled: Pick<CompiledMock, 'document' | 'matcher'> | null = null
  const served = (): Pick<CompiledMock, 'document' | 'matcher'> => {
    // A `PUT /config` on the admin port changes what is served without passing here.
    if (compiled?.document !== set.document) compiled = compileHere(set, set.document)
    return compiled
  }
  /**
   * Asks every replica; a replica not running gives `gone.value` (fails the whole when `gone` is
   * null), one that fails fails the whole.
   */
  const everyReplica = async <T>(
    ask: (replica: number) => Promise<T>,
    gone: { value: T } | null,
    refusal: (detail: string) => Error,
  ): Promise<T[]> =>
    await Promise.all(
      set.views().map(async (view) => {
        try {
          return await ask(view.replica)
        } catch (err) {
          if (err instanceof ReplicaGoneError && gone !== null) return gone.value
          throw refusal(
            `replica ${view.replica}: ${err instanceof Error ? err.message : String(err)}`,
          )
        }
      }),
    )
  return {
    served,
    setDocumentLayer: async (layer) => {
      await set.serialize(async () => {
        const document = layer(set.base)
        const next = compileHere(set, document)
        set.adopt(set.base, layer, document)
        compiled = next
        await everyReplica(
          async (replica) =>
            await set.call(replica, { op: 'reconfigure', document }, SWAP_TIMEOUT_MS),
          { value: null },
          (detail) => new UnconfirmedChangeError(detail),
        )
      })
    },
    scenarios: () => set.scenarios,
    journalEnabled: set.options.inspection.enabled,
    records: async (): Promise<InspectionRecord[]> => {
      const journals = await everyReplica(
        async (replica) =>
          (await set.call(replica, { op: 'journal' }, JOURNAL_TIMEOUT_MS)) as WireRecord[],
        null,
        journalUnavailable,
      )
      return newestFirst(journals.flat().map(recordFromWire))
    },
    clearJournal: async () => {
      await everyReplica(
        async (replica) => await set.call(replica, { op: 'clear' }, JOURNAL_TIMEOUT_MS),
        { value: 0 },
        journalUnavailable,
      )
    },
  }
}
