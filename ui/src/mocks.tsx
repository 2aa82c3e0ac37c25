import type { JSX } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ApiError, call, v1, type MockService, type Tracking, type Transaction } from './api.js'
import { useServices } from './catalog.js'
import { Alert, CopyButton, Field, nameProblem, Status, useId } from './widgets.js'

const POLICIES = [
  ['return404', 'Answer 404 with near misses'],
  ['bypasslive', 'Forward to the live system'],
  ['returnTransaction', 'Answer with a transaction'],
  ['record', 'Forward to the live system and record'],
] as const

/** The policies that forward to the live system, and so need its host. */
const forwards = (policy: string): boolean => policy === 'bypasslive' || policy === 'record'

/** Mock services: create from a service's transactions, deploy, configure, stop, delete. */
export function MockServices({ workspaceId }: { workspaceId: number }): JSX.Element {
  const [items, setItems] = useState<MockService[]>([])
  const [error, setError] = useState<unknown>(null)
  const [reload, setReload] = useState(0)
  const [progress, setProgress] = useState('')
  const refresh = (): void => setReload((n) => n + 1)

  useEffect(() => {
    call<MockService[]>('GET', v1(workspaceId, '/service-mocks?limit=1000&sort=name')).then((r) => {
      setItems(r.result)
      setError(null)
    }, setError)
  }, [workspaceId, reload])

  /** Runs deploy/configure/stop and follows its tracking until it ends, saying each step. */
  const act = (mock: MockService, action: 'deploy' | 'configure' | 'stop'): void => {
    setProgress(`${action} ${mock.name}: requested`)
    call<Tracking>('POST', v1(workspaceId, `/service-mocks/${mock.id}/${action}`))
      .then(async (r) => {
        let tracking = r.result
        const deadline = Date.now() + 120_000
        while (
          tracking.status !== 'FINISHED' &&
          tracking.status !== 'FAILED' &&
          Date.now() < deadline
        ) {
          setProgress(`${action} ${mock.name}: ${tracking.status}`)
          refresh()
          await new Promise((resolve) => setTimeout(resolve, 400))
          tracking = (await call<Tracking>('GET', tracking.trackingUrl)).result
        }
        const errors = tracking.errors.map((e) => e.message).join('; ')
        setProgress(
          `${action} ${mock.name}: ${tracking.status}${errors === '' ? '' : ` (${errors})`}`,
        )
        refresh()
      })
      .catch((err: unknown) => {
        setProgress('')
        setError(err)
      })
  }

  const remove = (mock: MockService): void => {
    if (!window.confirm(`Delete mock service "${mock.name}"? Its runtime is stopped first.`)) return
    call('DELETE', v1(workspaceId, `/service-mocks/${mock.id}`)).then(() => {
      setProgress(`Deleted ${mock.name}.`)
      refresh()
    }, setError)
  }

  return (
    <section aria-labelledby="mocks-heading">
      <h1 id="mocks-heading">Mock services</h1>
      <CreateMock
        workspaceId={workspaceId}
        onDone={(m) => {
          setProgress(`Created ${m.name}.`)
          refresh()
        }}
      />
      {progress !== '' && <Status>{progress}</Status>}
      <Alert error={error} />
      <table class="stack">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Service</th>
            <th scope="col">Status</th>
            <th scope="col">Endpoint</th>
            <th scope="col">Replicas</th>
            <th scope="col">Think time</th>
            <th scope="col">No match</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {items.map((m) => (
            <MockRow
              key={m.id}
              mock={m}
              workspaceId={workspaceId}
              act={act}
              remove={remove}
              onSaved={refresh}
            />
          ))}
          {items.length === 0 && (
            <tr>
              <td colSpan={8}>No mock services yet.</td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  )
}

function MockRow({
  mock,
  workspaceId,
  act,
  remove,
  onSaved,
}: {
  mock: MockService
  workspaceId: number
  act: (m: MockService, a: 'deploy' | 'configure' | 'stop') => void
  remove: (m: MockService) => void
  onSaved: () => void
}): JSX.Element {
  const [editing, setEditing] = useState(false)
  const running = mock.status === 'RUNNING'
  return (
    <>
      <tr>
        <td data-label="Name">
          <a href={`#/mocks/${mock.id}`}>{mock.name}</a>
        </td>
        <td data-label="Service">{mock.serviceName}</td>
        <td data-label="Status">
          <span class={`badge ${mock.status.toLowerCase()}`}>{mock.status}</span>
          {mock.pendingUpdate && running && (
            <span class="muted"> (changes pending: Configure applies them)</span>
          )}
        </td>
        <td data-label="Endpoint">
          {mock.httpEndpoint !== null ? (
            <>
              <code class="endpoint">{mock.httpEndpoint}</code>{' '}
              <CopyButton value={mock.httpEndpoint} label={`Copy the endpoint of ${mock.name}`} />
            </>
          ) : (
            <span class="muted">none</span>
          )}
        </td>
        <td data-label="Replicas">{mock.replicas ?? 1}</td>
        <td data-label="Think time">{mock.thinkTime ?? 0} ms</td>
        <td data-label="No match">
          {POLICIES.find(([v]) => v === mock.noMatchingRequestPreference)?.[1] ??
            mock.noMatchingRequestPreference}
        </td>
        <td class="actions" data-label="Actions">
          <button
            type="button"
            onClick={() => act(mock, 'deploy')}
            aria-label={`Deploy ${mock.name}`}
          >
            Deploy
          </button>
          <a class="button" href={`#/mocks/${mock.id}`}>
            Live
          </a>
          <details class="menu">
            <summary aria-label={`More actions for ${mock.name}`}>More</summary>
            <div
              class="menu-items"
              onClick={(e) => {
                const menu = (e.currentTarget as HTMLElement).closest('details')
                if (menu !== null && (e.target as HTMLElement).tagName === 'BUTTON') {
                  menu.open = false
                }
              }}
            >
              {running && (
                <button
                  type="button"
                  onClick={() => act(mock, 'configure')}
                  aria-label={`Configure ${mock.name}`}
                >
                  Configure
                </button>
              )}
              <button
                type="button"
                onClick={() => act(mock, 'stop')}
                disabled={mock.status === 'STOPPED'}
                aria-label={`Stop ${mock.name}`}
              >
                Stop
              </button>
              <button
                type="button"
                onClick={() => setEditing(!editing)}
                aria-expanded={editing}
                aria-label={`Settings of ${mock.name}`}
              >
                Settings
              </button>
              <button
                type="button"
                class="danger"
                onClick={() => remove(mock)}
                aria-label={`Delete ${mock.name}`}
              >
                Delete
              </button>
            </div>
          </details>
        </td>
      </tr>
      {editing && (
        <tr class="settings-row">
          <td colSpan={8}>
            <Settings
              mock={mock}
              workspaceId={workspaceId}
              onSaved={() => {
                setEditing(false)
                onSaved()
              }}
            />
          </td>
        </tr>
      )}
    </>
  )
}

interface SettingsValue {
  replicas: string
  thinkTime: string
  policy: string
  liveSystemHost: string
  noMatchTxn: string
}

/** Checks the numbers before sending; the API's own message is shown at its field otherwise. */
function settingsProblems(v: SettingsValue): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  if (!/^\d+$/.test(v.replicas) || Number(v.replicas) < 1 || Number(v.replicas) > 32) {
    out['replicas'] = 'Replicas must be a whole number from 1 to 32'
  }
  if (!/^\d+$/.test(v.thinkTime)) {
    out['thinkTime'] = 'Think time must be a whole number of milliseconds'
  }
  if (forwards(v.policy) && v.liveSystemHost.trim() === '') {
    out['liveSystemHost'] = 'The live system host is required to forward'
  }
  if (v.policy === 'returnTransaction' && !/^\d+$/.test(v.noMatchTxn)) {
    out['noMatchingRequestTxnId'] = 'Choose the transaction to answer with'
  }
  return out
}

function SettingsFields({
  value,
  set,
  errors,
  workspaceId,
  serviceId,
}: {
  value: SettingsValue
  set: (v: SettingsValue) => void
  errors: Record<string, string | undefined>
  workspaceId: number
  serviceId: string
}): JSX.Element {
  const policyId = useId('policy')
  return (
    <>
      <Field
        label="Replicas"
        type="number"
        value={value.replicas}
        onInput={(replicas) => set({ ...value, replicas })}
        error={errors['replicas']}
      />
      <Field
        label="Think time (ms)"
        type="number"
        value={value.thinkTime}
        onInput={(thinkTime) => set({ ...value, thinkTime })}
        error={errors['thinkTime']}
      />
      <div class="field">
        <label for={policyId}>When no transaction matches</label>
        <select
          id={policyId}
          value={value.policy}
          onChange={(e) => set({ ...value, policy: (e.currentTarget as HTMLSelectElement).value })}
        >
          {POLICIES.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </select>
        {errors['noMatchingRequestPreference'] !== undefined && (
          <p class="field-error">{errors['noMatchingRequestPreference']}</p>
        )}
      </div>
      {forwards(value.policy) && (
        <Field
          label="Live system host"
          value={value.liveSystemHost}
          onInput={(liveSystemHost) => set({ ...value, liveSystemHost })}
          error={errors['liveSystemHost']}
        />
      )}
      {value.policy === 'returnTransaction' && (
        <TransactionPicker
          workspaceId={workspaceId}
          serviceId={serviceId}
          value={value.noMatchTxn}
          onChange={(noMatchTxn) => set({ ...value, noMatchTxn })}
          error={errors['noMatchingRequestTxnId']}
        />
      )}
    </>
  )
}

/**
 * The transaction that answers unmatched requests, picked by name from the service's transactions
 * (searched as typed, 50 at a time); the saved one is shown even when it is not among them.
 */
function TransactionPicker({
  workspaceId,
  serviceId,
  value,
  onChange,
  error,
}: {
  workspaceId: number
  serviceId: string
  value: string
  onChange: (id: string) => void
  error?: string | undefined
}): JSX.Element {
  const [search, setSearch] = useState('')
  const [options, setOptions] = useState<Transaction[]>([])
  const [saved, setSaved] = useState<Transaction | null>(null)
  const pickId = useId('txn-pick')
  useEffect(() => {
    if (serviceId === '') {
      setOptions([])
      return
    }
    const q = new URLSearchParams({ serviceId, limit: '50', sort: 'name' })
    if (search.trim() !== '') q.set('search', search.trim())
    const timer = setTimeout(() => {
      call<Transaction[]>('GET', v1(workspaceId, `/transactions?${q.toString()}`)).then(
        (r) => setOptions(r.result),
        () => setOptions([]),
      )
    }, 150)
    return () => clearTimeout(timer)
  }, [workspaceId, serviceId, search])
  useEffect(() => {
    if (!/^\d+$/.test(value) || saved?.id === Number(value)) return
    call<Transaction>('GET', v1(workspaceId, `/transactions/${value}`)).then(
      (r) => setSaved(r.result),
      () => setSaved(null),
    )
  }, [workspaceId, value])
  const shown =
    saved !== null && !options.some((t) => t.id === saved.id) ? [saved, ...options] : options
  return (
    <div class="field picker">
      <Field label="Find a transaction" type="search" value={search} onInput={setSearch} />
      <label for={pickId}>Transaction to answer with</label>
      <select
        id={pickId}
        value={value}
        aria-invalid={error !== undefined}
        onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value)}
      >
        <option value="">
          {serviceId === '' ? 'Choose the service first' : 'Choose a transaction'}
        </option>
        {shown.map((t) => (
          <option key={t.id} value={String(t.id)}>
            #{t.id} {t.name}
          </option>
        ))}
      </select>
      {error !== undefined && <p class="field-error">{error}</p>}
    </div>
  )
}

function settingsBody(v: SettingsValue): Record<string, unknown> {
  return {
    replicas: Number(v.replicas),
    thinkTime: Number(v.thinkTime),
    noMatchingRequestPreference: v.policy,
    ...(forwards(v.policy) ? { liveSystemHost: v.liveSystemHost.trim() } : {}),
    ...(v.policy === 'returnTransaction' ? { noMatchingRequestTxnId: Number(v.noMatchTxn) } : {}),
  }
}

function apiFieldErrors(err: unknown): Record<string, string | undefined> {
  if (!(err instanceof ApiError)) return {}
  const out: Record<string, string | undefined> = {}
  for (const d of err.details) out[d.path.split('/')[1] ?? ''] = d.message
  return out
}

function Settings({
  mock,
  workspaceId,
  onSaved,
}: {
  mock: MockService
  workspaceId: number
  onSaved: () => void
}): JSX.Element {
  const [value, setValue] = useState<SettingsValue>({
    replicas: String(mock.replicas ?? 1),
    thinkTime: String(mock.thinkTime ?? 0),
    policy: mock.noMatchingRequestPreference,
    liveSystemHost: mock.liveSystemHost ?? '',
    noMatchTxn:
      mock.noMatchingRequestTxnId === null || mock.noMatchingRequestTxnId === undefined
        ? ''
        : String(mock.noMatchingRequestTxnId),
  })
  const [errors, setErrors] = useState<Record<string, string | undefined>>({})
  const [error, setError] = useState<unknown>(null)
  const save = (e: Event): void => {
    e.preventDefault()
    const problems = settingsProblems(value)
    setErrors(problems)
    if (Object.keys(problems).length > 0) return
    call('PATCH', v1(workspaceId, `/service-mocks/${mock.id}`), settingsBody(value)).then(
      onSaved,
      (err: unknown) => {
        setError(err)
        setErrors(apiFieldErrors(err))
      },
    )
  }
  return (
    <form class="inline-form" onSubmit={save} noValidate aria-label={`Settings of ${mock.name}`}>
      <SettingsFields
        value={value}
        set={setValue}
        errors={errors}
        workspaceId={workspaceId}
        serviceId={String(mock.serviceId)}
      />
      <button type="submit">Save settings</button>
      {mock.status === 'RUNNING' && (
        <span class="muted">A running mock service keeps its settings until Configure.</span>
      )}
      <Alert error={error} />
    </form>
  )
}

function CreateMock({
  workspaceId,
  onDone,
}: {
  workspaceId: number
  onDone: (m: MockService) => void
}): JSX.Element {
  const services = useServices(workspaceId)
  const [serviceId, setServiceId] = useState('')
  const [name, setName] = useState('')
  const [value, setValue] = useState<SettingsValue>({
    replicas: '1',
    thinkTime: '0',
    policy: 'return404',
    liveSystemHost: '',
    noMatchTxn: '',
  })
  const [errors, setErrors] = useState<Record<string, string | undefined>>({})
  const [error, setError] = useState<unknown>(null)
  const serviceSelect = useId('mock-service')
  const submit = (e: Event): void => {
    e.preventDefault()
    const problems = settingsProblems(value)
    const problem = nameProblem(name)
    if (problem !== undefined) problems['name'] = `Name ${problem}`
    if (serviceId === '') problems['serviceId'] = 'Choose the service whose transactions it serves'
    setErrors(problems)
    if (Object.keys(problems).length > 0) return
    call<MockService>('POST', v1(workspaceId, '/service-mocks'), {
      serviceId: Number(serviceId),
      name: name.trim(),
      ...settingsBody(value),
    }).then(
      (r) => {
        setName('')
        setError(null)
        onDone(r.result)
      },
      (err: unknown) => {
        setError(err)
        setErrors(apiFieldErrors(err))
      },
    )
  }
  return (
    <form class="inline-form" onSubmit={submit} noValidate aria-label="Create a mock service">
      <div class="field">
        <label for={serviceSelect}>Service *</label>
        <select
          id={serviceSelect}
          value={serviceId}
          aria-invalid={errors['serviceId'] !== undefined}
          onChange={(e) => setServiceId((e.currentTarget as HTMLSelectElement).value)}
        >
          <option value="">Choose a service</option>
          {services.map((s) => (
            <option key={s.id} value={String(s.id)}>
              {s.name}
            </option>
          ))}
        </select>
        {errors['serviceId'] !== undefined && <p class="field-error">{errors['serviceId']}</p>}
      </div>
      <Field
        label="Mock service name"
        value={name}
        onInput={setName}
        error={errors['name']}
        required
      />
      <SettingsFields
        value={value}
        set={setValue}
        errors={errors}
        workspaceId={workspaceId}
        serviceId={serviceId}
      />
      <button type="submit">Create mock service</button>
      <p class="muted">It serves every transaction of the service.</p>
      <Alert error={error} />
    </form>
  )
}
