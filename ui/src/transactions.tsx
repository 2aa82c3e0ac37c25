import type { JSX } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, call, decodeBase64, v1, type ApiResponse, type Transaction } from './api.js'
import { useServices } from './catalog.js'
import { Alert, Field, nameProblem, Status, toYaml, useId } from './widgets.js'

const DSL_TYPES = ['', 'GENERIC_DSL', 'HAR_DSL', 'OPENAPI_DSL', 'SWAGGER_DSL', 'RR_PAIR', 'WIREMOCK_DSL', 'POSTMAN_DSL']

/** Transactions: filters, import by drag and drop or file chooser, card/JSON/YAML views, edit. */
export function Transactions ({ workspaceId, initialServiceId }: { workspaceId: number; initialServiceId: string }): JSX.Element {
  const services = useServices(workspaceId)
  const [serviceId, setServiceId] = useState(initialServiceId)
  const [search, setSearch] = useState('')
  const [tag, setTag] = useState('')
  const [dslType, setDslType] = useState('')
  const [items, setItems] = useState<Transaction[]>([])
  const [total, setTotal] = useState(0)
  const [error, setError] = useState<unknown>(null)
  const [open, setOpen] = useState<number | null>(null)
  const [reload, setReload] = useState(0)
  const serviceSelect = useId('service')
  const typeSelect = useId('dsltype')

  useEffect(() => { setServiceId(initialServiceId) }, [initialServiceId])
  useEffect(() => {
    const q = new URLSearchParams({ limit: '500', sort: 'name' })
    if (serviceId !== '') q.set('serviceId', serviceId)
    if (search !== '') q.set('search', search)
    if (tag.trim() !== '') q.set('tags', tag.trim())
    if (dslType !== '') q.set('dslType', dslType)
    const timer = setTimeout(() => {
      call<Transaction[]>('GET', v1(workspaceId, `/transactions?${q.toString()}`)).then((r) => { setItems(r.result); setTotal(r.total ?? r.result.length); setError(null) }, setError)
    }, 150)
    return () => clearTimeout(timer)
  }, [workspaceId, serviceId, search, tag, dslType, reload])

  return (
    <section aria-labelledby='txn-heading'>
      <h2 id='txn-heading'>Transactions</h2>
      <div class='filters'>
        <div class='field'>
          <label for={serviceSelect}>Service</label>
          <select id={serviceSelect} value={serviceId} onChange={(e) => setServiceId((e.currentTarget as HTMLSelectElement).value)}>
            <option value=''>All services</option>
            {services.map((s) => <option key={s.id} value={String(s.id)}>{s.name}</option>)}
          </select>
        </div>
        <Field label='Search name or description' type='search' value={search} onInput={setSearch} />
        <Field label='Tags (comma-separated)' value={tag} onInput={setTag} />
        <div class='field'>
          <label for={typeSelect}>Origin</label>
          <select id={typeSelect} value={dslType} onChange={(e) => setDslType((e.currentTarget as HTMLSelectElement).value)}>
            {DSL_TYPES.map((t) => <option key={t} value={t}>{t === '' ? 'Any origin' : t}</option>)}
          </select>
        </div>
      </div>
      <Import workspaceId={workspaceId} serviceId={serviceId} onDone={() => setReload((n) => n + 1)} />
      <Alert error={error} />
      <p>{total} transaction{total === 1 ? '' : 's'}</p>
      <ul class='txn-list'>
        {items.map((t) => (
          <li key={t.id}>
            <button type='button' class='row-button' aria-expanded={open === t.id} onClick={() => setOpen(open === t.id ? null : t.id)}>
              <span class='method'>{String(t.dsl.requestDsl['method'] ?? 'ANY')}</span> <span class='name'>{t.name}</span> <span class='muted'>{t.serviceName} · {t.dslType}</span>
            </button>
            {open === t.id && <TransactionPanel workspaceId={workspaceId} txn={t} onChanged={() => setReload((n) => n + 1)} />}
          </li>
        ))}
      </ul>
    </section>
  )
}

/** Drop zone and file chooser: a multipart create with `verbose=true`, then the import report. */
function Import ({ workspaceId, serviceId, onDone }: { workspaceId: number; serviceId: string; onDone: () => void }): JSX.Element {
  const [over, setOver] = useState(false)
  const [report, setReport] = useState<ApiResponse<Transaction[]> | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  const upload = (files: FileList | null): void => {
    if (files === null || files.length === 0) return
    if (serviceId === '') {
      setError(new ApiError(400, 'Choose the service to import into first (the Service filter above).', 'ERR_UI', []))
      return
    }
    const form = new FormData()
    form.set('serviceId', serviceId)
    form.set('verbose', 'true')
    for (const file of Array.from(files)) form.append('file', file, file.name)
    setBusy(true); setError(null); setReport(null)
    call<Transaction[]>('POST', v1(workspaceId, '/transactions'), form).then((r) => { setReport(r); onDone() }, setError).finally(() => {
      setBusy(false)
      if (input.current !== null) input.current.value = ''
    })
  }
  return (
    <div
      class={`dropzone${over ? ' over' : ''}`}
      onDragOver={(e) => { e.preventDefault(); setOver(true) }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => { e.preventDefault(); setOver(false); upload(e.dataTransfer?.files ?? null) }}
    >
      <label for='import-file'>Import HAR, OpenAPI, Postman, WireMock or RR files: drop them here or choose</label>
      <input id='import-file' ref={input} type='file' multiple onChange={(e) => upload((e.currentTarget as HTMLInputElement).files)} />
      {busy && <Status>Importing…</Status>}
      <Alert error={error} />
      {error instanceof ApiError && error.details.length > 0 && (
        <ul class='field-error'>{error.details.slice(0, 20).map((d, i) => <li key={i}>{d.path}: {d.message}</li>)}</ul>
      )}
      {report !== null && (
        <div class='report' role='status'>
          <p>Imported {report.result.length} transaction{report.result.length === 1 ? '' : 's'}.</p>
          {(report.warnings ?? []).length > 0 && (
            <>
              <p>Dropped or ambiguous:</p>
              <ul>{(report.warnings ?? []).map((w, i) => <li key={i}>{w.file !== undefined ? `${w.file}: ` : ''}{w.message}</li>)}</ul>
            </>
          )}
        </div>
      )}
    </div>
  )
}

function TransactionPanel ({ workspaceId, txn, onChanged }: { workspaceId: number; txn: Transaction; onChanged: () => void }): JSX.Element {
  const [view, setView] = useState<'card' | 'json' | 'yaml' | 'edit'>('card')
  const shown = { name: txn.name, description: txn.description, tags: txn.tags, dsl: txn.dsl }
  return (
    <div class='panel'>
      <div role='tablist' aria-label={`Views of ${txn.name}`}>
        {(['card', 'json', 'yaml', 'edit'] as const).map((v) => (
          <button key={v} type='button' role='tab' aria-selected={view === v} onClick={() => setView(v)}>{v === 'card' ? 'Card' : v === 'edit' ? 'Edit' : v.toUpperCase()}</button>
        ))}
      </div>
      {view === 'card' && <Card txn={txn} />}
      {view === 'json' && <pre tabIndex={0}>{JSON.stringify(shown, null, 2)}</pre>}
      {view === 'yaml' && <pre tabIndex={0}>{toYaml(shown).trimStart()}</pre>}
      {view === 'edit' && <Edit workspaceId={workspaceId} txn={txn} onSaved={() => { setView('card'); onChanged() }} />}
    </div>
  )
}

function Card ({ txn }: { txn: Transaction }): JSX.Element {
  const req = txn.dsl.requestDsl
  const res = txn.dsl.responseDsl
  const url = req['url'] as { matcherName?: string; matchingValue?: string } | undefined
  const headers = (res['headers'] ?? []) as Array<{ name: string; value: string }>
  return (
    <div class='card'>
      <div>
        <h3>Request</h3>
        <p><span class='method'>{String(req['method'] ?? 'ANY')}</span> <code>{url?.matchingValue ?? String(req['path'] ?? '')}</code> <span class='muted'>({url?.matcherName ?? 'equals_url'})</span></p>
        {txn.description !== '' && <p>{txn.description}</p>}
        {txn.tags.length > 0 && <p>Tags: {txn.tags.join(', ')}</p>}
      </div>
      <div>
        <h3>Response</h3>
        <p>Status <strong>{String(res['status'] ?? 200)}</strong> {res['contentType'] !== undefined && <span class='muted'>{String(res['contentType'])}</span>}</p>
        {headers.length > 0 && <ul class='headers'>{headers.map((h, i) => <li key={i}><code>{h.name}: {h.value}</code></li>)}</ul>}
        <pre tabIndex={0}>{decodeBase64(res['content'] as string | undefined)}</pre>
      </div>
    </div>
  )
}

function Edit ({ workspaceId, txn, onSaved }: { workspaceId: number; txn: Transaction; onSaved: () => void }): JSX.Element {
  const [name, setName] = useState(txn.name)
  const [description, setDescription] = useState(txn.description)
  const [tags, setTags] = useState(txn.tags.join(', '))
  const [dsl, setDsl] = useState(JSON.stringify(txn.dsl, null, 2))
  const [errors, setErrors] = useState<Record<string, string | undefined>>({})
  const [error, setError] = useState<unknown>(null)
  const save = (e: Event): void => {
    e.preventDefault()
    const found: Record<string, string | undefined> = {}
    const problem = nameProblem(name)
    if (problem !== undefined) found['name'] = `Name ${problem}`
    let parsed: unknown
    try { parsed = JSON.parse(dsl) } catch (err) { found['dsl'] = `The DSL is not valid JSON: ${(err as Error).message}` }
    if (parsed !== undefined && (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))) found['dsl'] = 'The DSL must be a JSON object'
    setErrors(found)
    if (Object.keys(found).length > 0) return
    const body = { name: name.trim(), description, tags: tags.split(',').map((t) => t.trim()).filter((t) => t !== ''), dsl: parsed }
    call<Transaction>('PUT', v1(workspaceId, `/transactions/${txn.id}`), body).then(() => { setError(null); onSaved() }, (err: unknown) => {
      setError(err)
      if (err instanceof ApiError) {
        const dslProblems = err.details.filter((d) => d.path.startsWith('/dsl')).map((d) => `${d.path.slice(4) || '/'}: ${d.message}`)
        setErrors({ name: err.field('/name'), description: err.field('/description'), tags: err.field('/tags'), dsl: dslProblems.length > 0 ? dslProblems.join('; ') : undefined })
      }
    })
  }
  return (
    <form onSubmit={save} noValidate aria-label={`Edit ${txn.name}`}>
      <Field label='Name' value={name} onInput={setName} error={errors['name']} required />
      <Field label='Description' value={description} onInput={setDescription} error={errors['description']} />
      <Field label='Tags (comma-separated)' value={tags} onInput={setTags} error={errors['tags']} />
      <Field label='DSL (JSON)' value={dsl} onInput={setDsl} error={errors['dsl']} multiline rows={16} />
      <button type='submit'>Save transaction</button>
      <Alert error={error} />
    </form>
  )
}
