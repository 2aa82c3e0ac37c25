import type { JSX } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ApiError, call, v1, type MockService, type Tracking } from './api.js'
import { useServices } from './catalog.js'
import { Alert, CopyButton, Field, nameProblem, Status, useId } from './widgets.js'

const POLICIES = [['return404', 'Answer 404 with near misses'], ['bypasslive', 'Forward to the live system'], ['returnTransaction', 'Answer with a transaction'], ['record', 'Forward to the live system and record']] as const

/** The policies that forward to the live system, and so need its host. */
const forwards = (policy: string): boolean => policy === 'bypasslive' || policy === 'record'

/** Mock services: create from a service's transactions, deploy, configure, stop, delete. */
export function MockServices ({ workspaceId }: { workspaceId: number }): JSX.Element {
  const [items, setItems] = useState<MockService[]>([])
  const [error, setError] = useState<unknown>(null)
  const [reload, setReload] = useState(0)
  const [progress, setProgress] = useState('')
  const refresh = (): void => setReload((n) => n + 1)

  useEffect(() => {
    call<MockService[]>('GET', v1(workspaceId, '/service-mocks?limit=1000&sort=name')).then((r) => { setItems(r.result); setError(null) }, setError)
  }, [workspaceId, reload])

  /** Runs deploy/configure/stop and follows its tracking until it ends, saying each step. */
  const act = (mock: MockService, action: 'deploy' | 'configure' | 'stop'): void => {
    setProgress(`${action} ${mock.name}: requested`)
    call<Tracking>('POST', v1(workspaceId, `/service-mocks/${mock.id}/${action}`)).then(async (r) => {
      let tracking = r.result
      const deadline = Date.now() + 120_000
      while (tracking.status !== 'FINISHED' && tracking.status !== 'FAILED' && Date.now() < deadline) {
        setProgress(`${action} ${mock.name}: ${tracking.status}`)
        refresh()
        await new Promise((resolve) => setTimeout(resolve, 400))
        tracking = (await call<Tracking>('GET', tracking.trackingUrl)).result
      }
      const errors = tracking.errors.map((e) => e.message).join('; ')
      setProgress(`${action} ${mock.name}: ${tracking.status}${errors === '' ? '' : ` (${errors})`}`)
      refresh()
    }).catch((err: unknown) => { setProgress(''); setError(err) })
  }

  const remove = (mock: MockService): void => {
    if (!window.confirm(`Delete mock service "${mock.name}"? Its runtime is stopped first.`)) return
    call('DELETE', v1(workspaceId, `/service-mocks/${mock.id}`)).then(() => { setProgress(`Deleted ${mock.name}.`); refresh() }, setError)
  }

  return (
    <section aria-labelledby='mocks-heading'>
      <h1 id='mocks-heading'>Mock services</h1>
      <CreateMock workspaceId={workspaceId} onDone={(m) => { setProgress(`Created ${m.name}.`); refresh() }} />
      {progress !== '' && <Status>{progress}</Status>}
      <Alert error={error} />
      <table>
        <thead>
          <tr><th scope='col'>Name</th><th scope='col'>Service</th><th scope='col'>Status</th><th scope='col'>Endpoint</th><th scope='col'>Replicas</th><th scope='col'>Think time</th><th scope='col'>No match</th><th scope='col'>Actions</th></tr>
        </thead>
        <tbody>
          {items.map((m) => <MockRow key={m.id} mock={m} workspaceId={workspaceId} act={act} remove={remove} onSaved={refresh} />)}
          {items.length === 0 && <tr><td colSpan={8}>No mock services yet.</td></tr>}
        </tbody>
      </table>
    </section>
  )
}

function MockRow ({ mock, workspaceId, act, remove, onSaved }: { mock: MockService; workspaceId: number; act: (m: MockService, a: 'deploy' | 'configure' | 'stop') => void; remove: (m: MockService) => void; onSaved: () => void }): JSX.Element {
  const [editing, setEditing] = useState(false)
  const running = mock.status === 'RUNNING'
  return (
    <>
      <tr>
        <td><a href={`#/mocks/${mock.id}`}>{mock.name}</a></td>
        <td>{mock.serviceName}</td>
        <td><span class={`badge ${mock.status.toLowerCase()}`}>{mock.status}</span>{mock.pendingUpdate && <span class='muted'> (changes pending: configure)</span>}</td>
        <td>{mock.httpEndpoint !== null ? <><code>{mock.httpEndpoint}</code> <CopyButton value={mock.httpEndpoint} label={`Copy the endpoint of ${mock.name}`} /></> : <span class='muted'>none</span>}</td>
        <td>{mock.replicas}</td>
        <td>{mock.thinkTime} ms</td>
        <td>{mock.noMatchingRequestPreference}</td>
        <td class='actions'>
          <button type='button' onClick={() => act(mock, 'deploy')} aria-label={`Deploy ${mock.name}`}>Deploy</button>
          <button type='button' onClick={() => act(mock, 'configure')} disabled={!running} aria-label={`Configure ${mock.name}`}>Configure</button>
          <button type='button' onClick={() => act(mock, 'stop')} disabled={mock.status === 'STOPPED'} aria-label={`Stop ${mock.name}`}>Stop</button>
          <button type='button' onClick={() => setEditing(!editing)} aria-expanded={editing} aria-label={`Settings of ${mock.name}`}>Settings</button>
          <a class='button' href={`#/mocks/${mock.id}`}>Live</a>
          <button type='button' class='danger' onClick={() => remove(mock)} aria-label={`Delete ${mock.name}`}>Delete</button>
        </td>
      </tr>
      {editing && <tr><td colSpan={8}><Settings mock={mock} workspaceId={workspaceId} onSaved={() => { setEditing(false); onSaved() }} /></td></tr>}
    </>
  )
}

interface SettingsValue { replicas: string; thinkTime: string; policy: string; liveSystemHost: string; noMatchTxn: string }

/** Checks the numbers before sending; the API's own message is shown at its field otherwise. */
function settingsProblems (v: SettingsValue): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  if (!/^\d+$/.test(v.replicas) || Number(v.replicas) < 1 || Number(v.replicas) > 32) out['replicas'] = 'Replicas must be a whole number from 1 to 32'
  if (!/^\d+$/.test(v.thinkTime)) out['thinkTime'] = 'Think time must be a whole number of milliseconds'
  if (forwards(v.policy) && v.liveSystemHost.trim() === '') out['liveSystemHost'] = 'The live system host is required to forward'
  if (v.policy === 'returnTransaction' && !/^\d+$/.test(v.noMatchTxn)) out['noMatchingRequestTxnId'] = 'The transaction id is required'
  return out
}

function SettingsFields ({ value, set, errors }: { value: SettingsValue; set: (v: SettingsValue) => void; errors: Record<string, string | undefined> }): JSX.Element {
  const policyId = useId('policy')
  return (
    <>
      <Field label='Replicas' type='number' value={value.replicas} onInput={(replicas) => set({ ...value, replicas })} error={errors['replicas']} />
      <Field label='Think time (ms)' type='number' value={value.thinkTime} onInput={(thinkTime) => set({ ...value, thinkTime })} error={errors['thinkTime']} />
      <div class='field'>
        <label for={policyId}>When no transaction matches</label>
        <select id={policyId} value={value.policy} onChange={(e) => set({ ...value, policy: (e.currentTarget as HTMLSelectElement).value })}>
          {POLICIES.map(([v, label]) => <option key={v} value={v}>{label}</option>)}
        </select>
        {errors['noMatchingRequestPreference'] !== undefined && <p class='field-error'>{errors['noMatchingRequestPreference']}</p>}
      </div>
      {forwards(value.policy) && <Field label='Live system host' value={value.liveSystemHost} onInput={(liveSystemHost) => set({ ...value, liveSystemHost })} error={errors['liveSystemHost']} />}
      {value.policy === 'returnTransaction' && <Field label='Transaction id to answer with' value={value.noMatchTxn} onInput={(noMatchTxn) => set({ ...value, noMatchTxn })} error={errors['noMatchingRequestTxnId']} />}
    </>
  )
}

function settingsBody (v: SettingsValue): Record<string, unknown> {
  return {
    replicas: Number(v.replicas),
    thinkTime: Number(v.thinkTime),
    noMatchingRequestPreference: v.policy,
    ...(forwards(v.policy) ? { liveSystemHost: v.liveSystemHost.trim() } : {}),
    ...(v.policy === 'returnTransaction' ? { noMatchingRequestTxnId: Number(v.noMatchTxn) } : {}),
  }
}

function apiFieldErrors (err: unknown): Record<string, string | undefined> {
  if (!(err instanceof ApiError)) return {}
  const out: Record<string, string | undefined> = {}
  for (const d of err.details) out[d.path.split('/')[1] ?? ''] = d.message
  return out
}

function Settings ({ mock, workspaceId, onSaved }: { mock: MockService; workspaceId: number; onSaved: () => void }): JSX.Element {
  const [value, setValue] = useState<SettingsValue>({ replicas: String(mock.replicas), thinkTime: String(mock.thinkTime), policy: mock.noMatchingRequestPreference, liveSystemHost: '', noMatchTxn: '' })
  const [errors, setErrors] = useState<Record<string, string | undefined>>({})
  const [error, setError] = useState<unknown>(null)
  const save = (e: Event): void => {
    e.preventDefault()
    const problems = settingsProblems(value)
    setErrors(problems)
    if (Object.keys(problems).length > 0) return
    call('PATCH', v1(workspaceId, `/service-mocks/${mock.id}`), settingsBody(value)).then(onSaved, (err: unknown) => { setError(err); setErrors(apiFieldErrors(err)) })
  }
  return (
    <form class='inline-form' onSubmit={save} noValidate aria-label={`Settings of ${mock.name}`}>
      <SettingsFields value={value} set={setValue} errors={errors} />
      <button type='submit'>Save settings</button>
      {mock.status === 'RUNNING' && <span class='muted'>A running mock service keeps its settings until Configure.</span>}
      <Alert error={error} />
    </form>
  )
}

function CreateMock ({ workspaceId, onDone }: { workspaceId: number; onDone: (m: MockService) => void }): JSX.Element {
  const services = useServices(workspaceId)
  const [serviceId, setServiceId] = useState('')
  const [name, setName] = useState('')
  const [value, setValue] = useState<SettingsValue>({ replicas: '1', thinkTime: '0', policy: 'return404', liveSystemHost: '', noMatchTxn: '' })
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
    call<MockService>('POST', v1(workspaceId, '/service-mocks'), { serviceId: Number(serviceId), name: name.trim(), ...settingsBody(value) }).then((r) => {
      setName(''); setError(null); onDone(r.result)
    }, (err: unknown) => { setError(err); setErrors(apiFieldErrors(err)) })
  }
  return (
    <form class='inline-form' onSubmit={submit} noValidate aria-label='Create a mock service'>
      <div class='field'>
        <label for={serviceSelect}>Service *</label>
        <select id={serviceSelect} value={serviceId} aria-invalid={errors['serviceId'] !== undefined} onChange={(e) => setServiceId((e.currentTarget as HTMLSelectElement).value)}>
          <option value=''>Choose a service</option>
          {services.map((s) => <option key={s.id} value={String(s.id)}>{s.name}</option>)}
        </select>
        {errors['serviceId'] !== undefined && <p class='field-error'>{errors['serviceId']}</p>}
      </div>
      <Field label='Mock service name' value={name} onInput={setName} error={errors['name']} required />
      <SettingsFields value={value} set={setValue} errors={errors} />
      <button type='submit'>Create mock service</button>
      <p class='muted'>It serves every transaction of the service.</p>
      <Alert error={error} />
    </form>
  )
}
