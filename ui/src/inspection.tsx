import { Fragment, type JSX } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import {
  ApiError,
  call,
  csrf,
  decodeBase64,
  onTokenChange,
  pretty,
  v1,
  type InspectionDetail,
  type InspectionEntry,
  type MockService,
  type NearMiss,
  type Transaction,
} from './api.js'
import { loadLastHour, TrafficCharts } from './charts.js'
import { Alert, CopyButton, Field, Status, useId } from './widgets.js'

/** Entries the list keeps (a burst of this many between two polls is shown whole). */
const MAX_SHOWN = 1000
/** How long a refused stream waits before trying again (when the session is still alive). */
const RETRY_MS = 5000

/** Where a live view reads: the platform's public APIs, or a local runtime's admin listener. */
export interface InspectionSource {
  list: (skip: number, limit: number) => string
  detail: (id: number) => string
  events: () => string
  /**
   * Asked when the stream is refused (not dropped): whether the session has ended. The platform's
   * answer also opens sign-in (a 401 of any call does); a local runtime has no session.
   */
  sessionEnded?: () => Promise<boolean>
}

/** Whether the dashboard session has ended: a 401 of the API (which also reopens sign-in). */
async function platformSessionEnded(): Promise<boolean> {
  try {
    await call('GET', '/api/v4/user')
    return false
  } catch (err) {
    return err instanceof ApiError && err.status === 401
  }
}

/** One mock service of the platform: its status and its requests, streamed in (SSE). */
export function LiveInspection({
  workspaceId,
  mockId,
}: {
  workspaceId: number
  mockId: number
}): JSX.Element {
  const [mock, setMock] = useState<MockService | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    call<MockService>('GET', v1(workspaceId, `/service-mocks/${mockId}`)).then(
      (r) => setMock(r.result),
      setError,
    )
  }, [workspaceId, mockId])
  const source: InspectionSource = {
    list: (skip, limit) =>
      `/reports/api/v1/workspaces/${workspaceId}/inspection-data/service-mock/${mockId}?skip=${skip}&limit=${limit}`,
    detail: (id) => `/reports/api/v1/workspaces/${workspaceId}/inspection-data/requests/${id}`,
    events: () =>
      `/ui/events/workspaces/${workspaceId}/service-mocks/${mockId}/inspection?token=${encodeURIComponent(csrf())}`,
    sessionEnded: platformSessionEnded,
  }
  return (
    <section aria-labelledby="live-heading">
      <h1 id="live-heading">Live requests{mock !== null ? ` of ${mock.name}` : ''}</h1>
      <Alert error={error} />
      {mock !== null && (
        <p>
          <span class={`badge ${mock.status.toLowerCase()}`}>{mock.status}</span>{' '}
          {mock.httpEndpoint !== null && (
            <>
              <code>{mock.httpEndpoint}</code>{' '}
              <CopyButton value={mock.httpEndpoint} label="Copy the endpoint" />
            </>
          )}
        </p>
      )}
      <LiveView
        key={`${workspaceId}/${mockId}`}
        source={source}
        workspaceId={workspaceId}
        mock={mock}
      />
    </section>
  )
}

/** The requests of one runtime: charts of the last hour, then the list, newest first. */
export function LiveView({
  source,
  workspaceId,
  mock,
}: {
  source: InspectionSource
  workspaceId: number
  mock: MockService | null
}): JSX.Element {
  const [entries, setEntries] = useState<InspectionEntry[]>([])
  const [state, setState] = useState('connecting')
  // Requests the runtime's ring evicted before the stream could read them.
  const [dropped, setDropped] = useState(0)
  // A new token (signed in again) or a retry opens a new stream.
  const [token, setToken] = useState(csrf())
  const [attempt, setAttempt] = useState(0)
  useEffect(() => onTokenChange(setToken), [])
  // Everything of the last hour, for the charts: read once, then fed by the stream.
  const [history, setHistory] = useState<InspectionEntry[]>([])
  useEffect(() => {
    loadLastHour(source.list).then(
      (older) => setHistory((now) => merge(now, older)),
      () => undefined,
    )
  }, [])

  useEffect(() => {
    const events = new EventSource(source.events())
    events.addEventListener('open', () => setState('live'))
    events.addEventListener('entries', (e) => {
      const fresh = JSON.parse((e as MessageEvent<string>).data) as InspectionEntry[]
      setHistory((now) => merge(now, fresh))
      setEntries((old) => {
        const seen = new Set(old.map((x) => x.id))
        return [...fresh.filter((x) => !seen.has(x.id)), ...old].slice(0, MAX_SHOWN)
      })
    })
    events.addEventListener('reset', (e) =>
      setEntries(JSON.parse((e as MessageEvent<string>).data) as InspectionEntry[]),
    )
    // Requests this tab received live, kept by the platform since (the mock service stopped or
    // was redeployed): marked as the earlier run they now are.
    events.addEventListener('kept', (e) => {
      const ids = new Set(JSON.parse((e as MessageEvent<string>).data) as number[])
      setEntries((old) =>
        old.some((x) => ids.has(x.id) && x.previousRun !== true)
          ? old.map((x) => (ids.has(x.id) ? { ...x, previousRun: true } : x))
          : old,
      )
    })
    events.addEventListener('dropped', (e) =>
      setDropped(
        (n) => n + (JSON.parse((e as MessageEvent<string>).data) as { count: number }).count,
      ),
    )
    let retry: ReturnType<typeof setTimeout> | undefined
    // Refused (401, 404...) rather than dropped: the session may have ended (sign out in another
    // tab, expiry). Then sign-in opens over the page, and signing in again reconnects; otherwise
    // the stream is tried again a little later.
    const refused = (message: string): void => {
      events.close()
      setState(message)
      const check = source.sessionEnded ?? (async () => false)
      check().then(
        (ended) => {
          if (ended) setState('paused: the session has ended; sign in again to resume')
          else retry = setTimeout(() => setAttempt((n) => n + 1), RETRY_MS)
        },
        () => undefined,
      )
    }
    events.addEventListener('failure', (e) => {
      const failure = JSON.parse((e as MessageEvent<string>).data) as {
        status: number
        message: string
      }
      if (failure.status === 401) refused(`stopped: ${failure.message}`)
      else setState(`stopped: ${failure.message}`)
    })
    // A network drop leaves the EventSource reconnecting by itself; a refusal closes it.
    events.addEventListener('error', () => {
      if (events.readyState === EventSource.CLOSED) {
        refused('stopped: the platform refused the stream')
      } else setState('reconnecting')
    })
    return () => {
      events.close()
      if (retry !== undefined) clearTimeout(retry)
    }
  }, [token, attempt])

  const [filter, setFilter] = useState<LiveFilter>({
    unmatchedOnly: false,
    statusClass: '',
    method: '',
    path: '',
  })
  const shown = entries.filter((e) => passes(e, filter))
  return (
    <>
      <TrafficCharts entries={history} />
      <LiveFilters filter={filter} onChange={setFilter} />
      <Status>
        Stream {state}.{' '}
        {shown.length === entries.length
          ? `${entries.length} request${entries.length === 1 ? '' : 's'} shown`
          : `${shown.length} of ${entries.length} requests shown (filtered)`}
        , newest first.
      </Status>
      {dropped > 0 && (
        <p class="alert" role="alert">
          {dropped} request{dropped === 1 ? ' was' : 's were'} not shown: they arrived faster than
          the live list reads, and the runtime's inspection ring (which keeps only the latest
          records) overflowed before they were read.
        </p>
      )}
      <ul class="live-list" aria-label="Requests">
        {shown.map((entry, i) => (
          <Fragment key={entry.id}>
            {entry.previousRun === true && shown[i - 1]?.previousRun !== true && (
              <li class="run-divider">
                Earlier runs: kept by the platform when the mock service last stopped or was
                redeployed
              </li>
            )}
            <Entry entry={entry} source={source} workspaceId={workspaceId} mock={mock} />
          </Fragment>
        ))}
      </ul>
      {entries.length === 0 && (
        <p class="muted">
          No requests yet. Send one to the endpoint: it appears here as it arrives.
        </p>
      )}
    </>
  )
}

function Entry({
  entry,
  source,
  workspaceId,
  mock,
}: {
  entry: InspectionEntry
  source: InspectionSource
  workspaceId: number
  mock: MockService | null
}): JSX.Element {
  const [open, setOpen] = useState(false)
  const [detail, setDetail] = useState<InspectionDetail | null>(null)
  const [error, setError] = useState<unknown>(null)
  const toggle = (): void => {
    setOpen(!open)
    if (!open && detail === null) {
      call<InspectionDetail>('GET', source.detail(entry.id)).then(
        (r) => setDetail(r.result),
        setError,
      )
    }
  }
  return (
    <li class={entry.matched ? 'matched' : 'unmatched'}>
      <button type="button" class="row-button" aria-expanded={open} onClick={toggle}>
        <span class="method">{entry.operation}</span> <code>{entry.url}</code>{' '}
        <span class={`badge ${entry.matched ? 'running' : 'failed'}`}>
          {entry.matched ? 'matched' : 'no match'}
        </span>{' '}
        {entry.previousRun === true && <span class="badge">earlier run</span>}{' '}
        <span class="muted">
          {entry.respondingTxn ?? ''} {new Date(entry.timestamp).toLocaleTimeString()}
        </span>
      </button>
      {open && <Alert error={error} />}
      {open && detail !== null && <Detail detail={detail} workspaceId={workspaceId} mock={mock} />}
    </li>
  )
}

function Detail({
  detail,
  workspaceId,
  mock,
}: {
  detail: InspectionDetail
  workspaceId: number
  mock: MockService | null
}): JSX.Element {
  const nearMisses = (detail.matchingData as { nearMisses?: NearMiss[] } | null)?.nearMisses ?? []
  const requestBody =
    detail.requestBodyEncoding === 'base64'
      ? decodeBase64(detail.requestBody)
      : pretty(detail.requestBody)
  const answerBody = decodeBase64(detail.responseBody)
  return (
    <div class="panel">
      {nearMisses.length > 0 && (
        <NearMisses nearMisses={nearMisses} workspaceId={workspaceId} mock={mock} />
      )}
      <div class="card">
        <div>
          <h2>Request</h2>
          <p>
            <span class="method">{detail.operation}</span> <code>{detail.url}</code>
          </p>
          <ul class="headers">
            {detail.requestHeaders.map((h, i) => (
              <li key={i}>
                <code>
                  {h.key}: {h.value}
                </code>
              </li>
            ))}
          </ul>
          {requestBody !== '' && <pre tabIndex={0}>{requestBody}</pre>}
        </div>
        <div>
          <h2>Answer</h2>
          <p>
            Status <strong>{detail.statusCode}</strong> in {detail.durationMs} ms
          </p>
          <ul class="headers">
            {detail.responseHeaders.map((h, i) => (
              <li key={i}>
                <code>
                  {h.key}: {h.value}
                </code>
              </li>
            ))}
          </ul>
          {detail.matched ? (
            <pre tabIndex={0}>{answerBody}</pre>
          ) : (
            <details class="raw">
              <summary>The problem document answered</summary>
              <pre tabIndex={0}>{answerBody}</pre>
            </details>
          )}
        </div>
      </div>
      {mock !== null && <MakeTransaction detail={detail} workspaceId={workspaceId} mock={mock} />}
    </div>
  )
}

/** The near-miss diagnosis: per close transaction, each failed matcher as expected beside actual. */
function NearMisses({
  nearMisses,
  workspaceId,
  mock,
}: {
  nearMisses: NearMiss[]
  workspaceId: number
  mock: MockService | null
}): JSX.Element {
  return (
    <div class="near-misses">
      <h2>Why nothing matched</h2>
      {nearMisses.map((miss, index) => (
        <table key={index} class="diff">
          <caption>
            {captionOf(miss)}: {miss.matched} of {miss.total} matchers held
            {mock !== null && miss.transactionId !== null && (
              <>
                {' '}
                <a href={`#/transactions?serviceId=${mock.serviceId}&open=${miss.transactionId}`}>
                  {index === 0
                    ? 'Edit the closest transaction'
                    : `Edit transaction ${miss.transactionId}`}
                </a>
              </>
            )}
          </caption>
          <thead>
            <tr>
              <th scope="col">Matcher</th>
              <th scope="col">Expected</th>
              <th scope="col">Actual</th>
            </tr>
          </thead>
          <tbody>
            {miss.failed.map((f, i) => (
              <tr key={i}>
                <th scope="row">
                  {f.part}
                  {f.key !== undefined && f.key !== '' ? ` ${f.key}` : ''}{' '}
                  <span class="muted">{f.matcherName}</span>
                </th>
                <Compared expected={show(f.expected)} actual={show(f.actual)} />
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </div>
  )
}

/** A near miss named as a person knows it: the transaction's name, and its id when that adds something. */
function captionOf(miss: NearMiss): string {
  const name = typeof miss.name === 'string' && miss.name !== '' ? miss.name : ''
  // A runtime serving files has no stored ids: its transactions are known by name only.
  const id =
    miss.transactionId === null || miss.transactionId === undefined
      ? ''
      : String(miss.transactionId)
  if (name === '') return id === '' ? 'A transaction' : `Transaction ${id}`
  return id === '' || name === id ? name : `${name} (transaction ${id})`
}

/**
 * Expected beside actual, with the characters that differ marked: the common start and end are
 * plain, the middle of each side is highlighted.
 */
function Compared({ expected, actual }: { expected: string; actual: string }): JSX.Element {
  let start = 0
  const shorter = Math.min(expected.length, actual.length)
  while (start < shorter && expected[start] === actual[start]) start++
  let end = 0
  while (
    end < shorter - start &&
    expected[expected.length - 1 - end] === actual[actual.length - 1 - end]
  ) {
    end++
  }
  const parts = (text: string): JSX.Element => {
    const middle = text.slice(start, text.length - end)
    return (
      <code>
        {text.slice(0, start)}
        {middle !== '' && <mark>{middle}</mark>}
        {text.slice(text.length - end)}
      </code>
    )
  }
  const differs = expected !== actual && expected !== '(absent)' && actual !== '(absent)'
  return (
    <>
      <td class="expected">{differs ? parts(expected) : <code>{expected}</code>}</td>
      <td class="actual">{differs ? parts(actual) : <code>{actual}</code>}</td>
    </>
  )
}

interface LiveFilter {
  unmatchedOnly: boolean
  statusClass: string
  method: string
  path: string
}

function passes(e: InspectionEntry, f: LiveFilter): boolean {
  if (f.unmatchedOnly && e.matched) return false
  if (f.statusClass !== '' && String(e.statusCode ?? '')[0] !== f.statusClass) return false
  if (f.method !== '' && e.operation.toUpperCase() !== f.method) return false
  if (f.path.trim() !== '' && !e.url.toLowerCase().includes(f.path.trim().toLowerCase())) {
    return false
  }
  return true
}

/** Filters of the live list: unmatched only, status class, method, path text. */
function LiveFilters({
  filter,
  onChange,
}: {
  filter: LiveFilter
  onChange: (f: LiveFilter) => void
}): JSX.Element {
  const statusId = useId('status-class')
  const methodId = useId('method')
  return (
    <div class="filters" role="group" aria-label="Filter the requests">
      <label class="check">
        <input
          type="checkbox"
          checked={filter.unmatchedOnly}
          onChange={(e) =>
            onChange({ ...filter, unmatchedOnly: (e.currentTarget as HTMLInputElement).checked })
          }
        />{' '}
        Unmatched only
      </label>
      <div class="field">
        <label for={statusId}>Status</label>
        <select
          id={statusId}
          value={filter.statusClass}
          onChange={(e) =>
            onChange({ ...filter, statusClass: (e.currentTarget as HTMLSelectElement).value })
          }
        >
          <option value="">Any status</option>
          {['2', '3', '4', '5'].map((c) => (
            <option key={c} value={c}>
              {c}xx
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for={methodId}>Method</label>
        <select
          id={methodId}
          value={filter.method}
          onChange={(e) =>
            onChange({ ...filter, method: (e.currentTarget as HTMLSelectElement).value })
          }
        >
          <option value="">Any method</option>
          {['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'].map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
      </div>
      <Field
        label="Path contains"
        type="search"
        value={filter.path}
        onInput={(path) => onChange({ ...filter, path })}
      />
    </div>
  )
}

function show(value: unknown): string {
  if (value === null || value === undefined) return '(absent)'
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** One click: a transaction of the mock service's service that matches this method and path. */
function MakeTransaction({
  detail,
  workspaceId,
  mock,
}: {
  detail: InspectionDetail
  workspaceId: number
  mock: MockService
}): JSX.Element {
  const [made, setMade] = useState<Transaction | null>(null)
  const [error, setError] = useState<unknown>(null)
  const path = detail.url.split('?')[0] ?? '/'
  const make = (): void => {
    const body = {
      name: `${detail.operation} ${path}`,
      description: `Made from request ${detail.id}`,
      dsl: {
        requestDsl: { method: detail.operation, path },
        responseDsl: { status: 200, json: {} },
      },
    }
    call<Transaction>(
      'POST',
      v1(workspaceId, `/transactions?serviceId=${mock.serviceId}`),
      body,
    ).then((r) => setMade(r.result), setError)
  }
  return (
    <div>
      <button type="button" onClick={make} disabled={made !== null}>
        Make a transaction from this request
      </button>
      {made !== null && (
        <Status>
          Created transaction <a href={`#/transactions?serviceId=${mock.serviceId}`}>{made.name}</a>{' '}
          in {mock.serviceName}; configure the mock service to serve it.
        </Status>
      )}
      <Alert error={error} />
    </div>
  )
}

/** Entries of both lists, once each, newest first, none older than an hour. */
function merge(a: readonly InspectionEntry[], b: readonly InspectionEntry[]): InspectionEntry[] {
  const since = Date.now() - 3_600_000
  const byId = new Map<number, InspectionEntry>()
  for (const e of [...a, ...b]) if (e.timestamp >= since) byId.set(e.id, e)
  return [...byId.values()].sort((x, y) => y.id - x.id)
}
