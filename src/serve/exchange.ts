import { createError, type UnderstudyError } from '../errors/index.js'
import {
  MatchRequest,
  prepareMultipart,
  preparePredicates,
  type CompiledTransaction,
} from '../match/index.js'
import type { CompiledMock, ServedResponse } from './compile-mock.js'
import { problemAnswer } from './problem.js'
import { forward, type ProxyOutcome, type ProxyTarget } from './proxy.js'
import type { RecordOutcome } from '../inspect/index.js'
import type { RuntimeState } from './runtime-state.js'
import type { LiveExchange } from './live-exchange.js'
import type { AnyRequest, AnyResponse } from './any-http.js'

export type { AnyRequest, AnyResponse } from './any-http.js'
import { applyPrefer, type RequestCheck } from './request-check.js'
import type { DynamicFeatures } from './dynamic.js'
import { injectFault, type CompiledFault } from './fault.js'
import { respondOnStream, type StreamOfResponse } from './h2-respond.js'
import { HelperFailure } from './template/helpers.js'
import type { ScenarioTurn, SharedScenarios } from './scenario/shared.js'

/** A request matched again this many times on fresh scenario states gives up (503). */
const MAX_SCENARIO_ATTEMPTS = 32

// The bits of Exchange#flags (read with `is`, set with `mark`).
const F_RECEIVING = 1
const F_MATCHED = 2
const F_RELEASED = 4
const F_LIVE = 8
const F_TRANSITIONED = 16
const F_RECORDING = 32
const F_RECORDED = 64
/** Answered on the HTTP/2 stream itself: the compatibility response never reads as ended. */
const F_SENT_ON_STREAM = 128

// Attaches the exchange to the request, so that body listeners are shared functions rather than
// closures made per request (fastify's kRouteContext idea).
const kExchange = Symbol('understudy.exchange')
type RequestWithExchange = AnyRequest & { [kExchange]?: Exchange | undefined }

/**
 * One request's trip through the runtime: read the body if there is one, match, wait out the think
 * time, answer or forward, and complete the inspection record. One object per request; every step
 * is a method, so no closure is created on the common path.
 */
export class Exchange {
  private matchRequest: MatchRequest | null = null
  /** The exchange's yes/no states in one number (F_* below): a smaller object per request. */
  private flags = F_RELEASED
  /** The body's first chunk: most bodies arrive in one, which then needs no array nor copy. */
  private firstChunk: Buffer | null = null
  /** Chunks after the first, when there are any. */
  private moreChunks: Buffer[] | null = null
  private received = 0
  /** This exchange's place in `state.pendingBodies` (-1: not waiting for its body). */
  pendingSlot = -1
  private response: ServedResponse | null = null
  private txn: CompiledTransaction<ServedResponse> | null = null
  private matchingData: unknown = null
  /** The inspection record's id, once opened (-1: none yet, or no journal). */
  private recordId = -1
  /** Bytes of a response body made for this request alone (proxied, error), for the byte bound. */
  private ownBytes = 0
  /** Cluster replica: matches tried so far (a stale scenario state means matching again). */
  private attempts = 0

  constructor(
    private readonly state: RuntimeState,
    private readonly mock: CompiledMock,
    private readonly req: AnyRequest,
    private readonly res: AnyResponse,
    private readonly arrived: number,
    private readonly h2: boolean,
  ) {}

  private is(flag: number): boolean {
    return (this.flags & flag) !== 0
  }

  private mark(flag: number, on: boolean): void {
    this.flags = on ? this.flags | flag : this.flags & ~flag
  }

  // HOT PATH: every request starts here.
  start(): void {
    // CORS (off by default): headers for every answer, and a preflight answered without matching.
    if (
      this.mock.cors !== null &&
      this.mock.cors.handle(
        this.req,
        this.res as unknown as Parameters<typeof this.mock.cors.handle>[1],
      )
    ) {
      this.mark(F_RELEASED, true)
      this.openRecord(null)
      this.complete(204, [], null, false, false)
      return
    }
    const headers = this.req.headers
    const length = headers['content-length']
    // HTTP/2 has no Transfer-Encoding: a body without Content-Length is announced by the absence
    // of END_STREAM on the HEADERS frame.
    const bodyless = this.h2
      ? length === '0' || (length === undefined && this.req.stream?.endAfterHeaders === true)
      : (length === undefined || length === '0') && headers['transfer-encoding'] === undefined
    if (bodyless) {
      if (!this.acquire()) return
      this.openRecord(null)
      this.dispatch(null)
      return
    }
    if (length !== undefined && declaredLength(length) > this.state.bodyLimit) {
      this.openRecord(null)
      this.bodyTooLarge()
      return
    }
    // A request with a body takes its capacity place only once the body is complete, so that
    // clients sending slowly cannot hold the places (slowloris); `bodyTimeout` bounds the wait.
    this.mark(F_RECEIVING, true)
    this.state.pendingBodies.add(this)
    const req = this.req as RequestWithExchange
    req[kExchange] = this
    req.on('data', onBodyData)
    req.on('end', onBodyEnd)
    // No 'error' listener: a request whose client goes away mid-body emits 'error' only to
    // listeners (Node's IncomingMessage), and adding a third listener cost about 750 instructions
    // per request. The body sweep finds such a request destroyed (`abandoned`) and closes it.
  }

  /** Takes a capacity place, or answers 503 and returns false. */
  private acquire(): boolean {
    if (!this.state.gate.tryAcquire()) {
      this.openRecord(null)
      this.answerProblem(
        createError('ERR_SERVE_CAPACITY', [this.state.gate.limit]),
        true,
        null,
        ['retry-after', '1'],
        false,
      )
      return false
    }
    this.mark(F_RELEASED, false)
    return true
  }

  /** When the body began to arrive (for the body timeout sweep). */
  get arrivedAt(): number {
    return this.arrived
  }

  /** The request was destroyed before its body ended: the client went away, or sent a bad body. */
  get abandoned(): boolean {
    return this.req.destroyed === true
  }

  /** The body did not arrive within `bodyTimeout`: 408, and the connection is closed. */
  bodyTimedOut(): void {
    this.state.pendingBodies.delete(this)
    if (!this.is(F_RECEIVING)) return
    this.stopReceiving()
    this.detachBody()
    this.openRecord(null)
    this.answerProblem(
      createError('ERR_SERVE_BODY_TIMEOUT', [this.state.bodyTimeout]),
      true,
      null,
      ['connection', 'close'],
      false,
    )
    // Stop reading what the slow client still sends.
    this.req.destroy()
  }

  /** Called by the shared body listeners. */
  addChunk(chunk: Buffer): void {
    if (!this.is(F_RECEIVING)) return
    this.received += chunk.length
    if (this.received > this.state.bodyLimit) {
      this.stopReceiving()
      this.detachBody()
      this.state.pendingBodies.delete(this)
      this.openRecord(null)
      this.bodyTooLarge()
      return
    }
    if (this.firstChunk === null) this.firstChunk = chunk
    else if (this.moreChunks === null) this.moreChunks = [chunk]
    else this.moreChunks.push(chunk)
  }

  endBody(): void {
    if (!this.is(F_RECEIVING)) return
    // An HTTP/2 stream reset mid-body still ends the compat request: do not match a cut body.
    if (this.req.aborted === true) {
      this.abortBody()
      return
    }
    const body = this.moreChunks === null ? (this.firstChunk ?? EMPTY_BODY) : this.joinChunks()
    // The listeners stay: with `receiving` false they do nothing, the request is dropped after
    // this exchange, and removing three listeners per request showed in profiles.
    this.stopReceiving()
    this.state.pendingBodies.delete(this)
    if (!this.acquire()) return
    this.openRecord(body)
    this.dispatch(body)
  }

  abortBody(): void {
    // The client went away while sending: nothing to answer; free the place and close the record.
    const partial = !this.is(F_RECEIVING) || this.firstChunk === null ? null : this.joinChunks()
    this.stopReceiving()
    this.detachBody()
    this.state.pendingBodies.delete(this)
    this.release()
    this.openRecord(partial)
    this.complete(499, [], null, false, true)
  }

  /** The chunks read so far, in one buffer (only for a body that came in several). */
  private joinChunks(): Buffer {
    const first = this.firstChunk as Buffer
    const more = this.moreChunks
    if (more === null) return first
    more.unshift(first)
    return Buffer.concat(more, this.received)
  }

  private stopReceiving(): void {
    this.mark(F_RECEIVING, false)
    this.firstChunk = null
    this.moreChunks = null
  }

  private detachBody(): void {
    const req = this.req as RequestWithExchange
    req.removeListener('data', onBodyData)
    req.removeListener('end', onBodyEnd)
    req[kExchange] = undefined
  }

  /**
   * Opens the inspection record: when the request arrives, or for a request with a body once the
   * body is read (the journal copies it). Ids follow that order.
   */
  private openRecord(body: Buffer | null): void {
    const ring = this.state.ring
    if (ring === null || this.recordId !== -1) return
    this.recordId = ring.append(
      this.arrived,
      this.req.method ?? 'GET',
      this.req.url ?? '/',
      this.req.rawHeaders,
      body,
    )
  }

  private bodyTooLarge(): void {
    // The rest of the body is not read: ask the client to close rather than drain megabytes.
    this.answerProblem(
      createError('ERR_SERVE_BODY_TOO_LARGE', [this.state.bodyLimit]),
      true,
      null,
      ['connection', 'close'],
      true,
    )
  }

  private dispatch(body: Buffer | null): void {
    const headers = this.req.headers
    if (headers['prefer'] !== undefined) applyPrefer(headers)
    const matchRequest = new MatchRequest(
      this.req.method ?? 'GET',
      this.req.url ?? '/',
      headers,
      body,
    )
    this.matchRequest = matchRequest
    if (body !== null && (this.mock.matcher.needsForm || this.mock.prepared !== null)) {
      this.prepareThenDecide(matchRequest).catch((err: unknown) => this.fail(err))
      return
    }
    this.decide()
  }

  /** Work the match needs done asynchronously first: multipart fields, XML Schema validations. */
  private async prepareThenDecide(matchRequest: MatchRequest): Promise<void> {
    try {
      if (this.mock.matcher.needsForm) await prepareMultipart(matchRequest)
      if (this.mock.prepared !== null) await preparePredicates(matchRequest, this.mock.prepared)
    } catch {
      // Neither rejects by design; should one, its matchers fail rather than the request.
    }
    this.decide()
  }

  private decide(): void {
    if (this.state.requestCheck !== null && this.refuseInvalid(this.state.requestCheck)) return
    if (this.mock.sharedScenarios !== null) {
      this.decideShared(this.mock.sharedScenarios)
      return
    }
    this.answer(this.mock.matcher.match(this.matchRequest as MatchRequest))
  }

  /**
   * A cluster replica with scenario transactions: the match reads the states this replica knows
   * and, when it read or moves one, is committed through the primary before answering (atomic
   * across replicas); a stale read means matching again on the fresh states. A match that read
   * no state goes on at once.
   */
  private decideShared(shared: SharedScenarios): void {
    const request = this.matchRequest as MatchRequest
    let hit: CompiledTransaction<ServedResponse> | null = null
    let turn: ScenarioTurn | null = null
    shared.begin()
    try {
      hit = this.mock.matcher.match(request)
      hit?.payload.dynamic?.scenario?.transition(request)
    } finally {
      turn = shared.end()
    }
    if (turn === null) {
      this.answer(hit)
      return
    }
    this.mark(F_TRANSITIONED, true)
    shared
      .commit(turn)
      .then(
        (committed) => {
          if (committed) this.answer(hit)
          else if (++this.attempts < MAX_SCENARIO_ATTEMPTS) this.decideShared(shared)
          else {
            this.answerProblem(
              createError('ERR_SERVE_SCENARIO_UNAVAILABLE', [
                'the states kept changing under this request',
              ]),
              true,
              null,
              ['retry-after', '1'],
              false,
            )
          }
        },
        (err: unknown) =>
          this.answerProblem(err as UnderstudyError, true, null, ['retry-after', '1'], false),
      )
      .catch((err: unknown) => this.fail(err))
  }

  private answer(hit: CompiledTransaction<ServedResponse> | null): void {
    if (hit !== null) {
      this.mark(F_MATCHED, true)
      this.serve(hit)
      return
    }
    const policy = this.mock.noMatch
    // The diagnosis scores every transaction: compute it only when the answer (return404) or an
    // inspection record will carry it, never for bypasslive, record or returnTransaction without inspection.
    const diagnosed = policy.kind === 'return404' || this.state.ring !== null
    const nearMisses = diagnosed
      ? this.mock.matcher.diagnose(this.matchRequest as MatchRequest, 3)
      : []
    if (diagnosed) this.matchingData = { nearMisses }
    switch (policy.kind) {
      case 'return404':
        this.answerProblem(
          createError('ERR_MATCH_NO_MATCH', [this.req.method, this.req.url]),
          false,
          { nearMisses },
          undefined,
          false,
        )
        return
      case 'returnTransaction':
        this.serve(policy.txn)
        return
      case 'bypasslive':
        this.forwardTo(policy.target, 'LIVE')
        return
      case 'record':
        this.mark(F_RECORDING, this.state.recording !== null)
        this.forwardTo(policy.target, 'LIVE')
    }
  }

  /** Answers 422 naming every violation when the request breaks its operation; true then. */
  private refuseInvalid(check: RequestCheck): boolean {
    const result = check(this.matchRequest as MatchRequest)
    if (result === null || result.violations.length === 0) return false
    const violations = result.violations.map((v) => ({ path: v.path, message: v.message }))
    this.matchingData = { validation: { operation: result.operation, violations } }
    const credentials = result.violations.find((v) => v.path === '/security')
    if (credentials !== undefined) {
      // Credentials missing: 401 (RFC 9110) with the schemes that would do, before anything else
      // is judged, as a real API authenticates first; `errors` still lists every violation.
      const challenges = credentials.challenges ?? []
      const error = createError(
        'ERR_SERVE_CREDENTIALS_REQUIRED',
        [result.operation, credentials.message.replace(/^credentials are required: /, '')],
        { details: violations },
      )
      this.answerProblem(
        error,
        false,
        null,
        challenges.length > 0 ? ['www-authenticate', challenges.join(', ')] : undefined,
        false,
      )
      return true
    }
    const summary = violations.map((v) => `${v.path} ${v.message}`).join('; ')
    const error = createError('ERR_SERVE_REQUEST_INVALID', [result.operation, summary], {
      details: violations,
    })
    this.answerProblem(error, false, null, undefined, false)
    return true
  }

  private serve(txn: CompiledTransaction<ServedResponse>): void {
    this.txn = txn
    let response = txn.payload
    if (response.conditions !== null) {
      response = conditionalResponse(response, this.matchRequest as MatchRequest)
    }
    if (response.proxy !== null) {
      this.forwardTo(response.proxy, 'MOCK')
      return
    }
    if (response.dynamic !== null) {
      this.serveDynamic(response, response.dynamic)
      return
    }
    this.response = response
    const sampler = response.ownsDelay ? response.delay : this.mock.thinkTime
    const delay = sampler === null ? 0 : sampler()
    if (response.dribbleChunks > 1 && delay > 0) {
      this.dribble(response, delay)
      return
    }
    if (delay > 0) {
      // Timers only: think time never blocks the event loop.
      setTimeout(flushLater, delay, this)
      return
    }
    this.flush()
  }

  /**
   * A transaction with a template, scenario, fault or webhooks. The scenario moves in
   * the same synchronous turn as the match (atomic); the rest follows the fixed-answer steps.
   */
  private serveDynamic(response: ServedResponse, dynamic: DynamicFeatures): void {
    const request = this.matchRequest as MatchRequest
    if (!this.is(F_TRANSITIONED)) dynamic.scenario?.transition(request)
    let served = response
    if (dynamic.template !== null) {
      try {
        const rendered = dynamic.template.render(request, this.req.rawHeaders)
        const limit = this.state.ring?.maxBodyBytes ?? 0
        const fits = rendered.body.length <= limit
        served = {
          ...response,
          ...rendered,
          journalBody: fits ? rendered.body : rendered.body.subarray(0, limit),
          journalTruncated: !fits,
        }
        this.ownBytes += rendered.body.length
      } catch (err) {
        if (!(err instanceof HelperFailure)) throw err
        this.answerProblem(
          createError(err.bound ? 'ERR_SERVE_TEMPLATE_LIMIT' : 'ERR_SERVE_TEMPLATE', [
            err.helper,
            err.message,
          ]),
          true,
          { helper: err.helper },
          undefined,
          false,
        )
        return
      }
    }
    this.response = served
    const sampler = response.ownsDelay ? response.delay : this.mock.thinkTime
    const delay = sampler === null ? 0 : sampler()
    if (dynamic.postServe !== null && this.mock.postServe !== null) {
      const rawHeaders = this.req.rawHeaders
      const fields = dynamic.postServe.fields
      const context = (): Record<string, unknown> =>
        dynamic.context(request, rawHeaders, fields, {
          response: fields.responseBody
            ? { status: served.status, body: served.body.toString('utf8') }
            : { status: served.status },
        })
      dynamic.postServe.fire(this.mock.postServe, context, delay)
    }
    if (dynamic.fault !== null && dynamic.fault.applies()) {
      if (delay > 0) setTimeout(faultLater, delay, this, dynamic.fault)
      else this.injectFault(dynamic.fault)
      return
    }
    if (delay > 0) {
      setTimeout(flushLater, delay, this)
      return
    }
    this.flush()
  }

  /** Inflicts a fault instead of the answer; inspection records it as an error naming the fault. */
  injectFault(fault: CompiledFault): void {
    if (!this.res.destroyed && !this.res.writableEnded) {
      injectFault(fault.type, this.res as never, this.h2)
    }
    this.release()
    this.matchingData = { fault: fault.type }
    this.complete(0, [], null, false, true)
  }

  /** Writes the precomputed response (docs/architecture.md#hot-path: synchronous, prebuilt). */
  flush(): void {
    const response = this.response as ServedResponse
    const res = this.res
    if (!res.destroyed && !res.writableEnded) {
      if (this.h2) {
        // CORS sets its headers on the compatibility response: only it merges them.
        const onStream =
          this.mock.cors === null &&
          respondOnStream(
            res as StreamOfResponse,
            this.req.method,
            response.status,
            response.headers2,
            response.body,
          )
        if (onStream) this.mark(F_SENT_ON_STREAM, true)
        else {
          res.writeHead(response.status, response.headers2)
          res.end(response.body)
        }
      } else {
        if (response.statusMessage !== null) {
          res.writeHead(
            response.status,
            response.statusMessage,
            this.connectionHeaders(response.headers),
          )
        } else res.writeHead(response.status, this.connectionHeaders(response.headers))
        res.end(response.body)
      }
    }
    this.release()
    this.complete(
      response.status,
      this.h2 ? response.headers2 : response.headers,
      response.journalBody,
      response.journalTruncated,
      false,
    )
  }

  // --- product DSL compatibility: dribbled responses ---
  /**
   * Slow-network simulation: headers at once, then the body in `dribbleChunks` pieces, one per
   * equal slice of the delay (timers only). A client that goes away stops the trickle. Over HTTP/2
   * each piece is a DATA frame of the stream (the HTTP/2 headers, without connection headers).
   */
  private dribble(response: ServedResponse, delay: number): void {
    const res = this.res
    if (res.destroyed || res.writableEnded) {
      this.flush()
      return
    }
    if (this.h2) res.writeHead(response.status, response.headers2)
    else if (response.statusMessage !== null) {
      res.writeHead(
        response.status,
        response.statusMessage,
        this.connectionHeaders(response.headers),
      )
    } else res.writeHead(response.status, this.connectionHeaders(response.headers))
    const headers = this.h2 ? response.headers2 : response.headers
    const count = response.dribbleChunks
    const size = Math.ceil(response.body.length / count)
    let sent = 0
    const step = (): void => {
      try {
        if (res.destroyed) {
          this.release()
          this.complete(
            response.status,
            headers,
            response.journalBody,
            response.journalTruncated,
            true,
          )
          return
        }
        const next = Math.min(response.body.length, sent + size)
        const chunk = response.body.subarray(sent, next)
        sent = next
        if (sent >= response.body.length) {
          res.write(chunk)
          res.end()
          this.release()
          this.complete(
            response.status,
            headers,
            response.journalBody,
            response.journalTruncated,
            false,
          )
          return
        }
        res.write(chunk)
        setTimeout(step, delay / count)
      } catch (err) {
        this.fail(err)
      }
    }
    setTimeout(step, delay / count)
  }

  /** While draining, HTTP/1.1 answers carry `connection: close` so that keep-alive clients leave. */
  private connectionHeaders(headers: string[]): string[] {
    return this.state.draining ? [...headers, 'connection', 'close'] : headers
  }

  private forwardTo(target: ProxyTarget, source: 'MOCK' | 'LIVE'): void {
    const ringBytes = this.state.ring?.maxBodyBytes ?? 0
    // A recorder needs whole bodies (up to the request body limit), not the journal's slice.
    const captureBytes =
      source === 'LIVE' && (this.is(F_RECORDING) || this.state.onLive !== null)
        ? Math.max(ringBytes, this.state.bodyLimit)
        : ringBytes
    const body = this.matchRequest?.body ?? null
    forward(
      target,
      this.req.method ?? 'GET',
      this.req.url ?? '/',
      this.req.headers,
      body,
      this.res,
      captureBytes,
    )
      .then(
        (outcome) => this.forwarded(outcome, source, target),
        (err: unknown) => this.forwarded(internalOutcome(err), source, target),
      )
      .catch((err: unknown) => this.fail(err))
  }

  private forwarded(outcome: ProxyOutcome, source: 'MOCK' | 'LIVE', target: ProxyTarget): void {
    this.mark(F_LIVE, source === 'LIVE')
    if (outcome.error !== null) {
      this.answerProblem(outcome.error, true, null, undefined, false)
      return
    }
    this.release()
    this.ownBytes += outcome.captured?.length ?? 0
    if (source === 'LIVE' && (this.is(F_RECORDING) || this.state.onLive !== null)) {
      this.recordLive(outcome, target.origin)
    }
    this.complete(outcome.statusCode, outcome.headers, outcome.captured, outcome.truncated, false)
  }

  /** Hands a live exchange to the recording or the listener (which batch their own work). */
  private recordLive(outcome: ProxyOutcome, origin: string): void {
    try {
      const now = Date.now()
      const exchange: LiveExchange = {
        method: this.req.method ?? 'GET',
        url: this.req.url ?? '/',
        requestHeaders: this.req.headers,
        requestBody: this.matchRequest?.body ?? null,
        status: outcome.statusCode,
        responseHeaders: outcome.headers,
        responseBody: outcome.captured,
        truncated: outcome.truncated,
        durationMs: now - this.arrived,
        endedAt: now,
      }
      if (this.is(F_RECORDING) && this.state.recording !== null) {
        // A truncated capture is skipped (and logged) when the recording merges its queue.
        this.state.recording.add(exchange, origin)
        this.mark(F_RECORDED, !outcome.truncated)
      }
      this.state.onLive?.(exchange)
    } catch (err) {
      this.state.log.warn({ err }, 'recorder failed')
    }
  }

  /**
   * Answers with a problem+json error and releases the capacity place (except for the capacity
   * 503 itself, which never took one). `drainBody` discards an unread request body.
   */
  private answerProblem(
    err: UnderstudyError,
    hasError: boolean,
    extra: Record<string, unknown> | null,
    extraHeaders: readonly string[] | undefined,
    drainBody: boolean,
  ): void {
    const answer = problemAnswer(
      err,
      this.recordId === -1 ? null : this.recordId,
      extra ?? undefined,
      extraHeaders,
    )
    const res = this.res
    if (!res.destroyed && !res.headersSent) {
      res.writeHead(
        answer.status,
        this.h2 ? answer.headers2 : this.connectionHeaders(answer.headers),
      )
      res.end(answer.body)
    } else if (!res.writableEnded && !this.is(F_SENT_ON_STREAM)) {
      res.destroy()
    }
    this.release()
    if (drainBody) this.req.resume()
    // The problem body is made per request (unlike a compiled response): count it against maxBytes.
    this.ownBytes += answer.body.length
    if (hasError && this.matchingData === null) {
      this.matchingData = { error: { code: err.code, message: err.message } }
    }
    this.complete(
      answer.status,
      this.h2 ? answer.headers2 : answer.headers,
      answer.body,
      false,
      hasError,
    )
  }

  /** Gives the capacity place back, once. */
  private release(): void {
    if (this.is(F_RELEASED)) return
    this.mark(F_RELEASED, true)
    this.state.gate.release()
  }

  /**
   * An unexpected throw anywhere in this exchange (a timer, a promise callback, a body listener):
   * logged, answered 500 ERR_INTERNAL when the answer has not started, and the capacity place
   * given back. Never rethrows: no request may take the process down.
   */
  fail(err: unknown): void {
    this.state.log.error({ err, method: this.req.method, url: this.req.url }, 'request failed')
    try {
      this.answerProblem(
        createError('ERR_INTERNAL', [], { cause: err }),
        true,
        null,
        undefined,
        false,
      )
    } catch {
      this.release()
      try {
        this.res.destroy()
      } catch {
        // Already gone.
      }
    }
  }

  /** Completes the inspection record, and writes the access log line when asked to. */
  private complete(
    statusCode: number,
    headers: readonly string[],
    body: Buffer | null,
    truncated: boolean,
    hasError: boolean,
  ): void {
    const durationMs = Date.now() - this.arrived
    const ring = this.state.ring
    if (this.recordId !== -1 && ring !== null) {
      // The ring copies the outcome's fields: one object serves every request.
      const txn = this.txn
      const outcome = OUTCOME
      outcome.statusCode = statusCode
      outcome.durationMs = durationMs
      outcome.matched = this.is(F_MATCHED)
      outcome.hasError = hasError
      outcome.source = this.is(F_LIVE) ? 'LIVE' : 'MOCK'
      outcome.liveTransactionCreated = this.is(F_RECORDED)
      outcome.transactionId = txn === null ? null : txn.id
      outcome.respondingTxn = txn === null ? null : txn.name
      outcome.txnPriority = txn === null ? null : txn.priority
      outcome.responseHeaders = headers
      outcome.responseBody = body
      outcome.responseBodyTruncated = truncated
      outcome.ownBytes = this.ownBytes
      outcome.matchingData = this.matchingData
      ring.complete(this.recordId, outcome)
      // Let go of what this request's answer referenced until the next one overwrites it.
      outcome.responseHeaders = NO_HEADERS
      outcome.responseBody = null
      outcome.matchingData = null
    }
    if (this.state.logRequests) {
      this.state.log.info(
        {
          method: this.req.method,
          url: this.req.url,
          statusCode,
          matched: this.is(F_MATCHED),
          ms: durationMs,
        },
        'request',
      )
    }
  }
}

/** A body announced but empty (chunked with no chunk). */
const EMPTY_BODY = Buffer.alloc(0)
const NO_HEADERS: readonly string[] = []

/** The outcome handed to the ring, reused: `InspectionRing#complete` copies what it keeps. */
const OUTCOME: RecordOutcome = {
  statusCode: 0,
  durationMs: 0,
  matched: false,
  hasError: false,
  source: 'MOCK',
  liveTransactionCreated: false,
  transactionId: null,
  respondingTxn: null,
  txnPriority: null,
  responseHeaders: NO_HEADERS,
  responseBody: null,
  responseBodyTruncated: false,
  ownBytes: 0,
  matchingData: null,
}

// Listeners run inside stream machinery, where a throw would be an uncaught exception.
function onBodyData(this: RequestWithExchange, chunk: Buffer): void {
  const exchange = this[kExchange]
  try {
    exchange?.addChunk(chunk)
  } catch (err) {
    exchange?.fail(err)
  }
}

function onBodyEnd(this: RequestWithExchange): void {
  const exchange = this[kExchange]
  try {
    exchange?.endBody()
  } catch (err) {
    exchange?.fail(err)
  }
}

/**
 * The number a Content-Length value states. HTTP/1.1's parser lets only digits through, read here
 * in a loop; anything else (an HTTP/2 value) is left to Number. Number on a string fresh from the
 * parser goes through V8's runtime, about 250 instructions for three digits.
 */
function declaredLength(value: string): number {
  let length = 0
  for (let i = 0; i < value.length; i++) {
    const digit = value.charCodeAt(i) - 48
    if (digit < 0 || digit > 9) return Number(value)
    length = length * 10 + digit
  }
  return length
}

/** The response of the first `statusCodeConditions` entry whose matcher holds, else the transaction's own. */
function conditionalResponse(response: ServedResponse, req: MatchRequest): ServedResponse {
  const conditions = response.conditions ?? []
  for (let i = 0; i < conditions.length; i++) {
    const condition = conditions[i] as (typeof conditions)[number]
    if (condition.predicate.test(req)) return condition.response
  }
  return response
}

function flushLater(exchange: Exchange): void {
  try {
    exchange.flush()
  } catch (err) {
    exchange.fail(err)
  }
}

function faultLater(exchange: Exchange, fault: CompiledFault): void {
  try {
    exchange.injectFault(fault)
  } catch (err) {
    exchange.fail(err)
  }
}

function internalOutcome(err: unknown): ProxyOutcome {
  return {
    statusCode: 502,
    headers: [],
    captured: null,
    truncated: false,
    error: createError('ERR_INTERNAL', [], { cause: err }),
  }
}
