import { ResponseData, readSource } from './response.js'
import { compare, canonicalComparison, textOf, UNARY, type Comparison } from './comparisons.js'
import { substitute, type Variables } from './template.js'
import { runScript, type ScriptRequest, type ScriptResponse, type ScriptLimits } from './sandbox.js'
import { runnerEgress, send, type OutgoingRequest, type SendOptions } from './http.js'
import { applyBasic, applyBearer, applyOAuth1, OAuth2Tokens } from './auth.js'
import { CookieJar } from './cookies.js'
import type { EgressPolicy } from '../net/index.js'
import type {
  Assertion,
  AssertionResult,
  ConditionStep,
  ExternalUiTestStep,
  MultiMap,
  OAuth1Auth,
  OAuth2Auth,
  PauseStep,
  RequestStep,
  RunInput,
  RunOptions,
  ScriptResult,
  StepResult,
  SubtestStep,
  TestRunResult,
  Variable,
  VariableResult,
} from './types.js'

const DEFAULTS = {
  requestTimeoutMs: 30_000,
  maxBodyBytes: 64 * 1024,
  scriptTimeMs: 1000,
  scriptMemoryBytes: 32 * 1024 * 1024,
  maxSubtestDepth: 5,
}

const EXTERNAL_UI_NOT_CONFIGURED =
  'integration not configured: external UI test steps need a UI testing integration, and none is configured on this platform'

/** Steps arrive as stored JSON: every field is read defensively. */
type Loose = Record<string, unknown>

const str = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : ''
const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : [])
const errorMessage = (err: unknown): string => {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause
    return cause instanceof Error && cause.message !== err.message
      ? `${err.message}: ${cause.message}`
      : err.message
  }
  return String(err)
}

async function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms)
    function done(): void {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })
}

function clip(text: string, max: number): { text: string; truncated: boolean } {
  if (Buffer.byteLength(text) <= max) return { text, truncated: false }
  return { text: Buffer.from(text).subarray(0, max).toString('utf8'), truncated: true }
}

function multiEntries(map: MultiMap | null | undefined): Array<[string, string]> {
  const out: Array<[string, string]> = []
  if (map === null || map === undefined || typeof map !== 'object') return out
  for (const [name, value] of Object.entries(map)) {
    for (const v of Array.isArray(value) ? value : [value]) out.push([name, str(v)])
  }
  return out
}

function emptyStep(step: Loose): StepResult {
  return {
    uuid: typeof step['id'] === 'string' ? step['id'] : null,
    step_type: str(step['step_type']) as StepResult['step_type'],
    result: 'pass',
    method: null,
    url: null,
    status_code: null,
    response_status_code: null,
    response_time_ms: null,
    response_size_bytes: null,
    assertions: [],
    variables: [],
    scripts: [],
    error: null,
    note: typeof step['note'] === 'string' ? step['note'] : null,
    request: null,
    response: null,
  }
}

/** One run of a test: its variables, tokens and results. */
export class TestRunner {
  readonly #input: RunInput
  readonly #o: Required<Omit<RunOptions, 'sleep' | 'now' | 'egress'>> & {
    sleep: NonNullable<RunOptions['sleep']>
    now: () => number
    egress: EgressPolicy
  }
  readonly #vars: Variables = new Map()
  readonly #tokens: OAuth2Tokens
  /** Cookies kept between steps when the environment says `preserve_cookies`. */
  readonly #cookies: CookieJar | null
  readonly #ancestors: readonly string[]
  /** The environment's headers and how requests are sent: the same for every step of the run. */
  readonly #environmentHeaders: ReadonlyArray<[string, string]>
  readonly #sendOptions: SendOptions

  constructor(input: RunInput, options: RunOptions, ancestors: readonly string[] = []) {
    this.#input = input
    this.#o = {
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs,
      maxBodyBytes: options.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
      scriptTimeMs: options.scriptTimeMs ?? DEFAULTS.scriptTimeMs,
      scriptMemoryBytes: options.scriptMemoryBytes ?? DEFAULTS.scriptMemoryBytes,
      maxSubtestDepth: options.maxSubtestDepth ?? DEFAULTS.maxSubtestDepth,
      sleep: options.sleep ?? defaultSleep,
      now: options.now ?? Date.now,
      egress: runnerEgress(options.egress),
    }
    this.#tokens = new OAuth2Tokens(this.#o.requestTimeoutMs, this.#o.egress)
    this.#cookies = input.environment.preserve_cookies ? new CookieJar(this.#o.now) : null
    this.#ancestors = ancestors
    const environment = input.environment
    this.#environmentHeaders = multiEntries(environment.headers)
    this.#sendOptions = {
      verifySsl: environment.verify_ssl,
      clientCertificate: environment.client_certificate,
      http2: environment.http_version_support === 'h2',
      h2c: environment.force_h2c,
      timeoutMs: this.#o.requestTimeoutMs,
      signal: input.signal,
      egress: this.#o.egress,
    }
  }

  get #limits(): ScriptLimits {
    return { timeMs: this.#o.scriptTimeMs, memoryBytes: this.#o.scriptMemoryBytes }
  }

  #sub(text: unknown): string {
    return substitute(str(text), this.#vars, this.#o.now)
  }

  #aborted(): boolean {
    return this.#input.signal?.aborted === true
  }

  async run(): Promise<TestRunResult> {
    const { test, environment } = this.#input
    const startedMs = this.#o.now()
    const initial: Record<string, string> = {
      ...environment.initial_variables,
      ...this.#input.initialVariables,
    }
    // Initial values may use the built-ins (`{{timestamp}}`), evaluated once at the start of the run.
    for (const [name, value] of Object.entries(initial)) {
      this.#vars.set(name, substitute(str(value), this.#vars, this.#o.now))
    }

    const scripts: ScriptResult[] = []
    for (const source of environment.scripts) {
      const { request: _request, ...script } = await this.#script(
        'environment_script',
        source,
        null,
        null,
      )
      scripts.push(script)
    }

    const requests: StepResult[] = []
    let error: string | null = null
    for (const raw of list<Loose>(test.steps)) {
      if (this.#aborted()) {
        error = 'the run was cancelled'
        break
      }
      const result = await this.#step(raw)
      requests.push(result)
      this.#input.onProgress?.({ kind: 'step', step: result })
      if (result.result === 'fail' && environment.stop_on_failure) break
    }

    const all = flatten(requests)
    const assertions = all.flatMap((r) => r.assertions)
    const variables = all.flatMap((r) => r.variables)
    const stepScripts = [...scripts, ...all.flatMap((r) => r.scripts)]
    const failed =
      error !== null ||
      requests.some((r) => r.result === 'fail') ||
      scripts.some((s) => s.result === 'fail')
    return {
      test_run_id: this.#input.testRunId,
      test_id: test.id,
      test_name: test.name,
      environment_id: environment.id,
      environment_name: environment.name,
      result: failed ? 'fail' : 'pass',
      started_at: startedMs / 1000,
      finished_at: this.#o.now() / 1000,
      requests_executed: all.filter((r) => r.step_type === 'request' && r.result !== 'skipped')
        .length,
      assertions_defined: assertions.length,
      assertions_passed: assertions.filter((a) => a.result === 'pass').length,
      assertions_failed: assertions.filter((a) => a.result === 'fail').length,
      variables_defined: variables.length,
      variables_passed: variables.filter((v) => v.result === 'pass').length,
      variables_failed: variables.filter((v) => v.result === 'fail').length,
      scripts_defined: stepScripts.length,
      scripts_passed: stepScripts.filter((s) => s.result === 'pass').length,
      scripts_failed: stepScripts.filter((s) => s.result === 'fail').length,
      initial_variables: initial,
      variables: Object.fromEntries(this.#vars),
      scripts,
      requests,
      error,
    }
  }

  async #step(raw: Loose): Promise<StepResult> {
    const base = emptyStep(raw)
    if (raw['skipped'] === true) return { ...base, result: 'skipped' }
    try {
      switch (raw['step_type']) {
        case 'request':
          return await this.#request(raw as unknown as RequestStep, base)
        case 'pause':
          return await this.#pause(raw as unknown as PauseStep, base)
        case 'condition':
          return await this.#condition(raw as unknown as ConditionStep, base)
        case 'subtest':
          return await this.#subtest(raw as unknown as SubtestStep, base)
        case 'external-ui-test':
          return this.#externalUi(raw as unknown as ExternalUiTestStep, base)
        default:
          return { ...base, result: 'fail', error: `unknown step_type "${str(raw['step_type'])}"` }
      }
    } catch (err) {
      // A bug in the runner must not lose the run: the step fails with the reason.
      return { ...base, result: 'fail', error: `the step could not run: ${errorMessage(err)}` }
    }
  }

  async #script(
    kind: ScriptResult['kind'],
    source: string,
    request: ScriptRequest | null,
    response: ScriptResponse | null,
  ): Promise<ScriptResult & { request: ScriptRequest | null }> {
    const outcome = await runScript(
      str(source),
      { variables: Object.fromEntries(this.#vars), request, response },
      this.#limits,
    )
    this.#vars.clear()
    for (const [k, v] of Object.entries(outcome.variables)) this.#vars.set(k, v)
    return {
      kind,
      result: outcome.ok ? 'pass' : 'fail',
      output: outcome.output,
      error: outcome.error,
      request: outcome.request,
    }
  }

  async #request(step: RequestStep, base: StepResult): Promise<StepResult> {
    const result: StepResult = { ...base }
    // Pre-request scripts see the request as written (before substitution) and may change it and
    // the variables it uses.
    let template: ScriptRequest = {
      method: str(step.method) || 'GET',
      url: str(step.url),
      headers: {},
      body: str(step.body),
      form: {},
    }
    // Step headers replace environment headers of the same name.
    const stepHeaders = multiEntries(step.headers)
    const effectiveHeaders =
      this.#environmentHeaders.length === 0
        ? stepHeaders
        : this.#withEnvironmentHeaders(stepHeaders)
    const formMulti = multiEntries(step.form)
    const beforeScripts = list<string>(step.before_scripts)
    // The header and form records are what a pre-request script sees; without one, the request is
    // sent from the lists above.
    if (beforeScripts.length > 0) {
      for (const [n, v] of effectiveHeaders) {
        template.headers[n] = template.headers[n] === undefined ? v : `${template.headers[n]}, ${v}`
      }
      for (const [n, v] of formMulti) {
        template.form[n] = template.form[n] === undefined ? v : `${template.form[n]},${v}`
      }
    }
    let formChanged = false
    let headersChanged = false
    for (const source of beforeScripts) {
      const s = await this.#script('before_script', source, template, null)
      if (s.request !== null) {
        if (JSON.stringify(s.request.form) !== JSON.stringify(template.form)) formChanged = true
        if (JSON.stringify(s.request.headers) !== JSON.stringify(template.headers)) {
          headersChanged = true
        }
        template = s.request
      }
      result.scripts.push({ kind: s.kind, result: s.result, output: s.output, error: s.error })
    }

    const method = this.#sub(template.method).toUpperCase()
    const url = this.#sub(template.url)
    result.method = method
    result.url = url
    const out: OutgoingRequest = {
      method,
      url,
      // Repeated headers are sent as separate lines unless a script rewrote the headers.
      headers: (headersChanged ? Object.entries(template.headers) : effectiveHeaders).map(
        ([n, v]) => [n, this.#sub(v)],
      ),
      body: null,
    }
    const body = this.#sub(template.body)
    const formPairs = formChanged ? Object.entries(template.form) : formMulti
    if (body !== '') out.body = body
    else if (formPairs.length > 0) {
      out.body = new URLSearchParams(
        formPairs.map(([k, v]): [string, string] => [this.#sub(k), this.#sub(v)]),
      ).toString()
      if (!out.headers.some(([n]) => n.toLowerCase() === 'content-type')) {
        out.headers.push(['Content-Type', 'application/x-www-form-urlencoded'])
      }
    }

    let parsedUrl: URL | null = null
    try {
      parsedUrl = new URL(url)
    } catch {
      parsedUrl = null
    }
    if (parsedUrl === null || (parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:')) {
      return this.#noResponse(step, result, `the URL "${url}" is not an absolute http(s) URL`)
    }

    let response: ResponseData
    const auth = (step.auth ?? {}) as Loose
    let oauth2: OAuth2Auth | null = null
    try {
      switch (auth['auth_type']) {
        case 'basic':
          applyBasic(out, this.#sub(auth['username']), this.#sub(auth['password']))
          break
        case 'oauth_1':
          applyOAuth1(out, this.#subAuth(auth) as unknown as OAuth1Auth)
          break
        case 'oauth_2': {
          oauth2 = this.#subAuth(auth) as unknown as OAuth2Auth
          applyBearer(out, await this.#tokens.token(oauth2), oauth2.token_location)
          break
        }
        default:
          break
      }
    } catch (err) {
      return this.#noResponse(step, result, `authentication failed: ${errorMessage(err)}`, out)
    }
    const cookie = this.#cookies?.header(out.url) ?? null
    if (cookie !== null && !out.headers.some(([n]) => n.toLowerCase() === 'cookie')) {
      out.headers.push(['Cookie', cookie])
    }
    const sendOptions = this.#sendOptions
    // Authentication may have rewritten the URL (OAuth 1.0a in the query): parsed again then.
    const parsedOut = out.url === url ? parsedUrl : new URL(out.url)
    try {
      response = await send(out, sendOptions, parsedOut)
      if (response.status === 401 && oauth2 !== null && this.#tokens.canRefresh(oauth2)) {
        // is_auto_refresh_token: a refused stored token is refreshed once and the request repeated.
        applyBearer(out, await this.#tokens.refresh(oauth2), oauth2.token_location)
        response = await send(out, sendOptions, new URL(out.url))
      }
    } catch (err) {
      return this.#noResponse(step, result, `the request failed: ${errorMessage(err)}`, out)
    }
    this.#cookies?.store(out.url, response.headers['set-cookie'] ?? [])
    result.url = out.url
    result.request = this.#requestDetail(out)
    result.status_code = response.status
    result.response_status_code = String(response.status)
    result.response_time_ms = response.timeMs
    result.response_size_bytes = response.sizeBytes
    const clipped = clip(response.body, this.#o.maxBodyBytes)
    result.response = {
      status: response.status,
      reason: response.reason,
      headers: response.headers,
      body: clipped.text,
      body_truncated: clipped.truncated,
      size_bytes: response.sizeBytes,
      time_ms: response.timeMs,
    }

    result.variables = list<Variable>(step.variables).map((v) => this.#extract(v, response))
    const scripts = list<string>(step.scripts)
    if (scripts.length > 0) {
      await this.#afterScripts(scripts, result, response, out, formPairs)
    }
    result.assertions = list<Assertion>(step.assertions).map((a) => this.#assert(a, response))
    const failed =
      result.assertions.some((a) => a.result === 'fail') ||
      result.scripts.some((s) => s.result === 'fail')
    result.result = failed ? 'fail' : 'pass'
    return result
  }

  /**
   * Runs a step's scripts after its response. The request and response the scripts see are built
   * here, not for every step: most steps have no script, and these copies are a step's largest.
   */
  async #afterScripts(
    scripts: readonly string[],
    result: StepResult,
    response: ResponseData,
    out: OutgoingRequest,
    formPairs: ReadonlyArray<[string, string]>,
  ): Promise<void> {
    const scriptResponse: ScriptResponse = {
      status: response.status,
      status_code: response.status,
      reason: response.reason,
      headers: Object.fromEntries(
        Object.entries(response.headers).map(([k, v]) => [k, v.join(', ')]),
      ),
      body: response.body,
      response_time_ms: response.timeMs,
      size_bytes: response.sizeBytes,
    }
    const scriptRequest: ScriptRequest = {
      method: out.method,
      url: out.url,
      headers: Object.fromEntries(out.headers),
      body: out.body ?? '',
      form: Object.fromEntries(formPairs),
    }
    for (const source of scripts) {
      const s = await this.#script('script', source, scriptRequest, scriptResponse)
      result.scripts.push({ kind: s.kind, result: s.result, output: s.output, error: s.error })
    }
  }

  /** The environment's headers, less those the step sets itself, then the step's. */
  #withEnvironmentHeaders(stepHeaders: Array<[string, string]>): Array<[string, string]> {
    const stepHeaderNames = new Set(stepHeaders.map(([n]) => n.toLowerCase()))
    return [
      ...this.#environmentHeaders.filter(([n]) => !stepHeaderNames.has(n.toLowerCase())),
      ...stepHeaders,
    ]
  }

  #subAuth(auth: Loose): Loose {
    const out: Loose = {}
    for (const [k, v] of Object.entries(auth)) out[k] = typeof v === 'string' ? this.#sub(v) : v
    return out
  }

  #requestDetail(out: OutgoingRequest): StepResult['request'] {
    const headers: Record<string, string[]> = {}
    for (const [n, v] of out.headers) (headers[n] ??= []).push(v)
    return {
      method: out.method,
      url: out.url,
      headers,
      body: clip(out.body ?? '', this.#o.maxBodyBytes).text,
    }
  }

  /** A request that got no response: the step fails and so does each of its assertions. */
  #noResponse(
    step: RequestStep,
    result: StepResult,
    error: string,
    out?: OutgoingRequest,
  ): StepResult {
    result.result = 'fail'
    result.error = error
    if (out !== undefined) result.request = this.#requestDetail(out)
    result.assertions = list<Assertion>(step.assertions).map((a) => ({
      source: str(a.source),
      property: a.property ?? null,
      comparison: str(a.comparison),
      target_value: a.value ?? null,
      actual_value: null,
      result: 'fail',
      error: 'no response',
    }))
    result.variables = list<Variable>(step.variables).map((v) => ({
      name: str(v.name),
      source: str(v.source),
      property: v.property ?? null,
      value: null,
      result: 'fail',
      error: 'no response',
    }))
    return result
  }

  #extract(variable: Variable, response: ResponseData): VariableResult {
    const name = str(variable.name)
    const base = { name, source: str(variable.source), property: variable.property ?? null }
    if (name === '') {
      return { ...base, value: null, result: 'fail', error: 'the variable has no name' }
    }
    const read = readSource(response, base.source, this.#sub(variable.property))
    if ('error' in read) return { ...base, value: null, result: 'fail', error: read.error }
    if (read.value === undefined) {
      return {
        ...base,
        value: null,
        result: 'fail',
        error: `"${base.property ?? ''}" was not found in the response`,
      }
    }
    const value = textOf(read.value)
    this.#vars.set(name, value)
    return {
      name,
      source: base.source,
      property: base.property,
      value,
      result: 'pass',
      error: null,
    }
  }

  /** The target of a comparison: substituted; a numeric comparison also accepts a bare variable name. */
  #target(comparison: Comparison, value: unknown): string {
    const target = this.#sub(
      value === null || value === undefined
        ? ''
        : typeof value === 'string'
          ? value
          : JSON.stringify(value),
    )
    if (
      comparison !== 'equal_number' &&
      !comparison.startsWith('is_less') &&
      !comparison.startsWith('is_greater')
    ) {
      return target
    }
    if (target.trim() !== '' && Number.isFinite(Number(target))) return target
    return this.#vars.get(target.trim()) ?? target
  }

  #assert(assertion: Assertion, response: ResponseData): AssertionResult {
    const base = {
      source: str(assertion.source),
      property: assertion.property ?? null,
      comparison: str(assertion.comparison),
    }
    const comparison = canonicalComparison(base.comparison)
    if (comparison === null) {
      return {
        ...base,
        target_value: assertion.value ?? null,
        actual_value: null,
        result: 'fail',
        error: `unknown comparison "${base.comparison}"`,
      }
    }
    const target = UNARY.has(comparison) ? null : this.#target(comparison, assertion.value)
    const read = readSource(response, base.source, this.#sub(assertion.property))
    if ('error' in read) {
      return {
        ...base,
        target_value: target,
        actual_value: null,
        result: 'fail',
        error: read.error,
      }
    }
    const outcome = compare(comparison, read.value, target ?? '')
    // Written out rather than spread from `base`: one object per assertion of every step.
    return {
      source: base.source,
      property: base.property,
      comparison: base.comparison,
      target_value: target,
      actual_value: read.value === undefined ? null : read.value,
      result: outcome.pass ? 'pass' : 'fail',
      error: outcome.error,
    }
  }

  async #pause(step: PauseStep, base: StepResult): Promise<StepResult> {
    const duration = Number(step.duration)
    if (!Number.isInteger(duration) || duration < 1 || duration > 120) {
      return {
        ...base,
        result: 'fail',
        error: `duration must be an integer from 1 to 120 seconds, got ${JSON.stringify(step.duration ?? null)}`,
      }
    }
    await this.#o.sleep(duration * 1000, this.#input.signal)
    return { ...base, result: 'pass' }
  }

  async #condition(step: ConditionStep, base: StepResult): Promise<StepResult> {
    const comparison = canonicalComparison(str(step.comparison) || 'equal')
    if (comparison === null) {
      return {
        ...base,
        result: 'fail',
        error: `unknown comparison "${str(step.comparison)}"`,
        steps: [],
      }
    }
    const left = this.#sub(step.left_value)
    const right = UNARY.has(comparison) ? '' : this.#target(comparison, step.right_value)
    const outcome = compare(comparison, left, right)
    if (outcome.error !== null) {
      return { ...base, result: 'fail', error: outcome.error, condition_met: false, steps: [] }
    }
    if (!outcome.pass) return { ...base, result: 'pass', condition_met: false, steps: [] }
    const steps: StepResult[] = []
    for (const nested of list<Loose>(step.steps)) {
      if (this.#aborted()) break
      const r = await this.#step(nested)
      steps.push(r)
      if (r.result === 'fail' && this.#input.environment.stop_on_failure) break
    }
    return {
      ...base,
      result: steps.some((s) => s.result === 'fail') ? 'fail' : 'pass',
      condition_met: true,
      steps,
    }
  }

  async #subtest(step: SubtestStep, base: StepResult): Promise<StepResult> {
    const testId = str(step.test_uuid)
    if (testId === '') return { ...base, result: 'fail', error: 'test_uuid is required' }
    const chain = [...this.#ancestors, this.#input.test.id]
    if (chain.includes(testId)) {
      return {
        ...base,
        result: 'fail',
        error: `the subtest ${testId} would run itself (${[...chain, testId].join(' -> ')})`,
      }
    }
    if (chain.length > this.#o.maxSubtestDepth) {
      return {
        ...base,
        result: 'fail',
        error: `subtests nest deeper than ${this.#o.maxSubtestDepth}`,
      }
    }
    if (this.#input.resolveSubtest === undefined) {
      return { ...base, result: 'fail', error: 'subtests are not available here' }
    }
    const resolved = await this.#input.resolveSubtest({
      test_uuid: testId,
      environment_uuid: str(step.environment_uuid) || null,
      bucket_key: str(step.bucket_key) || null,
    })
    if (resolved === null) {
      return { ...base, result: 'fail', error: `the test ${testId} was not found` }
    }
    // Variables flow in through `params` (values substituted in the parent's variables)...
    const params: Record<string, string> = Object.create(null) as Record<string, string>
    for (const p of list<{ name?: unknown; value?: unknown }>(step.params)) {
      if (str(p.name) !== '') params[str(p.name)] = this.#sub(p.value)
    }
    const runner = new TestRunner(
      {
        test: resolved.test,
        environment: resolved.environment,
        initialVariables: params,
        testRunId: `${this.#input.testRunId}:${base.uuid ?? testId}`,
        resolveSubtest: this.#input.resolveSubtest,
        signal: this.#input.signal,
      },
      { ...this.#o },
      chain,
    )
    const sub = await runner.run()
    // ...and back through the step's `variables` (`subtest_variable`: a variable of the subtest by
    // name; other sources read the subtest's result document as JSON).
    const doc = new ResponseData(
      sub.result === 'pass' ? 200 : 500,
      sub.result,
      {},
      JSON.stringify(sub),
      0,
      Math.round((sub.finished_at - sub.started_at) * 1000),
    )
    const variables = list<Variable>(step.variables).map((v): VariableResult => {
      const source = str(v.source)
      if (source === 'subtest_variable' || source === 'variable' || source === 'variables') {
        const name = str(v.name)
        const wanted = str(v.property) || name
        const value = Object.hasOwn(sub.variables, wanted) ? sub.variables[wanted] : undefined
        if (value === undefined) {
          return {
            name,
            source,
            property: v.property ?? null,
            value: null,
            result: 'fail',
            error: `the subtest has no variable "${str(v.property) || name}"`,
          }
        }
        this.#vars.set(name, value)
        return { name, source, property: v.property ?? null, value, result: 'pass', error: null }
      }
      return this.#extract(v, doc)
    })
    const assertions = list<Assertion>(step.assertions).map((a) => this.#assert(a, doc))
    const pass =
      assertions.length > 0 ? assertions.every((a) => a.result === 'pass') : sub.result === 'pass'
    return {
      ...base,
      result: pass ? 'pass' : 'fail',
      response_time_ms: doc.timeMs,
      assertions,
      variables,
      error: pass ? null : (sub.error ?? (assertions.length > 0 ? null : 'the subtest failed')),
      subtest: sub,
    }
  }

  #externalUi(step: ExternalUiTestStep, base: StepResult): StepResult {
    const assertions = list<Assertion>(step.assertions).map((a): AssertionResult => ({
      source: str(a.source),
      property: a.property ?? null,
      comparison: str(a.comparison),
      target_value: a.value ?? null,
      actual_value: null,
      result: 'fail',
      error: 'integration not configured',
    }))
    return { ...base, result: 'fail', error: EXTERNAL_UI_NOT_CONFIGURED, assertions }
  }
}

/** Every step result, condition bodies included (subtests count in their own run). */
function flatten(results: readonly StepResult[]): StepResult[] {
  const out: StepResult[] = []
  for (const r of results) {
    out.push(r)
    if (r.steps !== undefined) out.push(...flatten(r.steps))
  }
  return out
}
