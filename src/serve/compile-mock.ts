import type { Dispatcher } from 'undici'
import type { MockServiceDocument, ResponseDsl, TransactionDsl } from '../dsl/index.js'
import {
  compileBodyPredicate,
  compileMatcher,
  compileMatcherSliced,
  isPrepared,
  type CompiledMatcher,
  type CompiledTransaction,
  type ExtraPredicates,
  type PayloadFactory,
  type Predicate,
  type PreparedPredicate,
  type ReportProblem,
} from '../match/index.js'
import { compileResponse, type CompiledResponse } from './compile-response.js'
import { HeaderBlocks } from './interned.js'
import { storedDocument, type StoredDocument } from './stored-document.js'
import { compileDelay, type DelaySampler } from './think-time.js'
import {
  compileOutbound,
  compileProxyTarget,
  type CompiledOutbound,
  type ProxyTarget,
} from './proxy.js'
import { withHostMatching } from './host-matching.js'
import { DynamicCompiler, type DynamicFeatures } from './dynamic.js'
import { compileCors, type CompiledCors } from './cors.js'
import { ScenarioStore, type ScenarioStates } from './scenario/store.js'
import { SharedScenarios } from './scenario/shared.js'
import type { PostServeQueue } from './post-serve.js'

/** What happens to a request no transaction matches (docs/dsl.md, "Mock-service settings"). */
export type NoMatchPolicy =
  | { readonly kind: 'return404' }
  | { readonly kind: 'returnTransaction'; readonly txn: CompiledTransaction<ServedResponse> }
  | { readonly kind: 'bypasslive'; readonly target: ProxyTarget }
  /** Forward to the live system, answer with its response, and record the exchange. */
  | { readonly kind: 'record'; readonly target: ProxyTarget }

/** A compiled response plus the slice of its body the journal keeps, decided once. */
export interface ServedResponse extends CompiledResponse {
  readonly journalBody: Buffer
  readonly journalTruncated: boolean
  /**
   * `statusCodeConditions` (product DSL compatibility): each condition's predicate with the response it selects
   * (this one with another status), precompiled; null without conditions, so that a static
   * transaction pays one null check.
   */
  readonly conditions: ReadonlyArray<{
    readonly predicate: Predicate
    readonly response: ServedResponse
  }> | null
  /** Templates, scenario, fault, webhooks (dynamic responses); null for a static transaction. */
  readonly dynamic: DynamicFeatures | null
}

/**
 * Everything the runtime needs to serve one mock service, built once per configuration and
 * swapped as a whole on reload.
 */
export interface CompiledMock {
  /** The document served (storedDocument: possibly read again from its text when asked). */
  readonly document: MockServiceDocument
  /** The same, read again (when it must be) in time slices, so that requests keep being answered. */
  readonly readDocument: () => Promise<MockServiceDocument>
  readonly serviceMockId: number
  readonly matcher: CompiledMatcher<ServedResponse>
  /**
   * Predicates prepared asynchronously before matching a request with a body (matches_xml_schema,
   * in transactions and statusCodeConditions); null when there are none, so that other mocks
   * pay one null check.
   */
  readonly prepared: readonly PreparedPredicate[] | null
  /** The mock service's think time; a transaction's own delay wins. */
  readonly thinkTime: DelaySampler | null
  readonly capacity: number | null
  readonly noMatch: NoMatchPolicy
  /** Upstream connection pools (with a shared map: every pool of the runtime so far). */
  readonly pools: readonly Dispatcher[]
  /** CORS of the mock service; null when off. */
  readonly cors: CompiledCors | null
  /** Scenario states (shared by every configuration of one runtime). */
  readonly scenarios: ScenarioStates
  /**
   * In a cluster replica whose document has scenario transactions, the states kept by the
   * primary, through which matches that read a state are committed; null otherwise, so that a
   * single runtime and a document without scenarios pay one null check.
   */
  readonly sharedScenarios: SharedScenarios | null
  /** Webhook sender of the runtime; null when no transaction has `postServe`... or none was given. */
  readonly postServe: PostServeQueue | null
}

interface CompileMockOptions {
  proxyTimeout: number
  /** Bytes of each body the inspection journal keeps. */
  journalBodyBytes: number
  /**
   * Upstream pools by origin, shared by every configuration of one runtime: a swap must not close
   * a pool that a request begun on the previous configuration still needs. A fresh map when absent.
   */
  pools?: Map<string, Dispatcher>
  /** Match `requestDsl.host` against the Host header (`serve --match-host`); default off (the document's `matchHost: true` also turns it on). */
  matchHost?: boolean
  /** Scenario states kept across swaps (a cluster replica's: SharedScenarios); a fresh store when absent. */
  scenarios?: ScenarioStates
  /** The runtime's webhook sender; without one, `postServe` calls are not made. */
  postServe?: PostServeQueue
}

/**
 * Compiles a mock-service document for serving: matcher index, precomputed responses, think time,
 * no-match policy and upstream pools. Throws ERR_DSL_INVALID listing every problem.
 *
 * @example
 * const mock = compileMock(loadDefinitionText(text, 'mock.yaml'), { proxyTimeout: 30_000, journalBodyBytes: 65_536 })
 */
export function compileMock(given: MockServiceDocument, options: CompileMockOptions): CompiledMock {
  const parts = mockParts(given, options)
  return parts.finish(compileMatcher<ServedResponse>(parts.doc, parts.payloadOf, parts.extraOf))
}

/**
 * compileMock for a configuration swap on a serving runtime: the transactions compile in time
 * slices (`pause`, a time slicer), so that requests keep being answered meanwhile.
 *
 * @example
 * const mock = await compileMockSliced(document, options, timeSlicer())
 */
export async function compileMockSliced(
  given: MockServiceDocument,
  options: CompileMockOptions,
  pause: () => Promise<void>,
): Promise<CompiledMock> {
  const parts = mockParts(given, options)
  return parts.finish(
    await compileMatcherSliced<ServedResponse>(parts.doc, parts.payloadOf, parts.extraOf, pause),
  )
}

/** What compiling a document needs around its matcher: the payload of each transaction, and the rest once it is built. */
function mockParts(
  given: MockServiceDocument,
  options: CompileMockOptions,
): {
  doc: MockServiceDocument
  payloadOf: PayloadFactory<ServedResponse>
  extraOf: ExtraPredicates
  finish: (matcher: CompiledMatcher<ServedResponse>) => CompiledMock
} {
  const pools = options.pools ?? new Map<string, Dispatcher>()
  const doc =
    options.matchHost === true || given.matchHost === true ? withHostMatching(given) : given
  const scenarios = options.scenarios ?? new ScenarioStore()
  const dynamic = new DynamicCompiler(doc, scenarios)
  const conditionPrepared: PreparedPredicate[] = []
  // The outbound proxy of the live pass-through, decided per upstream host here, once
  const outbound = compileOutbound(doc.proxy)
  const blocks = new HeaderBlocks()
  const payloadOf: PayloadFactory<ServedResponse> = (txn, _index, report) => {
    checkWritable(txn.dsl.responseDsl, report)
    const response = compileResponse(
      txn.dsl.responseDsl,
      options.proxyTimeout,
      pools,
      outbound,
      blocks,
    )
    const fits = response.body.length <= options.journalBodyBytes
    const served = servedResponse(
      response,
      fits ? response.body : Buffer.from(response.body.subarray(0, options.journalBodyBytes)),
      !fits,
      null,
      dynamic.compile(txn, response, report),
    )
    return withConditions(
      served,
      txn.dsl,
      options,
      pools,
      report,
      conditionPrepared,
      outbound,
      blocks,
    )
  }
  // as given: GET /config shows the document, not the host matchers added for serving
  const stored = storedDocument(given)
  const finish = (matcher: CompiledMatcher<ServedResponse>): CompiledMock =>
    new ServedMock(stored, {
      serviceMockId: doc.id ?? 0,
      matcher,
      prepared:
        conditionPrepared.length === 0
          ? matcher.prepared
          : [...(matcher.prepared ?? []), ...conditionPrepared],
      thinkTime: compileDelay(doc.thinkTime),
      capacity: doc.capacity,
      noMatch: noMatchPolicyOf(doc, matcher, options.proxyTimeout, pools, outbound),
      pools: [...pools.values()],
      cors: compileCors(doc.cors),
      scenarios,
      sharedScenarios:
        scenarios instanceof SharedScenarios && dynamic.scenarioCount > 0 ? scenarios : null,
      postServe: options.postServe ?? null,
    })
  return { doc, payloadOf, extraOf: (txn) => dynamic.predicates.get(txn) ?? null, finish }
}

/**
 * The compiled mock with its `document` read through the stored document. A class, not beside the
 * compiling closures: a getter made there would keep their scope, and with it the whole document,
 * alive for as long as the configuration is served. And not an object literal with a getter and
 * a spread, which V8 keeps in dictionary mode: every `mock.matcher`, `mock.cors`... of a request
 * was then a hash lookup through the generic load stub, about 80 instructions each.
 */
class ServedMock implements CompiledMock {
  readonly readDocument: () => Promise<MockServiceDocument>
  readonly #stored: StoredDocument

  constructor(stored: StoredDocument, parts: ServedParts) {
    this.#stored = stored
    this.readDocument = stored.later
    // One call site gives the parts, always with the same keys in the same order: every instance
    // gets the same hidden class, with fast properties.
    Object.assign(this, parts)
  }

  get document(): MockServiceDocument {
    return this.#stored.now()
  }
}

/** What a served mock holds besides its document: the fields `ServedMock` copies from. */
type ServedParts = Omit<CompiledMock, 'document' | 'readDocument'>

// The fields copied by Object.assign, declared once by CompiledMock rather than written again.
interface ServedMock extends ServedParts {}

// --- product DSL compatibility: statusCodeConditions ---
/**
 * Precompiles `statusCodeConditions` (those of `responseDsl`, else of the dsl): each condition's
 * matcher (a body matcher) and the response it answers, the transaction's own with the
 * condition's status and reason phrase.
 */
function withConditions(
  served: ServedResponse,
  dsl: TransactionDsl,
  options: CompileMockOptions,
  pools: Map<string, Dispatcher>,
  report: ReportProblem,
  prepared: PreparedPredicate[],
  outbound: CompiledOutbound | null,
  blocks: HeaderBlocks,
): ServedResponse {
  // An empty list (kept as the client sent it) gives way to the dsl's own
  const inResponse =
    dsl.responseDsl.statusCodeConditions?.length === 0
      ? undefined
      : dsl.responseDsl.statusCodeConditions
  const list = inResponse ?? dsl.statusCodeConditions
  if (list === undefined || list.length === 0) return served
  const base =
    inResponse !== undefined ? '/dsl/responseDsl/statusCodeConditions' : '/dsl/statusCodeConditions'
  const conditions: Array<{ predicate: Predicate; response: ServedResponse }> = []
  list.forEach((condition, i) => {
    const pointer = `${base}/${i}`
    const predicate = compileBodyPredicate(condition.matcher, `${pointer}/matcher`)
    if ('error' in predicate) {
      report(`${pointer}/matcher/${predicate.at}`, predicate.error)
      return
    }
    if (isPrepared(predicate)) prepared.push(predicate)
    const responseDsl = { ...dsl.responseDsl, status: condition.status }
    if (condition.statusMessage !== undefined) responseDsl.statusMessage = condition.statusMessage
    else delete responseDsl.statusMessage
    checkWritable(responseDsl, report)
    const response = compileResponse(responseDsl, options.proxyTimeout, pools, outbound, blocks)
    conditions.push({
      predicate,
      response: servedResponse(
        response,
        served.journalBody,
        served.journalTruncated,
        null,
        served.dynamic,
      ),
    })
  })
  return servedResponse(
    served,
    served.journalBody,
    served.journalTruncated,
    conditions,
    served.dynamic,
  )
}

/**
 * A ServedResponse written out field by field: an object spread (`{...response, more}`) gave every
 * transaction's response its own hidden class, about 400 bytes each in a large configuration.
 */
function servedResponse(
  response: CompiledResponse,
  journalBody: Buffer,
  journalTruncated: boolean,
  conditions: ServedResponse['conditions'],
  dynamic: DynamicFeatures | null,
): ServedResponse {
  return {
    status: response.status,
    statusMessage: response.statusMessage,
    headers: response.headers,
    headers2: response.headers2,
    body: response.body,
    delay: response.delay,
    ownsDelay: response.ownsDelay,
    proxy: response.proxy,
    dribbleChunks: response.dribbleChunks,
    journalBody,
    journalTruncated,
    conditions,
    dynamic,
  }
}

/** What Node's HTTP/1.1 writer accepts in a header value or reason phrase (its checkInvalidHeaderChar). */
const writableText = /^[\t\x20-\x7e\x80-\xff]*$/

/**
 * Rejects at compile time the header values and reason phrases Node would refuse to write (a line
 * break, a character beyond Latin-1 such as `€`): writeHead would throw on every request, leaving
 * the request place taken and, after a think time, crashing the process from a timer.
 */
function checkWritable(dsl: ResponseDsl, report: ReportProblem): void {
  const message = 'must contain only tabs, printable ASCII and Latin-1 characters (no line breaks)'
  dsl.headers?.forEach((h, i) => {
    if (!writableText.test(h.value)) report(`/dsl/responseDsl/headers/${i}/value`, message)
  })
  if (dsl.statusMessage !== undefined && !writableText.test(dsl.statusMessage)) {
    report('/dsl/responseDsl/statusMessage', message)
  }
}

function noMatchPolicyOf(
  doc: MockServiceDocument,
  matcher: CompiledMatcher<ServedResponse>,
  proxyTimeout: number,
  pools: Map<string, Dispatcher>,
  outbound: CompiledOutbound | null,
): NoMatchPolicy {
  switch (doc.noMatchingRequestPreference) {
    case 'return404':
      return { kind: 'return404' }
    case 'returnTransaction': {
      // readDefinition guarantees the id exists; a document built in code may not.
      const txn =
        doc.noMatchingRequestTxnId === null ? undefined : matcher.byId(doc.noMatchingRequestTxnId)
      return txn === undefined ? { kind: 'return404' } : { kind: 'returnTransaction', txn }
    }
    case 'bypasslive':
    case 'record':
      return {
        kind: doc.noMatchingRequestPreference,
        target: compileProxyTarget(liveSystemUrl(doc), proxyTimeout, pools, outbound),
      }
  }
}

/** `liveSystemHost:liveSystemPort` as a URL, over HTTPS when `endpointPreference` is HTTPS. */
export function liveSystemUrl(doc: MockServiceDocument): string {
  const host = doc.liveSystemHost ?? 'localhost'
  if (/^https?:\/\//i.test(host)) {
    return doc.liveSystemPort === null ? host : withPort(host, doc.liveSystemPort)
  }
  const https = doc.endpointPreference === 'HTTPS'
  const port = doc.liveSystemPort ?? (https ? 443 : 80)
  return `${https ? 'https' : 'http'}://${host}:${port}`
}

function withPort(url: string, port: number): string {
  const parsed = new URL(url)
  parsed.port = String(port)
  return parsed.toString()
}
