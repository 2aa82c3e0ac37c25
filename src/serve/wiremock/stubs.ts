import { randomUUID } from 'node:crypto'
import type { MockServiceDocument, ResponseDelay, Transaction } from '../../dsl/index.js'
import { isUnderstudyError } from '../../errors/index.js'
import type { Runtime } from '../runtime.js'
import { convertStub, refuseProblems, type WireMockConverter } from './convert.js'
import { invalidInput, WireMockError } from './errors.js'

/**
 * Transaction ids of stubs start here, far above those a platform assigns, so that a stub's
 * transactions never take the id of a transaction of the files or of `PUT /config`.
 */
const FIRST_STUB_TXN_ID = 2_000_000_000

/** One stub mapping as posted (read back as it was given) and the transactions serving it. */
export interface WireMockStub {
  readonly id: string
  /** The stub in WireMock's JSON, with `id` and `uuid`. */
  readonly json: Readonly<Record<string, unknown>>
  readonly transactions: readonly Transaction[]
}

/** Changes the WireMock admin API makes beyond the stubs: `/settings`, recording. */
interface LayerSettings {
  /** `POST /__admin/settings` `fixedDelay` / `delayDistribution`: the mock service's think time. */
  thinkTime: ResponseDelay | null
  /** While recording: unmatched requests go to this origin (`bypasslive`). */
  recordingTarget: string | null
}

/**
 * The stubs of the WireMock admin API, layered over the runtime's own document (its files or
 * `PUT /config`): every change compiles the whole document and swaps it in at once, off the
 * request path, exactly as a configuration swap; a change that does not compile changes nothing.
 */
export class StubLayer {
  private stubs: WireMockStub[] = []
  /** `DELETE /__admin/mappings` removes the document's own transactions too, until a reset. */
  private hideBase = false
  private nextTxnId = FIRST_STUB_TXN_ID
  private readonly settings: LayerSettings = { thinkTime: null, recordingTarget: null }

  constructor (private readonly runtime: Runtime) {}

  /** Every stub, oldest first. */
  list (): readonly WireMockStub[] {
    return this.stubs
  }

  get (id: string): WireMockStub | undefined {
    return this.stubs.find((s) => s.id === id)
  }

  /** The stub serving a transaction (by the inspection record's transaction id). */
  byTransaction (txnId: number | null): WireMockStub | undefined {
    if (txnId === null || txnId < FIRST_STUB_TXN_ID) return undefined
    return this.stubs.find((s) => s.transactions.some((t) => t.id === txnId))
  }

  get currentSettings (): Readonly<LayerSettings> {
    return this.settings
  }

  /**
   * Converts a stub (refusing what cannot be honoured, with WireMock's 422), giving it an id
   * unless it has one. Changes nothing until `replace`.
   */
  build (input: Record<string, unknown>, convert: WireMockConverter, id?: string): WireMockStub {
    const given = typeof input['id'] === 'string' ? input['id'] : typeof input['uuid'] === 'string' ? input['uuid'] : undefined
    const stubId = id ?? given ?? randomUUID()
    if (!UUID.test(stubId)) throw invalidInput('/id', `id ${JSON.stringify(stubId)} is not a UUID`)
    const { uuid: _uuid, id: _id, ...rest } = input
    const json = { id: stubId, ...rest, uuid: stubId }
    const conversion = convertStub(convert, json)
    refuseProblems(conversion.problems)
    if (conversion.transactions.length === 0) throw invalidInput('/request', 'the stub could not be converted')
    const transactions = conversion.transactions.map((t) => ({ ...t, id: this.nextTxnId++ }))
    return { id: stubId, json, transactions }
  }

  /**
   * Swaps in a new list of stubs (and optionally shows the document's own transactions again).
   * Throws 422 naming the failing stub field when the result does not compile; nothing changes then.
   */
  replace (stubs: WireMockStub[], options: { hideBase?: boolean } = {}): void {
    this.apply(stubs, options.hideBase ?? this.hideBase, this.settings)
  }

  /** `POST /__admin/mappings/save`: every stub survives `/mappings/reset` from now on. */
  persistAll (): void {
    this.stubs = this.stubs.map((s) => ({ ...s, json: { ...s.json, persistent: true } }))
  }

  /** Back to the document's own transactions plus the persistent stubs. */
  reset (): void {
    this.apply(this.stubs.filter((s) => s.json['persistent'] === true), false, this.settings)
  }

  /** Changes the think time or the recording target. */
  configure (change: Partial<LayerSettings>): void {
    this.apply(this.stubs, this.hideBase, { ...this.settings, ...change })
  }

  private apply (stubs: WireMockStub[], hideBase: boolean, settings: LayerSettings): void {
    const snapshot = [...stubs]
    try {
      this.runtime.setDocumentLayer((base) => compose(base, snapshot, hideBase, settings))
    } catch (err) {
      throw compileRefusal(err)
    }
    this.stubs = snapshot
    this.hideBase = hideBase
    Object.assign(this.settings, settings)
  }
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/**
 * The document served: the base's transactions (unless hidden; minus any that carry a stub's
 * transaction id, so that `GET /config` then `PUT /config` does not serve a stub twice), then the
 * stubs' in the order they were added (among equal priorities the newest wins, as in WireMock).
 */
function compose (base: MockServiceDocument, stubs: readonly WireMockStub[], hideBase: boolean, settings: LayerSettings): MockServiceDocument {
  const own = stubs.flatMap((s) => s.transactions)
  const ownIds = new Set(own.map((t) => t.id))
  const kept = hideBase ? [] : base.transactions.filter((t) => t.id === undefined || !ownIds.has(t.id))
  // A document that lists its active transactions must list the stubs' too, or they would not serve.
  const listed = base.mockServiceTransactions.length === 0
    ? []
    : [...(hideBase ? [] : base.mockServiceTransactions.filter((m) => !ownIds.has(m.txnId))), ...own.map((t) => ({ txnId: t.id ?? 0 }))]
  const out: MockServiceDocument = { ...base, transactions: [...kept, ...own], mockServiceTransactions: listed }
  if (settings.thinkTime !== null) out.thinkTime = settings.thinkTime
  if (settings.recordingTarget !== null) {
    out.noMatchingRequestPreference = 'bypasslive'
    out.liveSystemHost = settings.recordingTarget
    out.liveSystemPort = null
  }
  return out
}

/**
 * A compile error of the composed document (a regex refused, a template that does not parse) as
 * WireMock's 422; the document's own part compiled before, so the error is the stubs'.
 */
function compileRefusal (err: unknown): unknown {
  if (!isUnderstudyError(err, 'ERR_DSL_INVALID')) return err
  const details = err.details ?? []
  if (details.length === 0) return invalidInput('', err.message)
  return new WireMockError(422, details.map((d) => ({ code: 10, source: { pointer: d.path }, title: d.message })))
}
