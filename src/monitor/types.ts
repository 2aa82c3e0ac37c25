import type { EgressPolicy } from '../net/index.js'
/*
 * The runner's contract: steps, environments and results in the JSON shape of the monitoring API
 * (snake_case, as the product's exports and clients use them). The runner reads these shapes and
 * nothing else; the API stores them as sent and hands them over
 * (docs/decisions.md#monitoring-shapes-as-sent).
 */

/** Header or form values as the product stores them: a string or a list of strings. */
export type MultiValue = string | string[]
export type MultiMap = Record<string, MultiValue>

export interface Assertion {
  source: string
  /** A path into the response (JSON dotted path, header name, XPath); absent or '' = the whole source. */
  property?: string | null
  comparison: string
  /** The target; may hold `{{variables}}`. Ignored by `empty`, `not_empty`, `is_a_number`, `is_null`. */
  value?: string | number | boolean | null
}

/** A variable extracted from the response (`source`: the assertion sources and `json`, `xml`, `status_code`...). */
export interface Variable {
  name: string
  source: string
  property?: string | null
}

interface BasicAuth {
  auth_type: 'basic'
  username?: string
  password?: string
}

export interface OAuth1Auth {
  auth_type: 'oauth_1'
  consumer_key?: string
  consumer_secret?: string
  access_token?: string
  token_secret?: string
  /** Where the signature goes; default `auth_header`. */
  signature_type?: 'auth_header' | 'query' | 'body'
}

export interface OAuth2Auth {
  auth_type: 'oauth_2'
  grant_type?:
    | 'authorization_code'
    | 'authorization_code_pkce'
    | 'implicit'
    | 'password_credentials'
    | 'client_credentials'
  access_token?: string
  /** `auth_header` (default) or `query` (`access_token=`). */
  token_location?: 'query' | 'auth_header'
  auth_url?: string
  access_token_url?: string
  client_id?: string
  client_secret?: string
  username?: string
  password?: string
  scope?: string
  state?: string
  code_challenge_method?: 'plain' | 'S256'
  code_verifier?: string
  /** `basic_auth_header` (default) or `body`. */
  client_authentication?: 'basic_auth_header' | 'body'
  refresh_token?: string
  is_auto_refresh_token?: boolean
}

/** `{}` (no auth) or one of the variants, selected by `auth_type`. */
export type StepAuth =
  BasicAuth | OAuth1Auth | OAuth2Auth | { auth_type?: undefined } | Record<string, never>

interface StepCommon {
  id?: string
  note?: string | null
  /** A skipped step is reported as skipped and not executed. */
  skipped?: boolean | null
}

export interface RequestStep extends StepCommon {
  step_type: 'request'
  method?: string | null
  url?: string | null
  headers?: MultiMap | null
  body?: string | null
  /** Form fields, sent `application/x-www-form-urlencoded` when there is no raw body. */
  form?: MultiMap | null
  auth?: StepAuth | null
  assertions?: Assertion[] | null
  variables?: Variable[] | null
  /** Post-response scripts. */
  scripts?: string[] | null
  /** Pre-request scripts. */
  before_scripts?: string[] | null
}

export interface PauseStep extends StepCommon {
  step_type: 'pause'
  /** Seconds, 1 to 120. */
  duration?: number | null
}

export interface ConditionStep extends StepCommon {
  step_type: 'condition'
  left_value?: string | null
  comparison?: string | null
  right_value?: string | null
  steps?: Step[] | null
}

export interface SubtestStep extends StepCommon {
  step_type: 'subtest'
  /** The test to run (same bucket). */
  test_uuid?: string | null
  /** Its environment; absent = the subtest's default environment. */
  environment_uuid?: string | null
  bucket_key?: string | null
  /** Variables passed in: `{name, value}` (value may hold `{{variables}}`). */
  params?: Array<{ name: string; value: string }> | null
  /** Variables read back from the subtest's final variables (`source` = `subtest_variable`, `property` its name). */
  variables?: Variable[] | null
  assertions?: Assertion[] | null
  use_parent_environment?: boolean | null
}

export interface ExternalUiTestStep extends StepCommon {
  step_type: 'external-ui-test'
  integration_id?: string | null
  suite_id?: string | null
  test_id?: string | null
  is_custom_start_url?: boolean | null
  start_url?: string | null
  assertions?: Assertion[] | null
  variables?: Variable[] | null
}

export type Step = RequestStep | PauseStep | ConditionStep | SubtestStep | ExternalUiTestStep

/** `all` (every run), `failures` (failed runs), `threshold` (after `notify_threshold` consecutive failures). */
export type NotifyOn = 'all' | 'failures' | 'threshold'

export interface EmailRecipient {
  email: string
  name?: string | null
  id?: string | null
}

export interface EmailSettings {
  notify_all?: boolean | null
  notify_on?: NotifyOn | string | null
  notify_threshold?: number | null
  recipients?: EmailRecipient[] | null
}

/** An environment as stored (the API's environment resource, any field possibly null). */
export interface EnvironmentDoc {
  id?: string
  name?: string | null
  parent_environment_id?: string | null
  initial_variables?: Record<string, string> | null
  headers?: MultiMap | null
  script?: string | null
  preview_script?: string | null
  script_library?: string[] | null
  verify_ssl?: boolean | null
  preserve_cookies?: boolean | null
  stop_on_failure?: boolean | null
  retry_on_failure?: boolean | null
  client_certificate?: string | null
  http_version_support?: string | null
  force_h2c?: boolean | null
  auth?: StepAuth | null
  webhooks?: string[] | null
  emails?: EmailSettings | null
  regions?: string[] | null
  [key: string]: unknown
}

export type HttpVersionSupport = 'h1_1' | 'h2'

/** An environment after parent inheritance (mergeEnvironments): every field present. */
export interface ResolvedEnvironment {
  id: string | null
  name: string | null
  initial_variables: Record<string, string>
  headers: Record<string, string[]>
  /** Scripts run before the test's first step: the ancestors' first, then the environment's. */
  scripts: string[]
  verify_ssl: boolean
  preserve_cookies: boolean
  stop_on_failure: boolean
  client_certificate: string | null
  /** `h1_1` HTTP/1.1 only; `h2` HTTP/2 where an https server offers it (ALPN). */
  http_version_support: HttpVersionSupport
  /** Plain http:// requests as HTTP/2 with prior knowledge (h2c). */
  force_h2c: boolean
  webhooks: string[]
  emails: {
    notify_all: boolean
    notify_on: NotifyOn
    notify_threshold: number
    recipients: EmailRecipient[]
  }
}

/** A test as the runner needs it. */
export interface RunnableTest {
  id: string
  name: string
  steps: Step[]
  bucket_key?: string
}

export type Outcome = 'pass' | 'fail'

export interface AssertionResult {
  source: string
  property: string | null
  comparison: string
  target_value: unknown
  actual_value: unknown
  result: Outcome
  error: string | null
}

export interface VariableResult {
  name: string
  source: string
  property: string | null
  value: string | null
  result: Outcome
  error: string | null
}

export interface ScriptResult {
  /** `before_script`, `script` or `environment_script`. */
  kind: 'before_script' | 'script' | 'environment_script'
  result: Outcome
  /** Lines printed by `log()` and `console.log()`. */
  output: string
  error: string | null
}

/** What was sent, after substitution (headers as sent; body truncated to `maxBodyBytes`). */
export interface RequestDetail {
  method: string
  url: string
  headers: Record<string, string[]>
  body: string
}

export interface ResponseDetail {
  status: number
  reason: string
  headers: Record<string, string[]>
  body: string
  body_truncated: boolean
  size_bytes: number
  time_ms: number
}

/** One executed step, in the product's `requests` list (every step type appears, with its `step_type`). */
export interface StepResult {
  /** The step's id. */
  uuid: string | null
  step_type: Step['step_type']
  /** `pass`, `fail`, or `skipped` (a skipped step, a condition that did not hold). */
  result: Outcome | 'skipped'
  method: string | null
  url: string | null
  status_code: number | null
  /** The product's name of `status_code` (a string in its results). */
  response_status_code: string | null
  response_time_ms: number | null
  response_size_bytes: number | null
  assertions: AssertionResult[]
  variables: VariableResult[]
  scripts: ScriptResult[]
  /** Why the step failed when nothing else says it (connection refused, integration not configured...). */
  error: string | null
  note: string | null
  request: RequestDetail | null
  response: ResponseDetail | null
  /** A condition step: whether its comparison held (its nested steps ran). */
  condition_met?: boolean
  /** Nested steps of a condition. */
  steps?: StepResult[]
  /** The run of a subtest step. */
  subtest?: TestRunResult
}

export interface NotificationReport {
  channel: 'webhook' | 'email'
  target: string
  result: 'sent' | 'failed' | 'skipped'
  note: string | null
}

/** A finished run in the product's result shape. */
export interface TestRunResult {
  test_run_id: string
  test_id: string
  test_name: string
  environment_id: string | null
  environment_name: string | null
  result: Outcome
  /** Epoch seconds with fraction. */
  started_at: number
  finished_at: number
  requests_executed: number
  assertions_defined: number
  assertions_passed: number
  assertions_failed: number
  variables_defined: number
  variables_passed: number
  variables_failed: number
  scripts_defined: number
  scripts_passed: number
  scripts_failed: number
  initial_variables: Record<string, string>
  /** The variables at the end of the run. */
  variables: Record<string, string>
  /** Environment scripts' results (the product shows them with the run). */
  scripts: ScriptResult[]
  requests: StepResult[]
  /** Why the run failed as a whole (aborted, subtest depth...), else null. */
  error: string | null
}

export interface SubtestRef {
  test_uuid: string
  environment_uuid: string | null
  bucket_key: string | null
}

export interface ProgressEvent {
  kind: 'step'
  step: StepResult
}

export interface RunInput {
  test: RunnableTest
  environment: ResolvedEnvironment
  /** Trigger variables; they override the environment's initial variables. */
  initialVariables?: Record<string, string>
  testRunId: string
  /** Loads a subtest; null when it does not exist (the step fails). */
  resolveSubtest?: (
    ref: SubtestRef,
  ) => Promise<{ test: RunnableTest; environment: ResolvedEnvironment } | null>
  signal?: AbortSignal | undefined
  onProgress?: (event: ProgressEvent) => void
}

export interface RunOptions {
  /** Per request timeout; default 30 000 ms. */
  requestTimeoutMs?: number
  /** Response bodies kept in the result; default 64 KiB. */
  maxBodyBytes?: number
  /** Script limits; defaults 1000 ms and 32 MiB per script. */
  scriptTimeMs?: number
  scriptMemoryBytes?: number
  /** Pause steps sleep through this (tests shorten pauses); default setTimeout. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  /** Subtest nesting limit; default 5. */
  maxSubtestDepth?: number
  /** The clock (epoch ms). */
  now?: () => number
  /** Where steps, their OAuth token requests and notifications may go (docs/security.md "Egress"); default the default policy. */
  egress?: EgressPolicy
}
