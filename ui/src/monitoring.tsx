import type { JSX } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ApiError, call, csrf } from './api.js'
import { Alert, Field, Status, useId } from './widgets.js'
import { CellInput, CellSelect, EditableRows } from './rows.js'

/*
 * The monitoring page, shown only when the platform serves the API-monitoring interface (the
 * monitoring specification: `/buckets`, `{data, meta, error}` envelopes). The dashboard's session
 * reaches it as the platform API key it stands for (the monitoring API takes one wherever it takes
 * a token). Run starts the test through its trigger URL, then follows the run until it passes or
 * fails.
 */

/** How often a started run is polled, and for how long at most. */
const FOLLOW_MS = 1000
const FOLLOW_LIMIT_MS = 120_000

interface Bucket {
  key: string
  name: string
}
interface Test {
  id: string
  name: string
  description?: string | null
  trigger_url?: string
}
interface Result {
  result?: string
  started_at?: number
  finished_at?: number
  test_run_id?: string
  environment_name?: string | null
  error?: string | null
  requests?: StepRun[]
  assertions_failed?: number
  assertions_defined?: number
}
interface Assertion {
  source?: string
  property?: string | null
  comparison?: string
  value?: unknown
}
interface Step {
  id: string
  step_type: string
  method?: string | null
  url?: string | null
  note?: string | null
  assertions?: Assertion[] | null
  body?: string | null
}
interface Environment {
  id: string
  name: string
  initial_variables?: Record<string, string> | null
}
interface AssertionRun {
  source: string
  property: string | null
  comparison: string
  target_value: unknown
  actual_value: unknown
  result: string
  error: string | null
}
interface Exchange {
  method?: string
  url?: string
  status?: number
  reason?: string
  headers?: Record<string, string[]>
  body?: string
  time_ms?: number
}
interface StepRun {
  uuid: string | null
  step_type: string
  result: string
  method: string | null
  url: string | null
  status_code: number | null
  response_time_ms: number | null
  assertions?: AssertionRun[]
  error: string | null
  note?: string | null
  request?: Exchange | null
  response?: Exchange | null
  steps?: StepRun[]
}

const enc = encodeURIComponent
const testPath = (bucketKey: string, testId: string): string =>
  `/buckets/${enc(bucketKey)}/tests/${enc(testId)}`
/** The assertion sources and comparisons of the monitoring specification, as its editor offers them. */
const SOURCES = [
  'response_status',
  'response_json',
  'response_text',
  'response_headers',
  'response_time',
  'response_size',
  'response_xml',
] as const
const COMPARISONS = [
  'equal',
  'not_equal',
  'equal_number',
  'is_less_than',
  'is_less_than_or_equal',
  'is_greater_than',
  'is_greater_than_or_equal',
  'contains',
  'does_not_contain',
  'is_empty',
  'is_not_empty',
  'has_key',
  'has_value',
  'is_a_number',
  'is_null',
] as const
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const
const seconds = (t: number | undefined): string =>
  t === undefined ? '' : new Date(t * 1000).toLocaleString()
const show = (v: unknown): string =>
  v === null || v === undefined ? '(none)' : typeof v === 'string' ? v : JSON.stringify(v)

function dataOf<T>(body: unknown): T {
  return (
    body !== null && typeof body === 'object' && 'data' in body ? (body as { data: T }).data : body
  ) as T
}

/** Whether `/buckets` answers: the monitoring page appears only then (a raw fetch: a 401 here is no expired session). */
export async function hasMonitoring(): Promise<boolean> {
  try {
    const res = await fetch('/buckets', {
      headers: {
        'x-requested-with': 'understudy-ui',
        'x-csrf-token': csrf(),
        accept: 'application/json',
      },
    })
    return res.ok
  } catch {
    return false
  }
}

export function Monitoring(): JSX.Element {
  const [buckets, setBuckets] = useState<Bucket[]>([])
  const [error, setError] = useState<unknown>(null)
  const [reload, setReload] = useState(0)
  useEffect(() => {
    call<unknown>('GET', '/buckets').then(
      (r) => setBuckets(dataOf<Bucket[]>(r.result) ?? []),
      setError,
    )
  }, [reload])
  return (
    <section aria-labelledby="monitoring-heading">
      <h1 id="monitoring-heading">Monitoring tests</h1>
      <Alert error={error} />
      <CreateBucket onDone={() => setReload((n) => n + 1)} />
      {buckets.map((b) => (
        <BucketTests key={b.key} bucket={b} />
      ))}
      {buckets.length === 0 && error === null && (
        <p class="muted">No buckets yet: create one to hold tests.</p>
      )}
    </section>
  )
}

/** A bucket in the first team of the signed-in user's account (the monitoring API's `/account`). */
function CreateBucket({ onDone }: { onDone: () => void }): JSX.Element {
  const [name, setName] = useState('')
  const [problem, setProblem] = useState<string | undefined>(undefined)
  const [error, setError] = useState<unknown>(null)
  const submit = (e: Event): void => {
    e.preventDefault()
    if (name.trim() === '') {
      setProblem('The bucket name is required')
      return
    }
    setProblem(undefined)
    call<unknown>('GET', '/account')
      .then(async (r) => {
        const team = dataOf<{ teams?: Array<{ id?: string; uuid?: string }> }>(r.result).teams?.[0]
        const teamId = team?.uuid ?? team?.id
        if (teamId === undefined) {
          throw new ApiError(400, 'Your account has no team to hold a bucket.', 'ERR_UI', [])
        }
        await call('POST', `/buckets?name=${enc(name.trim())}&team_uuid=${enc(teamId)}`)
      })
      .then(() => {
        setName('')
        setError(null)
        onDone()
      }, setError)
  }
  return (
    <form class="inline-form" onSubmit={submit} noValidate aria-label="Create a bucket">
      <Field label="New bucket name" value={name} onInput={setName} error={problem} />
      <button type="submit">Create bucket</button>
      <Alert error={error} />
    </form>
  )
}

function BucketTests({ bucket }: { bucket: Bucket }): JSX.Element {
  const [tests, setTests] = useState<Test[]>([])
  const [error, setError] = useState<unknown>(null)
  const [reload, setReload] = useState(0)
  const [name, setName] = useState('')
  const [problem, setProblem] = useState<string | undefined>(undefined)
  useEffect(() => {
    call<unknown>('GET', `/buckets/${enc(bucket.key)}/tests?count=100`).then(
      (r) => setTests(dataOf<Test[]>(r.result) ?? []),
      setError,
    )
  }, [bucket.key, reload])
  const create = (e: Event): void => {
    e.preventDefault()
    if (name.trim() === '') {
      setProblem('The test name is required')
      return
    }
    setProblem(undefined)
    call('POST', `/buckets/${enc(bucket.key)}/tests`, { name: name.trim(), steps: [] }).then(() => {
      setName('')
      setReload((n) => n + 1)
    }, setError)
  }
  return (
    <>
      <h2>{bucket.name}</h2>
      <Alert error={error} />
      <form
        class="inline-form"
        onSubmit={create}
        noValidate
        aria-label={`Create a test in ${bucket.name}`}
      >
        <Field label="New test name" value={name} onInput={setName} error={problem} />
        <button type="submit">Create test</button>
      </form>
      <ul class="test-list">
        {tests.map((t) => (
          <TestItem
            key={t.id}
            bucketKey={bucket.key}
            test={t}
            onChanged={() => setReload((n) => n + 1)}
          />
        ))}
      </ul>
      {tests.length === 0 && <p class="muted">No tests in this bucket.</p>}
    </>
  )
}

type Panel = 'none' | 'history' | 'steps' | 'environments' | 'edit'

function TestItem({
  bucketKey,
  test,
  onChanged,
}: {
  bucketKey: string
  test: Test
  onChanged: () => void
}): JSX.Element {
  const [last, setLast] = useState<Result | null>(null)
  const [message, setMessage] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [running, setRunning] = useState(false)
  const [panel, setPanel] = useState<Panel>('none')
  const [shownRun, setShownRun] = useState<string | null>(null)
  const [historyVersion, setHistoryVersion] = useState(0)
  const results = `${testPath(bucketKey, test.id)}/results`
  useEffect(() => {
    call<unknown>('GET', `${results}?count=1`).then(
      (r) => setLast(dataOf<Result[]>(r.result)?.[0] ?? null),
      () => setLast(null),
    )
  }, [results])
  // Follows one run (its id from the trigger's answer) until it has a result; a failure opens it.
  const follow = (runId: string, until: number): void => {
    call<unknown>('GET', `${results}/${enc(runId)}`).then(
      (r) => {
        const result = dataOf<Result>(r.result)
        setLast(result)
        if (result.result === 'pass' || result.result === 'fail') {
          setRunning(false)
          setMessage(`Run finished: ${result.result}.`)
          setHistoryVersion((n) => n + 1)
          if (result.result === 'fail') {
            setPanel('history')
            setShownRun(runId)
          }
        } else if (Date.now() < until) {
          setTimeout(() => follow(runId, until), FOLLOW_MS)
        } else {
          setRunning(false)
          setMessage('The run is still going; reload the page later for its result.')
        }
      },
      (err: unknown) => {
        setRunning(false)
        setMessage('')
        setError(err)
      },
    )
  }
  const run = (): void => {
    setError(null)
    setMessage('Starting…')
    setRunning(true)
    // The list view of a test has no trigger URL (as the product's); its detail view has.
    const triggerUrl =
      test.trigger_url !== undefined
        ? Promise.resolve(test.trigger_url)
        : call<unknown>('GET', testPath(bucketKey, test.id)).then(
            (r) => dataOf<Test>(r.result).trigger_url,
          )
    triggerUrl
      .then(async (url) => {
        if (url === undefined) {
          throw new ApiError(400, 'This test has no trigger URL.', 'ERR_UI', [])
        }
        return await call<unknown>('POST', new URL(url, window.location.origin).pathname)
      })
      .then(
        (r) => {
          const started = dataOf<{ runs?: Array<{ test_run_id?: string; status?: string }> }>(
            r.result,
          )
          const runId = started.runs?.[0]?.test_run_id
          if (runId === undefined) {
            setRunning(false)
            setMessage('')
            setError(
              new ApiError(
                400,
                'The run did not start (the test may have no environment).',
                'ERR_UI',
                [],
              ),
            )
            return
          }
          setMessage('Running…')
          follow(runId, Date.now() + FOLLOW_LIMIT_MS)
        },
        (err: unknown) => {
          setRunning(false)
          setMessage('')
          setError(err)
        },
      )
  }
  const toggle = (p: Panel): void => setPanel(panel === p ? 'none' : p)
  return (
    <li class="test-item">
      <div class="test-head">
        <div>
          <strong>{test.name}</strong>
          {test.description !== undefined &&
            test.description !== null &&
            test.description !== '' && <div class="muted">{test.description}</div>}
        </div>
        <div>
          {last === null ? (
            <span class="muted">never run</span>
          ) : (
            <span
              class={`badge ${last.result === 'pass' ? 'running' : last.result === 'fail' ? 'failed' : 'pending'}`}
            >
              {last.result ?? 'running'}
            </span>
          )}
        </div>
        <div class="actions">
          <button type="button" onClick={run} disabled={running} aria-label={`Run ${test.name}`}>
            Run
          </button>
          <button
            type="button"
            class="secondary"
            aria-expanded={panel === 'history'}
            onClick={() => toggle('history')}
            aria-label={`Runs of ${test.name}`}
          >
            Runs
          </button>
          <button
            type="button"
            class="secondary"
            aria-expanded={panel === 'steps'}
            onClick={() => toggle('steps')}
            aria-label={`Steps of ${test.name}`}
          >
            Steps
          </button>
          <button
            type="button"
            class="secondary"
            aria-expanded={panel === 'environments'}
            onClick={() => toggle('environments')}
            aria-label={`Environments of ${test.name}`}
          >
            Environments
          </button>
          <button
            type="button"
            class="secondary"
            aria-expanded={panel === 'edit'}
            onClick={() => toggle('edit')}
            aria-label={`Edit ${test.name}`}
          >
            Edit
          </button>
        </div>
      </div>
      {message !== '' && <Status>{message}</Status>}
      <Alert error={error} />
      {panel === 'history' && (
        <RunHistory
          results={results}
          version={historyVersion}
          shown={shownRun}
          onShow={setShownRun}
        />
      )}
      {panel === 'steps' && <Steps bucketKey={bucketKey} testId={test.id} />}
      {panel === 'environments' && <Environments bucketKey={bucketKey} testId={test.id} />}
      {panel === 'edit' && (
        <EditTest
          bucketKey={bucketKey}
          test={test}
          onSaved={() => {
            setPanel('none')
            onChanged()
          }}
        />
      )}
    </li>
  )
}

function EditTest({
  bucketKey,
  test,
  onSaved,
}: {
  bucketKey: string
  test: Test
  onSaved: () => void
}): JSX.Element {
  const [name, setName] = useState(test.name)
  const [description, setDescription] = useState(test.description ?? '')
  const [error, setError] = useState<unknown>(null)
  const [problem, setProblem] = useState<string | undefined>(undefined)
  const save = (e: Event): void => {
    e.preventDefault()
    if (name.trim() === '') {
      setProblem('The test name is required')
      return
    }
    call('PUT', testPath(bucketKey, test.id), { name: name.trim(), description }).then(
      onSaved,
      setError,
    )
  }
  return (
    <form class="panel" onSubmit={save} noValidate aria-label={`Edit test ${test.name}`}>
      <Field label="Test name" value={name} onInput={setName} error={problem} required />
      <Field label="Test description" value={description} onInput={setDescription} />
      <button type="submit">Save test</button>
      <Alert error={error} />
    </form>
  )
}

/** The newest runs of a test, with times and results; one opens to its steps and reasons. */
function RunHistory({
  results,
  version,
  shown,
  onShow,
}: {
  results: string
  version: number
  shown: string | null
  onShow: (id: string | null) => void
}): JSX.Element {
  const [runs, setRuns] = useState<Result[]>([])
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    call<unknown>('GET', `${results}?count=20`).then(
      (r) => setRuns(dataOf<Result[]>(r.result) ?? []),
      setError,
    )
  }, [results, version])
  return (
    <div class="panel">
      <h3>Runs</h3>
      <Alert error={error} />
      {runs.length === 0 && <p class="muted">No runs yet.</p>}
      <table class="stack">
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Took</th>
            <th scope="col">Environment</th>
            <th scope="col">Result</th>
            <th scope="col">
              <span class="visually-hidden">Details</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.test_run_id}>
              <td data-label="Started">{seconds(r.started_at)}</td>
              <td data-label="Took">
                {r.started_at !== undefined && r.finished_at !== undefined
                  ? `${Math.round((r.finished_at - r.started_at) * 1000)} ms`
                  : ''}
              </td>
              <td data-label="Environment">{r.environment_name ?? ''}</td>
              <td data-label="Result">
                <span
                  class={`badge ${r.result === 'pass' ? 'running' : r.result === 'fail' ? 'failed' : 'pending'}`}
                >
                  {r.result ?? 'running'}
                </span>
              </td>
              <td>
                <button
                  type="button"
                  class="small"
                  aria-expanded={shown === r.test_run_id}
                  onClick={() => onShow(shown === r.test_run_id ? null : (r.test_run_id ?? null))}
                >
                  {shown === r.test_run_id ? 'Hide' : 'Details'}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown !== null && <RunDetail url={`${results}/${enc(shown)}`} />}
    </div>
  )
}

/** One run: each step with its assertions (expected beside actual), and the exchange of a failed step. */
function RunDetail({ url }: { url: string }): JSX.Element {
  const [run, setRun] = useState<Result | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    call<unknown>('GET', url).then((r) => setRun(dataOf<Result>(r.result)), setError)
  }, [url])
  if (run === null) {
    return (
      <>
        <Alert error={error} />
        {error === null && <p role="status">Loading the run…</p>}
      </>
    )
  }
  return (
    <div class="run-detail">
      <h3>
        Run of {seconds(run.started_at)}:{' '}
        <span class={run.result === 'fail' ? 'fail-text' : 'pass-text'}>{run.result}</span>
      </h3>
      {run.error !== undefined && run.error !== null && run.error !== '' && (
        <p class="alert">{run.error}</p>
      )}
      <ol class="step-runs">
        {(run.requests ?? []).map((s, i) => (
          <StepRunView key={i} step={s} />
        ))}
      </ol>
    </div>
  )
}

function StepRunView({ step }: { step: StepRun }): JSX.Element {
  const failed = step.result === 'fail'
  const assertions = step.assertions ?? []
  return (
    <li class={failed ? 'step-run failed' : 'step-run'}>
      <p>
        <span class={`badge ${failed ? 'failed' : step.result === 'pass' ? 'running' : 'pending'}`}>
          {step.result}
        </span>{' '}
        {step.step_type === 'request' ? (
          <>
            <span class="method">{step.method}</span> <code>{step.url}</code>
            {step.status_code !== null && (
              <>
                {' '}
                answered <strong>{step.status_code}</strong>
              </>
            )}
            {step.response_time_ms !== null && <> in {step.response_time_ms} ms</>}
          </>
        ) : (
          <span>
            {step.step_type} step
            {step.note !== undefined && step.note !== null ? `: ${step.note}` : ''}
          </span>
        )}
      </p>
      {step.error !== null && step.error !== '' && <p class="fail-text">{step.error}</p>}
      {assertions.length > 0 && (
        <table class="diff assertions">
          <caption>
            Assertions: {assertions.filter((a) => a.result === 'pass').length} of{' '}
            {assertions.length} passed
          </caption>
          <thead>
            <tr>
              <th scope="col">Assertion</th>
              <th scope="col">Expected</th>
              <th scope="col">Actual</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {assertions.map((a, i) => (
              <tr key={i} class={a.result === 'fail' ? 'failed' : ''}>
                <th scope="row">
                  {a.source}
                  {a.property !== null && a.property !== '' ? ` ${a.property}` : ''}{' '}
                  <span class="muted">{a.comparison}</span>
                </th>
                <td class="expected">
                  <code>{show(a.target_value)}</code>
                </td>
                <td class="actual">
                  <code>{show(a.actual_value)}</code>
                  {a.error !== null && a.error !== '' && <div class="fail-text">{a.error}</div>}
                </td>
                <td>
                  <span class={`badge ${a.result === 'fail' ? 'failed' : 'running'}`}>
                    {a.result}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {step.request !== undefined && step.request !== null && (
        <details class="exchange" open={failed}>
          <summary>Request and response</summary>
          <div class="card">
            <div>
              <h4>Request</h4>
              <p>
                <span class="method">{step.request.method}</span> <code>{step.request.url}</code>
              </p>
              <Headers headers={step.request.headers} />
              {step.request.body !== undefined && step.request.body !== '' && (
                <pre tabIndex={0}>{step.request.body}</pre>
              )}
            </div>
            <div>
              <h4>Response</h4>
              {step.response === undefined || step.response === null ? (
                <p class="muted">No response.</p>
              ) : (
                <>
                  <p>
                    Status <strong>{step.response.status}</strong> {step.response.reason}
                  </p>
                  <Headers headers={step.response.headers} />
                  <pre tabIndex={0}>{step.response.body}</pre>
                </>
              )}
            </div>
          </div>
        </details>
      )}
      {(step.steps ?? []).length > 0 && (
        <ol class="step-runs">
          {(step.steps ?? []).map((s, i) => (
            <StepRunView key={i} step={s} />
          ))}
        </ol>
      )}
    </li>
  )
}

function Headers({
  headers,
}: {
  headers?: Record<string, string[]> | undefined
}): JSX.Element | null {
  if (headers === undefined) return null
  return (
    <ul class="headers">
      {Object.entries(headers).flatMap(([k, vs]) =>
        vs.map((v, i) => (
          <li key={`${k}${i}`}>
            <code>
              {k}: {v}
            </code>
          </li>
        )),
      )}
    </ul>
  )
}

/** The request steps of a test: listed, added, edited (method, URL, assertions as rows), deleted. */
function Steps({ bucketKey, testId }: { bucketKey: string; testId: string }): JSX.Element {
  const [steps, setSteps] = useState<Step[]>([])
  const [error, setError] = useState<unknown>(null)
  const [reload, setReload] = useState(0)
  const [editing, setEditing] = useState<string | null>(null)
  const base = `${testPath(bucketKey, testId)}/steps`
  useEffect(() => {
    call<unknown>('GET', base).then((r) => setSteps(dataOf<Step[]>(r.result) ?? []), setError)
  }, [base, reload])
  const done = (): void => {
    setEditing(null)
    setReload((n) => n + 1)
  }
  const remove = (id: string): void => {
    call('DELETE', `${base}/${enc(id)}`).then(done, setError)
  }
  return (
    <div class="panel">
      <h3>Steps</h3>
      <Alert error={error} />
      <ol class="steps">
        {steps.map((s, i) => (
          <li key={s.id}>
            {s.step_type === 'request' ? (
              <>
                <span class="method">{s.method}</span> <code>{s.url}</code>{' '}
                <span class="muted">
                  {(s.assertions ?? []).length} assertion
                  {(s.assertions ?? []).length === 1 ? '' : 's'}
                </span>
              </>
            ) : (
              <span>{s.step_type} step</span>
            )}{' '}
            {s.step_type === 'request' && (
              <button
                type="button"
                class="small"
                onClick={() => setEditing(editing === s.id ? null : s.id)}
                aria-label={`Edit step ${i + 1}`}
              >
                Edit
              </button>
            )}{' '}
            <button
              type="button"
              class="small danger"
              onClick={() => remove(s.id)}
              aria-label={`Delete step ${i + 1}`}
            >
              Delete
            </button>
            {editing === s.id && (
              <StepForm
                initial={s}
                submitLabel="Save step"
                onSave={async (body) => {
                  await call('PUT', `${base}/${enc(s.id)}`, body)
                  done()
                }}
              />
            )}
          </li>
        ))}
      </ol>
      {steps.length === 0 && <p class="muted">No steps yet.</p>}
      {editing === 'new' ? (
        <StepForm
          initial={{
            id: '',
            step_type: 'request',
            method: 'GET',
            url: 'https://',
            assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
          }}
          submitLabel="Add step"
          onSave={async (body) => {
            await call('POST', base, body)
            done()
          }}
        />
      ) : (
        <button type="button" class="small" onClick={() => setEditing('new')}>
          Add a request step
        </button>
      )}
    </div>
  )
}

interface AssertionRow {
  source: string
  property: string
  comparison: string
  value: string
}

function StepForm({
  initial,
  submitLabel,
  onSave,
}: {
  initial: Step
  submitLabel: string
  onSave: (body: Record<string, unknown>) => Promise<void>
}): JSX.Element {
  const [method, setMethod] = useState(initial.method ?? 'GET')
  const [url, setUrl] = useState(initial.url ?? '')
  const [body, setBody] = useState(initial.body ?? '')
  const [rows, setRows] = useState<AssertionRow[]>(
    (initial.assertions ?? []).map((a) => ({
      source: a.source ?? 'response_status',
      property: a.property ?? '',
      comparison: a.comparison ?? 'equal',
      value: a.value === undefined || a.value === null ? '' : String(a.value),
    })),
  )
  const [problem, setProblem] = useState<string | undefined>(undefined)
  const [error, setError] = useState<unknown>(null)
  const methodId = useId('step-method')
  const save = (e: Event): void => {
    e.preventDefault()
    if (!/^(https?:\/\/\S+|\{\{[^}]+\}\}\S*)$/.test(url.trim())) {
      setProblem('The URL must start with http:// or https:// (or a {{variable}})')
      return
    }
    setProblem(undefined)
    const assertions = rows.map((r) => ({
      source: r.source,
      comparison: r.comparison,
      ...(r.property.trim() === '' ? {} : { property: r.property.trim() }),
      ...(r.value === ''
        ? {}
        : {
            value:
              /^-?\d+(\.\d+)?$/.test(r.value) &&
              (r.comparison.includes('number') ||
                r.comparison.startsWith('is_') ||
                r.source === 'response_status')
                ? Number(r.value)
                : r.value,
          }),
    }))
    onSave({
      step_type: 'request',
      method,
      url: url.trim(),
      ...(body === '' ? {} : { body }),
      assertions,
    }).then(() => setError(null), setError)
  }
  return (
    <form
      class="step-form"
      onSubmit={save}
      noValidate
      aria-label={`${submitLabel}: ${initial.url ?? 'new step'}`}
    >
      <div class="form-grid">
        <div class="field">
          <label for={methodId}>Method</label>
          <select
            id={methodId}
            value={method}
            onChange={(e) => setMethod((e.currentTarget as HTMLSelectElement).value)}
          >
            {METHODS.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </div>
        <Field label="URL" value={url} onInput={setUrl} error={problem} required />
      </div>
      {method !== 'GET' && method !== 'HEAD' && (
        <Field label="Request body" value={body} onInput={setBody} multiline rows={4} />
      )}
      <EditableRows
        caption="Assertions"
        columns={['Source', 'Property', 'Comparison', 'Expected value']}
        rows={rows}
        noun="assertion"
        onChange={setRows}
        newRow={() => ({
          source: 'response_status',
          property: '',
          comparison: 'equal_number',
          value: '200',
        })}
        cells={(r, i, change) => [
          <CellSelect
            key="source"
            label={`Source of assertion ${i + 1}`}
            value={r.source}
            options={SOURCES}
            onChange={(v) => change({ source: v })}
          />,
          <CellInput
            key="property"
            label={`Property of assertion ${i + 1}`}
            value={r.property}
            onInput={(v) => change({ property: v })}
          />,
          <CellSelect
            key="comparison"
            label={`Comparison of assertion ${i + 1}`}
            value={r.comparison}
            options={COMPARISONS}
            onChange={(v) => change({ comparison: v })}
          />,
          <CellInput
            key="value"
            label={`Expected value of assertion ${i + 1}`}
            value={r.value}
            onInput={(v) => change({ value: v })}
          />,
        ]}
      />
      <div class="actions">
        <button type="submit">{submitLabel}</button>
      </div>
      <Alert error={error} />
    </form>
  )
}

/** The test's own environments: listed, created, their initial variables edited as rows. */
function Environments({ bucketKey, testId }: { bucketKey: string; testId: string }): JSX.Element {
  const [list, setList] = useState<Environment[]>([])
  const [error, setError] = useState<unknown>(null)
  const [reload, setReload] = useState(0)
  const [name, setName] = useState('')
  const [problem, setProblem] = useState<string | undefined>(undefined)
  const base = `${testPath(bucketKey, testId)}/environments`
  useEffect(() => {
    call<unknown>('GET', base).then((r) => setList(dataOf<Environment[]>(r.result) ?? []), setError)
  }, [base, reload])
  const create = (e: Event): void => {
    e.preventDefault()
    if (name.trim() === '') {
      setProblem('The environment name is required')
      return
    }
    setProblem(undefined)
    call('POST', base, { name: name.trim(), initial_variables: {} }).then(() => {
      setName('')
      setReload((n) => n + 1)
    }, setError)
  }
  return (
    <div class="panel">
      <h3>Environments</h3>
      <Alert error={error} />
      {list.map((env) => (
        <EnvironmentForm
          key={env.id}
          url={`${base}/${enc(env.id)}`}
          env={env}
          onSaved={() => setReload((n) => n + 1)}
        />
      ))}
      <form class="inline-form" onSubmit={create} noValidate aria-label="Create an environment">
        <Field label="New environment name" value={name} onInput={setName} error={problem} />
        <button type="submit">Create environment</button>
      </form>
    </div>
  )
}

function EnvironmentForm({
  url,
  env,
  onSaved,
}: {
  url: string
  env: Environment
  onSaved: () => void
}): JSX.Element {
  const [rows, setRows] = useState<Array<{ name: string; value: string }>>(
    Object.entries(env.initial_variables ?? {}).map(([name, value]) => ({ name, value })),
  )
  const [message, setMessage] = useState('')
  const [problem, setProblem] = useState<string | undefined>(undefined)
  const [error, setError] = useState<unknown>(null)
  const save = (e: Event): void => {
    e.preventDefault()
    const named = rows.filter((r) => r.name.trim() !== '' || r.value !== '')
    if (named.some((r) => r.name.trim() === '')) {
      setProblem('Every variable needs a name')
      return
    }
    setProblem(undefined)
    call('PUT', url, {
      initial_variables: Object.fromEntries(named.map((r) => [r.name.trim(), r.value])),
    }).then(() => {
      setMessage(`Saved ${env.name}.`)
      setError(null)
      onSaved()
    }, setError)
  }
  return (
    <form class="env-form" onSubmit={save} noValidate aria-label={`Variables of ${env.name}`}>
      <h4>{env.name}</h4>
      <EditableRows
        caption="Initial variables"
        columns={['Name', 'Value']}
        rows={rows}
        noun="variable"
        of={env.name}
        addLabel={`Add a variable to ${env.name}`}
        onChange={setRows}
        newRow={() => ({ name: '', value: '' })}
        cells={(r, i, change) => [
          <CellInput
            key="name"
            label={`Name of variable ${i + 1} of ${env.name}`}
            value={r.name}
            onInput={(v) => change({ name: v })}
          />,
          <CellInput
            key="value"
            label={`Value of variable ${i + 1} of ${env.name}`}
            value={r.value}
            onInput={(v) => change({ value: v })}
          />,
        ]}
      />
      {problem !== undefined && <p class="field-error">{problem}</p>}
      <div class="actions">
        <button type="submit" aria-label={`Save ${env.name}`}>
          Save
        </button>
      </div>
      {message !== '' && <Status>{message}</Status>}
      <Alert error={error} />
    </form>
  )
}
