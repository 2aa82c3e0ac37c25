import type { JSX } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ApiError, call, csrf } from './api.js'
import { Alert, Status } from './widgets.js'

/*
 * The monitoring page, shown only when the platform serves the API-monitoring interface
 * (spec/000: `/buckets`, `{data, meta, error}` envelopes). Built against the spec's shapes.
 */

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
      <h2 id='monitoring-heading'>Monitoring tests</h2>
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
      <h3>{bucket.name}</h3>
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
  const [reload, setReload] = useState(0)
  useEffect(() => {
    call<unknown>('GET', `/buckets/${encodeURIComponent(bucketKey)}/tests/${encodeURIComponent(test.id)}/results?count=1`)
      .then((r) => setLast(dataOf<Result[]>(r.result)?.[0] ?? null), () => setLast(null))
  }, [bucketKey, test.id, reload])
  const run = (): void => {
    if (test.trigger_url === undefined) {
      setError(new ApiError(400, 'This test has no trigger URL.', 'ERR_UI', []))
      return
    }
    const path = new URL(test.trigger_url, window.location.origin).pathname
    setMessage('Started…')
    call('POST', path).then(() => {
      setMessage('Run started.')
      setTimeout(() => setReload((n) => n + 1), 3000)
    }, (err: unknown) => { setMessage(''); setError(err) })
  }
  return (
    <tr>
      <td>{test.name}{test.description !== undefined && test.description !== null && test.description !== '' && <div class='muted'>{test.description}</div>}</td>
      <td>{last === null ? <span class='muted'>never run</span> : <span class={`badge ${last.result === 'pass' ? 'running' : 'failed'}`}>{last.result ?? 'running'}</span>}</td>
      <td class='actions'>
        <button type='button' onClick={run} aria-label={`Run ${test.name}`}>Run</button>
        {message !== '' && <Status>{message}</Status>}
        <Alert error={error} />
      </td>
    </tr>
  )
}
