import { randomUUID } from 'node:crypto'
import type { MockServiceDocument, ResponseDelay, Transaction } from '../../dsl/index.js'
import { isUnderstudyError } from '../../errors/index.js'
import { convertStub, refuseProblems, type WireMockConverter } from './convert.js'
import { documentStubs, type DocumentStub } from './document-stubs.js'
import { invalidInput, WireMockError } from './errors.js'
import { UnconfirmedChangeError, type WireMockHost } from './host.js'

/**
 * Transaction ids of stubs start here, far above those a platform assigns, so that a stub's
 * transactions never take the id of a transaction of the files or of `PUT /config`.
 */
const FIRST_STUB_TXN_ID = 2_000_000_000

/**
 * One stub mapping as posted (read back as it was given) and the transactions serving it; or one
 * of the runtime's own document (`fromDocument`: its files, `PUT /config`), listed like the others.
 */
export interface WireMockStub {
  readonly id: string
  /** The stub in WireMock's JSON, with `id` and `uuid`. */
  readonly json: Readonly<Record<string, unknown>>
  readonly transactions: readonly Transaction[]
  readonly fromDocument?: true
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
  /** Ids of the document's own stubs removed (or replaced) one by one, until a reset. */
  private hidden: ReadonlySet<string> = new Set()
  /** The document each composed one was made from, to list the document's stubs of what is served. */
  private readonly composedFrom = new WeakMap<MockServiceDocument, MockServiceDocument>()
  private listed: {
    base: MockServiceDocument
    apiStubs: readonly WireMockStub[]
    stubs: WireMockStub[]
    byId: Map<number, WireMockStub>
    byName: Map<string, WireMockStub>
  } | null = null
  private nextTxnId = FIRST_STUB_TXN_ID
  private readonly settings: LayerSettings = { thinkTime: null, recordingTarget: null }

  constructor(private readonly host: WireMockHost) {}

  /** Every stub, oldest first: the document's own (files, `PUT /config`), then the API's. */
  list(): readonly WireMockStub[] {
    const own = this.documentStubs()
    if (this.hideBase) return this.stubs
    const shown = this.hidden.size === 0 ? own : own.filter((s) => !this.hidden.has(s.id))
    return shown.length === 0 ? this.stubs : [...shown, ...this.stubs]
  }

  get(id: string): WireMockStub | undefined {
    return this.list().find((s) => s.id === id)
  }

  /**
   * The stub serving a transaction, by the inspection record's transaction id, or for a
   * transaction of the document without an id, by its name.
   */
  byTransaction(txnId: number | null, name: string | null = null): WireMockStub | undefined {
    if (txnId !== null && txnId >= FIRST_STUB_TXN_ID) {
      return this.stubs.find((s) => s.transactions.some((t) => t.id === txnId))
    }
    if (this.hideBase) return undefined
    this.documentStubs()
    const found =
      txnId !== null
        ? this.listed?.byId.get(txnId)
        : name !== null
          ? this.listed?.byName.get(name)
          : undefined
    return found === undefined || this.hidden.has(found.id) ? undefined : found
  }

  /** The document's own stubs (all of them, hidden or not), made once per document. */
  private documentStubs(): WireMockStub[] {
    const served = this.host.served().document
    const base = this.composedFrom.get(served) ?? served
    if (this.listed?.base !== base || this.listed.apiStubs !== this.stubs) {
      const stubs = documentStubs(baseTransactions(base, this.stubs)).map(asDocumentStub)
      const byId = new Map<number, WireMockStub>()
      const byName = new Map<string, WireMockStub>()
      for (const stub of stubs) {
        for (const t of stub.transactions) {
          if (t.id !== undefined) byId.set(t.id, stub)
          else if (!byName.has(t.name)) byName.set(t.name, stub)
        }
      }
      this.listed = { base, apiStubs: this.stubs, stubs, byId, byName }
    }
    return this.listed.stubs
  }

  get currentSettings(): Readonly<LayerSettings> {
    return this.settings
  }

  /**
   * Converts a stub (refusing what cannot be honoured, with WireMock's 422), giving it an id
   * unless it has one. Changes nothing until `replace`.
   */
  build(input: Record<string, unknown>, convert: WireMockConverter, id?: string): WireMockStub {
    const given =
      typeof input['id'] === 'string'
        ? input['id']
        : typeof input['uuid'] === 'string'
          ? input['uuid']
          : undefined
    const stubId = id ?? given ?? randomUUID()
    if (!UUID.test(stubId)) throw invalidInput('/id', `id ${JSON.stringify(stubId)} is not a UUID`)
    const { uuid: _uuid, id: _id, ...rest } = input
    const json = { id: stubId, ...rest, uuid: stubId }
    const conversion = convertStub(convert, json)
    refuseProblems(conversion.problems)
    if (conversion.transactions.length === 0) {
      throw invalidInput('/request', 'the stub could not be converted')
    }
    const transactions = conversion.transactions.map((t) => ({ ...t, id: this.nextTxnId++ }))
    return { id: stubId, json, transactions }
  }

  /**
   * Swaps in a new list of stubs (and optionally shows the document's own transactions again).
   * Throws 422 naming the failing stub field when the result does not compile; nothing changes then.
   */
  async replace(
    stubs: readonly WireMockStub[],
    options: { hideBase?: boolean } = {},
  ): Promise<void> {
    // The document's stubs missing from the new list were removed (or replaced by an API stub).
    const kept = new Set(stubs.filter((s) => s.fromDocument === true).map((s) => s.id))
    const hidden = new Set(this.hidden)
    for (const s of this.documentStubs()) if (!kept.has(s.id)) hidden.add(s.id)
    await this.apply(
      stubs.filter((s) => s.fromDocument !== true),
      options.hideBase ?? this.hideBase,
      hidden,
      this.settings,
    )
  }

  /** `POST /__admin/mappings/save`: every stub survives `/mappings/reset` from now on. */
  persistAll(): void {
    this.stubs = this.stubs.map((s) => ({ ...s, json: { ...s.json, persistent: true } }))
  }

  /** Back to the document's own transactions plus the persistent stubs. */
  async reset(): Promise<void> {
    await this.apply(
      this.stubs.filter((s) => s.json['persistent'] === true),
      false,
      new Set(),
      this.settings,
    )
  }

  /** Changes the think time or the recording target. */
  async configure(change: Partial<LayerSettings>): Promise<void> {
    await this.apply(this.stubs, this.hideBase, this.hidden, { ...this.settings, ...change })
  }

  private async apply(
    stubs: readonly WireMockStub[],
    hideBase: boolean,
    hidden: ReadonlySet<string>,
    settings: LayerSettings,
  ): Promise<void> {
    const snapshot = [...stubs]
    const composedFrom = this.composedFrom
    let composed: readonly Transaction[] = []
    const commit = (): void => {
      this.stubs = snapshot
      this.hideBase = hideBase
      this.hidden = hidden
      Object.assign(this.settings, settings)
    }
    try {
      await this.host.setDocumentLayer((base) => {
        const out = compose(
          base,
          snapshot,
          hideBase,
          hiddenTransactions(base, snapshot, hidden),
          settings,
        )
        composedFrom.set(out, base)
        composed = out.transactions
        return out
      })
    } catch (err) {
      // Served, but not confirmed everywhere: the layer is what is served from now on.
      if (err instanceof UnconfirmedChangeError) commit()
      throw compileRefusal(err, (path) => stubPointer(path, composed, snapshot))
    }
    commit()
  }
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/**
 * The document served: the base's transactions (unless hidden; minus any that carry a stub's
 * transaction id, so that `GET /config` then `PUT /config` does not serve a stub twice), then the
 * stubs' in the order they were added (among equal priorities the newest wins, as in WireMock).
 */
function compose(
  base: MockServiceDocument,
  stubs: readonly WireMockStub[],
  hideBase: boolean,
  hidden: ReadonlySet<Transaction>,
  settings: LayerSettings,
): MockServiceDocument {
  const own = stubs.flatMap((s) => s.transactions)
  const ownIds = new Set(own.map((t) => t.id))
  const hiddenIds = new Set([...hidden].map((t) => t.id))
  const kept = hideBase ? [] : baseTransactions(base, stubs).filter((t) => !hidden.has(t))
  // A document that lists its active transactions must list the stubs' too, or they would not serve.
  const listed =
    base.mockServiceTransactions.length === 0
      ? []
      : [
          ...(hideBase
            ? []
            : base.mockServiceTransactions.filter(
                (m) => !ownIds.has(m.txnId) && !hiddenIds.has(m.txnId),
              )),
          ...own.map((t) => ({ txnId: t.id ?? 0 })),
        ]
  const out: MockServiceDocument = {
    ...base,
    transactions: [...kept, ...own],
    mockServiceTransactions: listed,
  }
  if (settings.thinkTime !== null) out.thinkTime = settings.thinkTime
  if (settings.recordingTarget !== null) {
    out.noMatchingRequestPreference = 'bypasslive'
    out.liveSystemHost = settings.recordingTarget
    out.liveSystemPort = null
  }
  return out
}

/**
 * The document's own transactions: minus any that carry a stub's transaction id, so that
 * `GET /config` then `PUT /config` does not serve a stub twice.
 */
function baseTransactions(
  base: MockServiceDocument,
  stubs: readonly WireMockStub[],
): Transaction[] {
  if (stubs.length === 0) return base.transactions
  const ownIds = new Set(stubs.flatMap((s) => s.transactions.map((t) => t.id)))
  return base.transactions.filter((t) => t.id === undefined || !ownIds.has(t.id))
}

/** The transactions of the document's stubs removed by id. */
function hiddenTransactions(
  base: MockServiceDocument,
  stubs: readonly WireMockStub[],
  hidden: ReadonlySet<string>,
): ReadonlySet<Transaction> {
  if (hidden.size === 0) return new Set()
  return new Set(
    documentStubs(baseTransactions(base, stubs))
      .filter((s) => hidden.has(s.id))
      .flatMap((s) => s.transactions),
  )
}

function asDocumentStub(stub: DocumentStub): WireMockStub {
  return { ...stub, fromDocument: true }
}

/**
 * A compile error of the composed document (a regex refused, a schema that does not compile) as
 * WireMock's 422, its pointers turned into the stub's fields; the document's own part compiled
 * before, so the error is the stubs'.
 */
function compileRefusal(err: unknown, pointerOf: (path: string) => string): unknown {
  if (!isUnderstudyError(err, 'ERR_DSL_INVALID')) return err
  const details = err.details ?? []
  if (details.length === 0) return invalidInput('', err.message)
  return new WireMockError(
    422,
    details.map((d) => ({ code: 10, source: { pointer: pointerOf(d.path) }, title: d.message })),
  )
}

const wireMockParts: Record<string, string> = {
  headers: 'headers',
  queryParams: 'queryParameters',
  cookies: 'cookies',
}

/**
 * The stub field a DSL pointer of the composed document is about: `/transactions/N/dsl/requestDsl/
 * body/K/...` is the stub's `bodyPatterns` (`/0` when it has one), a header, parameter or cookie
 * matcher is that entry, anything of the response is `/response`. Unchanged when not a stub's.
 */
function stubPointer(
  path: string,
  composed: readonly Transaction[],
  stubs: readonly WireMockStub[],
): string {
  const m = /^\/transactions\/(\d+)\/dsl\/(requestDsl|responseDsl)(?:\/(\w+)(?:\/(\d+))?)?/.exec(
    path,
  )
  const txn = m === null ? undefined : composed[Number(m[1])]
  const stub = txn === undefined ? undefined : stubs.find((s) => s.transactions.includes(txn))
  if (m === null || txn === undefined || stub === undefined) return path
  if (m[2] === 'responseDsl') return '/response'
  const request =
    typeof stub.json['request'] === 'object' && stub.json['request'] !== null
      ? (stub.json['request'] as Record<string, unknown>)
      : {}
  const part = m[3] ?? ''
  if (part === 'body') {
    return Array.isArray(request['bodyPatterns']) && request['bodyPatterns'].length === 1
      ? '/request/bodyPatterns/0'
      : '/request/bodyPatterns'
  }
  const field = wireMockParts[part]
  if (field !== undefined) {
    const matchers = txn.dsl.requestDsl[part as 'headers' | 'queryParams' | 'cookies'] ?? []
    const key = matchers[Number(m[4] ?? -1)]?.key
    return key === undefined
      ? `/request/${field}`
      : `/request/${field}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
  }
  const urlKey = ['url', 'urlPath', 'urlPathTemplate', 'urlPattern', 'urlPathPattern'].find(
    (k) => request[k] !== undefined,
  )
  return part === 'url' || part === 'path' ? `/request/${urlKey ?? ''}` : '/request'
}
