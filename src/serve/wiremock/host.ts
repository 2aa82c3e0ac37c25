import { allRecords, type InspectionRecord } from '../../inspect/index.js'
import type { CompiledMock } from '../compile-mock.js'
import type { DocumentLayer, Runtime } from '../runtime.js'
import type { ScenarioStates } from '../scenario/store.js'
import { WireMockError } from './errors.js'

/**
 * What WireMock's admin API works on: the document served and its matcher, the stubs' layer over
 * it, the scenario states and the request journal. One runtime answers them itself
 * (`runtimeHost`); a cluster primary answers them over its replicas (cluster-wiremock.ts).
 */
export interface WireMockHost {
  /** The document served now (the layer applied) and its compiled matcher. */
  served: () => Pick<CompiledMock, 'document' | 'matcher'>
  /**
   * Applies a rewrite of the base document (the stubs over the files' or `PUT /config`'s) and
   * swaps in the result everywhere it serves. Rejects with ERR_DSL_INVALID, having changed
   * nothing, when the result does not compile; with UnconfirmedChangeError when it was applied
   * but not confirmed everywhere (a replica did not answer).
   */
  setDocumentLayer: (layer: DocumentLayer) => Promise<void>
  /** Where scenario states live. */
  scenarios: () => ScenarioStates
  /** False with `--no-inspection`: WireMock's `requestJournalDisabled`. */
  readonly journalEnabled: boolean
  /** Every journaled exchange, newest first. */
  records: () => Promise<InspectionRecord[]>
  /** Empties the journal. */
  clearJournal: () => Promise<void>
}

/**
 * One runtime as the WireMock admin API's host: its own matcher, scenarios and inspection ring.
 *
 * @example
 * createWireMockAdmin({ host: runtimeHost(runtime), ... })
 */
export function runtimeHost(runtime: Runtime): WireMockHost {
  return {
    served: () => runtime.current(),
    setDocumentLayer: async (layer) => {
      runtime.setDocumentLayer(layer)
    },
    scenarios: () => runtime.current().scenarios,
    journalEnabled: runtime.ring !== null,
    records: async () => allRecords(runtime.ring),
    clearJournal: async () => {
      runtime.ring?.clear()
    },
  }
}

/**
 * A change the host applied but could not confirm everywhere (a replica did not answer in time):
 * answered 503 rather than as a success, since part of the traffic may not see it yet.
 */
export class UnconfirmedChangeError extends WireMockError {
  constructor(detail: string) {
    super(503, [{ code: 10, title: `the change was not confirmed by every replica: ${detail}` }])
  }
}

/** A journal read or reset that could not reach every replica: refused rather than partial. */
export function journalUnavailable(detail: string): WireMockError {
  return new WireMockError(503, [
    { code: 10, title: `the request journal of every replica could not be reached: ${detail}` },
  ])
}
