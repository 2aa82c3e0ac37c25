import type { JSX } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ApiError, call, csrf } from './api.js'
import { Alert, Status } from './widgets.js'

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

interface Bucket { key: string; name: string }
interface Test { id: string; name: string; description?: string | null; trigger_url?: string }
interface Result { result?: string; started_at?: number; finished_at?: number; test_run_id?: string }

function dataOf<T> (body: unknown): T {
  return (body !== null && typeof body === 'object' && 'data' in body ? (body as { data: T }).data : body) as T
}

/** Whether `/buckets` answers: the monitoring page appears only then (a raw fetch: a 401 here is no expired session). */
export async function hasMonitoring (): Promise<boolean> {
  try {
    const res = await fetch('/buckets', { headers: { 'x-requested-with': 'understudy-ui', 'x-csrf-token': csrf(), accept: 'application/json' } })
    return res.ok
  } catch {
    return false
  }
}

export function Monitoring (): JSX.Element {
  const [buckets, setBuckets] = useState<Bucket[]>([])
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    call<unknown>('GET', '/buckets').then((r) => setBuckets(dataOf<Bucket[]>(r.result) ?? []), setError)
  }, [])
  return (
    <section aria-labelledby='monitoring-heading'>
      <h1 id='monitoring-heading'>Monitoring tests</h1>
      <Alert error={error} />
      {buckets.map((b) => <BucketTests key={b.key} bucket={b} />)}
      {buckets.length === 0 && error === null && <p class='muted'>No buckets yet.</p>}
    </section>
  )
}

function BucketTests ({ bucket }: { bucket: Bucket }): JSX.Element {
  const [tests, setTests] = useState<Test[]>([])
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    call<unknown>('GET', `/buckets/${encodeURIComponent(bucket.key)}/tests?count=100`).then((r) => setTests(dataOf<Test[]>(r.result) ?? []), setError)
  }, [bucket.key])
  return (
    <>
      <h2>{bucket.name}</h2>
      <Alert error={error} />
      <table>
        <thead><tr><th scope='col'>Test</th><th scope='col'>Last result</th><th scope='col'>Actions</th></tr></thead>
        <tbody>
          {tests.map((t) => <TestRow key={t.id} bucketKey={bucket.key} test={t} />)}
          {tests.length === 0 && <tr><td colSpan={3}>No tests in this bucket.</td></tr>}
        </tbody>
      </table>
    </>
  )
}

function TestRow ({ bucketKey, test }: { bucketKey: string; test: Test }): JSX.Element {
  const [last, setLast] = useState<Result | null>(null)
  const [message, setMessage] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [running, setRunning] = useState(false)
  const results = `/buckets/${encodeURIComponent(bucketKey)}/tests/${encodeURIComponent(test.id)}/results`
  useEffect(() => {
    call<unknown>('GET', `${results}?count=1`).then((r) => setLast(dataOf<Result[]>(r.result)?.[0] ?? null), () => setLast(null))
  }, [results])
  // Follows one run (its id from the trigger's answer) until it has a result.
  const follow = (runId: string, until: number): void => {
    call<unknown>('GET', `${results}/${encodeURIComponent(runId)}`).then((r) => {
      const result = dataOf<Result>(r.result)
      setLast(result)
      if (result.result === 'pass' || result.result === 'fail') {
        setRunning(false)
        setMessage(`Run finished: ${result.result}.`)
      } else if (Date.now() < until) {
        setTimeout(() => follow(runId, until), FOLLOW_MS)
      } else {
        setRunning(false)
        setMessage('The run is still going; reload the page later for its result.')
      }
    }, (err: unknown) => { setRunning(false); setMessage(''); setError(err) })
  }
  const run = (): void => {
    setError(null)
    setMessage('Starting…')
    setRunning(true)
    // The list view of a test has no trigger URL (as the product's); its detail view has.
    const detail = `/buckets/${encodeURIComponent(bucketKey)}/tests/${encodeURIComponent(test.id)}`
    const triggerUrl = test.trigger_url !== undefined ? Promise.resolve(test.trigger_url) : call<unknown>('GET', detail).then((r) => dataOf<Test>(r.result).trigger_url)
    triggerUrl.then(async (url) => {
      if (url === undefined) throw new ApiError(400, 'This test has no trigger URL.', 'ERR_UI', [])
      return await call<unknown>('POST', new URL(url, window.location.origin).pathname)
    }).then((r) => {
      const started = dataOf<{ runs?: Array<{ test_run_id?: string; status?: string }> }>(r.result)
      const runId = started.runs?.[0]?.test_run_id
      if (runId === undefined) {
        setRunning(false)
        setMessage('')
        setError(new ApiError(400, 'The run did not start (the test may have no environment).', 'ERR_UI', []))
        return
      }
      setMessage('Running…')
      follow(runId, Date.now() + FOLLOW_LIMIT_MS)
    }, (err: unknown) => { setRunning(false); setMessage(''); setError(err) })
  }
  return (
    <tr>
      <td>{test.name}{test.description !== undefined && test.description !== null && test.description !== '' && <div class='muted'>{test.description}</div>}</td>
      <td>{last === null ? <span class='muted'>never run</span> : <span class={`badge ${last.result === 'pass' ? 'running' : last.result === 'fail' ? 'failed' : 'pending'}`}>{last.result ?? 'running'}</span>}</td>
      <td class='actions'>
        <button type='button' onClick={run} disabled={running} aria-label={`Run ${test.name}`}>Run</button>
        {message !== '' && <Status>{message}</Status>}
        <Alert error={error} />
      </td>
    </tr>
  )
}
