import type { JSX } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, call, decodeBase64, v1, type ApiResponse, type Transaction } from './api.js'
import { useServices } from './catalog.js'
import { requestLine, statusOf } from './dsl-form.js'
import { TransactionEditor, type TransactionDraft } from './transaction-editor.js'
import { Alert, download, Field, Status, Tabs, toYaml, useId } from './widgets.js'

const DSL_TYPES = [
  '',
  'GENERIC_DSL',
  'HAR_DSL',
  'OPENAPI_DSL',
  'SWAGGER_DSL',
  'RR_PAIR',
  'WIREMOCK_DSL',
  'POSTMAN_DSL',
  'MOCKOON_DSL',
]
const PAGE_SIZES = [50, 100, 500]
const count = (n: number): string => n.toLocaleString('en-US')

/** What an export holds of a transaction: what a create accepts back (docs/api.md "Transactions"). */
const exported = (t: Transaction): TransactionDraft => ({
  name: t.name,
  description: t.description,
  tags: t.tags,
  dsl: t.dsl,
})

/** Exports transactions as the platform's export file (`{transactions: [...]}`), in JSON or YAML. */
function exportTransactions(items: Transaction[], format: 'json' | 'yaml', name: string): void {
  const doc = { transactions: items.map(exported) }
  if (format === 'json') {
    download(`${name}.json`, 'application/json', JSON.stringify(doc, null, 2) + '\n')
  } else download(`${name}.yaml`, 'application/yaml', toYaml(doc).trimStart() + '\n')
}

/**
 * Transactions: filters, paging through every transaction ("N–M of T"), grouping by method and
 * path, selection with export and delete, create and duplicate, import by drag and drop, and per
 * transaction a card, a form editor and the raw DSL.
 */
export function Transactions({
  workspaceId,
  initialServiceId,
  openId,
}: {
  workspaceId: number
  initialServiceId: string
  openId: string
}): JSX.Element {
  const services = useServices(workspaceId)
  const [serviceId, setServiceId] = useState(initialServiceId)
  const [search, setSearch] = useState('')
  const [tag, setTag] = useState('')
  const [dslType, setDslType] = useState('')
  const [pageSize, setPageSize] = useState(100)
  const [skip, setSkip] = useState(0)
  // Where the rows shown begin: the page asked for (skip) may still be on its way.
  const [shownSkip, setShownSkip] = useState(0)
  const [grouped, setGrouped] = useState(false)
  const [items, setItems] = useState<Transaction[]>([])
  const [total, setTotal] = useState(0)
  const [loaded, setLoaded] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [open, setOpen] = useState<number | null>(null)
  const [selected, setSelected] = useState<Set<number>>(new Set())
  const [creating, setCreating] = useState(false)
  const [message, setMessage] = useState('')
  const [confirming, setConfirming] = useState<number[] | null>(null)
  const [reload, setReload] = useState(0)
  const serviceSelect = useId('service')
  const typeSelect = useId('dsltype')
  const sizeSelect = useId('pagesize')
  const pageInput = useId('page')
  const refresh = (): void => setReload((n) => n + 1)
  // A transaction opened by id (the live view's "Edit the closest transaction"), shown above the list in its editor.
  const [linked, setLinked] = useState<Transaction | null>(null)
  useEffect(() => {
    setLinked(null)
    if (!/^\d+$/.test(openId)) return
    call<Transaction>('GET', v1(workspaceId, `/transactions/${openId}`)).then(
      (r) => setLinked(r.result),
      setError,
    )
  }, [workspaceId, openId])

  useEffect(() => {
    setServiceId(initialServiceId)
  }, [initialServiceId])
  // A new filter starts again at the first page, with nothing selected.
  useEffect(() => {
    setSkip(0)
    setSelected(new Set())
  }, [workspaceId, serviceId, search, tag, dslType, pageSize])
  useEffect(() => {
    const q = new URLSearchParams({ limit: String(pageSize), skip: String(skip), sort: 'name' })
    if (serviceId !== '') q.set('serviceId', serviceId)
    if (search !== '') q.set('search', search)
    if (tag.trim() !== '') q.set('tags', tag.trim())
    if (dslType !== '') q.set('dslType', dslType)
    // An answer to a page asked for before the latest one is dropped, whenever it arrives.
    let latest = true
    const timer = setTimeout(() => {
      call<Transaction[]>('GET', v1(workspaceId, `/transactions?${q.toString()}`)).then(
        (r) => {
          if (!latest) return
          const all = r.total ?? r.result.length
          // A deletion can leave the page past the end: step back to the last page.
          if (r.result.length === 0 && skip > 0 && all > 0) {
            setSkip(Math.floor((all - 1) / pageSize) * pageSize)
            return
          }
          setItems(r.result)
          setShownSkip(skip)
          setTotal(all)
          setLoaded(true)
          setError(null)
        },
        (err: unknown) => {
          if (latest) setError(err)
        },
      )
    }, 150)
    return () => {
      latest = false
      clearTimeout(timer)
    }
  }, [workspaceId, serviceId, search, tag, dslType, pageSize, skip, reload])

  const pages = Math.max(1, Math.ceil(total / pageSize))
  const page = Math.floor(skip / pageSize) + 1
  const goTo = (n: number): void => {
    setSkip((Math.min(Math.max(n, 1), pages) - 1) * pageSize)
    setOpen(null)
  }
  const chosen = items.filter((t) => selected.has(t.id))
  const toggle = (id: number): void =>
    setSelected((s) => {
      const n = new Set(s)
      if (n.has(id)) n.delete(id)
      else n.add(id)
      return n
    })
  const allOnPage = items.length > 0 && items.every((t) => selected.has(t.id))

  const create = async (draft: TransactionDraft): Promise<void> => {
    const r = await call<Transaction[]>(
      'POST',
      v1(workspaceId, `/transactions?serviceId=${serviceId}`),
      draft,
    )
    const made = Array.isArray(r.result) ? r.result[0] : (r.result as unknown as Transaction)
    setCreating(false)
    setMessage(`Created transaction ${made === undefined ? '' : `#${made.id} `}${draft.name}.`)
    refresh()
  }
  const duplicate = (t: Transaction): void => {
    call<Transaction[]>('POST', v1(workspaceId, `/transactions?serviceId=${t.serviceId}`), {
      ...exported(t),
      name: `${t.name} (copy)`.slice(0, 255),
    }).then((r) => {
      const made = Array.isArray(r.result) ? r.result[0] : (r.result as unknown as Transaction)
      setMessage(
        `Duplicated #${t.id} as ${made === undefined ? 'a new transaction' : `#${made.id}`} "${t.name} (copy)".`,
      )
      refresh()
    }, setError)
  }
  const remove = (ids: number[]): void => {
    setConfirming(null)
    Promise.all(
      ids.map(async (id) => await call('DELETE', v1(workspaceId, `/transactions/${id}`))),
    ).then(
      () => {
        setMessage(
          `Deleted ${ids.length === 1 ? `transaction #${ids[0] ?? ''}` : `${ids.length} transactions`}.`,
        )
        setSelected(new Set())
        if (linked !== null && ids.includes(linked.id)) setLinked(null)
        setOpen(null)
        refresh()
      },
      (err: unknown) => {
        setError(err)
        refresh()
      },
    )
  }

  const rows = grouped ? groupByRequest(items) : [{ key: '', label: '', items }]
  // The range says which rows are shown, not which page was asked for.
  const first = total === 0 || items.length === 0 ? 0 : shownSkip + 1
  const last = Math.min(shownSkip + items.length, total)
  return (
    <section aria-labelledby="txn-heading">
      <h1 id="txn-heading">Transactions</h1>
      <div class="filters">
        <div class="field">
          <label for={serviceSelect}>Service</label>
          <select
            id={serviceSelect}
            value={serviceId}
            onChange={(e) => setServiceId((e.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">All services</option>
            {services.map((s) => (
              <option key={s.id} value={String(s.id)}>
                {s.name}
              </option>
            ))}
          </select>
        </div>
        <Field
          label="Search name or description"
          type="search"
          value={search}
          onInput={setSearch}
        />
        <Field label="Tags (comma-separated)" value={tag} onInput={setTag} />
        <div class="field">
          <label for={typeSelect}>Origin</label>
          <select
            id={typeSelect}
            value={dslType}
            onChange={(e) => setDslType((e.currentTarget as HTMLSelectElement).value)}
          >
            {DSL_TYPES.map((t) => (
              <option key={t} value={t}>
                {t === '' ? 'Any origin' : t}
              </option>
            ))}
          </select>
        </div>
      </div>
      <Import workspaceId={workspaceId} serviceId={serviceId} onDone={refresh} />
      <Alert error={error} />
      {message !== '' && <Status>{message}</Status>}
      <div class="toolbar">
        <button
          type="button"
          onClick={() => {
            setCreating(true)
            setMessage('')
          }}
          disabled={serviceId === ''}
          title={serviceId === '' ? 'Choose a service first' : undefined}
        >
          New transaction
        </button>
        {serviceId === '' && (
          <span class="muted">Choose a service to create transactions in it.</span>
        )}
        <div class="field inline">
          <label for={sizeSelect}>Per page</label>
          <select
            id={sizeSelect}
            value={String(pageSize)}
            onChange={(e) => setPageSize(Number((e.currentTarget as HTMLSelectElement).value))}
          >
            {PAGE_SIZES.map((n) => (
              <option key={n} value={String(n)}>
                {n}
              </option>
            ))}
          </select>
        </div>
        <label class="check">
          <input
            type="checkbox"
            checked={grouped}
            onChange={(e) => setGrouped((e.currentTarget as HTMLInputElement).checked)}
          />{' '}
          Group by method and path
        </label>
      </div>
      {creating && serviceId !== '' && (
        <div class="panel">
          <h2>New transaction</h2>
          <TransactionEditor
            initial={{
              name: '',
              description: '',
              tags: [],
              dsl: {
                requestDsl: {
                  method: 'GET',
                  url: { matcherName: 'equals_url', matchingValue: '/' },
                },
                responseDsl: { status: 200, contentType: 'json', content: 'e30=' },
              },
            }}
            submitLabel="Create transaction"
            onSave={create}
            onCancel={() => setCreating(false)}
          />
        </div>
      )}
      {linked !== null && (
        <div class="linked">
          <h2>
            Transaction #{linked.id}: {linked.name}
          </h2>
          <TransactionPanel
            workspaceId={workspaceId}
            txn={linked}
            initialView="edit"
            onChanged={() => {
              refresh()
              call<Transaction>('GET', v1(workspaceId, `/transactions/${linked.id}`)).then(
                (r) => setLinked(r.result),
                setError,
              )
            }}
            onDuplicate={() => duplicate(linked)}
            onDelete={() => setConfirming([linked.id])}
          />
        </div>
      )}
      <div class="toolbar" aria-label="Selection">
        <label class="check">
          <input
            type="checkbox"
            checked={allOnPage}
            onChange={() => setSelected(allOnPage ? new Set() : new Set(items.map((t) => t.id)))}
          />{' '}
          Select all on this page
        </label>
        <span class="muted">{chosen.length} selected</span>
        <button
          type="button"
          class="small"
          disabled={chosen.length === 0}
          onClick={() => exportTransactions(chosen, 'json', `transactions-${workspaceId}`)}
        >
          Export selected as JSON
        </button>
        <button
          type="button"
          class="small"
          disabled={chosen.length === 0}
          onClick={() => exportTransactions(chosen, 'yaml', `transactions-${workspaceId}`)}
        >
          Export selected as YAML
        </button>
        <button
          type="button"
          class="small danger"
          disabled={chosen.length === 0}
          onClick={() => setConfirming(chosen.map((t) => t.id))}
        >
          Delete selected
        </button>
      </div>
      {confirming !== null && (
        <div class="confirm" role="alertdialog" aria-label="Confirm deletion">
          <p>
            Delete{' '}
            {confirming.length === 1
              ? `transaction #${confirming[0] ?? ''}`
              : `${confirming.length} transactions`}
            ? Mock services built from {confirming.length === 1 ? 'it' : 'them'} stop serving{' '}
            {confirming.length === 1 ? 'it' : 'them'} at their next configure.
          </p>
          <div class="actions">
            <button type="button" class="danger" onClick={() => remove(confirming)}>
              Delete
            </button>
            <button type="button" class="secondary" onClick={() => setConfirming(null)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      <p class="count" role="status">
        {loaded
          ? `${count(first)}–${count(last)} of ${count(total)} transaction${total === 1 ? '' : 's'}${shownSkip === skip ? '' : `; loading page ${count(page)}…`}`
          : 'Loading…'}
      </p>
      <Pager page={page} pages={pages} onPage={goTo} inputId={pageInput} />
      {rows.map((group) => (
        <div key={group.key} class="txn-group">
          {group.label !== '' && (
            <h2 class="group-heading">
              {group.label} <span class="muted">({group.items.length})</span>
            </h2>
          )}
          <ul class="txn-list">
            {group.items.map((t) => {
              const line = requestLine(t.dsl)
              const sameAsRequest = t.name === `${line.method} ${line.path}`
              return (
                <li key={t.id}>
                  <div class="txn-row">
                    <input
                      type="checkbox"
                      aria-label={`Select transaction #${t.id}`}
                      checked={selected.has(t.id)}
                      onChange={() => toggle(t.id)}
                    />
                    <button
                      type="button"
                      class="row-button"
                      aria-expanded={open === t.id}
                      onClick={() => setOpen(open === t.id ? null : t.id)}
                    >
                      <span class="muted">#{t.id}</span> <span class="method">{line.method}</span>{' '}
                      <code class="path">{line.path}</code>{' '}
                      <span class={`badge status-${String(statusOf(t.dsl))[0] ?? ''}`}>
                        {statusOf(t.dsl)}
                      </span>
                      {!sameAsRequest && (
                        <>
                          {' '}
                          <span class="name">{t.name}</span>
                        </>
                      )}
                      {t.tags.map((g) => (
                        <span key={g}>
                          {' '}
                          <span class="badge tag">{g}</span>
                        </span>
                      ))}
                      <span class="muted">
                        {' '}
                        {t.serviceName} · {t.dslType}
                      </span>
                    </button>
                  </div>
                  {open === t.id && (
                    <TransactionPanel
                      workspaceId={workspaceId}
                      txn={t}
                      onChanged={refresh}
                      onDuplicate={() => duplicate(t)}
                      onDelete={() => setConfirming([t.id])}
                    />
                  )}
                </li>
              )
            })}
          </ul>
        </div>
      ))}
      {loaded && total === 0 && <p>No transactions match. Import a file above, or create one.</p>}
      {pages > 1 && (
        <Pager page={page} pages={pages} onPage={goTo} inputId={`${pageInput}-bottom`} />
      )}
    </section>
  )
}

/** Transactions of one page grouped by method and path, in the order they came. */
function groupByRequest(
  items: Transaction[],
): Array<{ key: string; label: string; items: Transaction[] }> {
  const groups = new Map<string, Transaction[]>()
  for (const t of items) {
    const line = requestLine(t.dsl)
    const key = `${line.method} ${line.path}`
    const list = groups.get(key)
    if (list === undefined) groups.set(key, [t])
    else list.push(t)
  }
  return [...groups].map(([key, list]) => ({ key, label: key, items: list }))
}

/** First, previous, a page number to type, next, last. */
function Pager({
  page,
  pages,
  onPage,
  inputId,
}: {
  page: number
  pages: number
  onPage: (n: number) => void
  inputId: string
}): JSX.Element {
  const [typed, setTyped] = useState(String(page))
  useEffect(() => setTyped(String(page)), [page])
  return (
    <nav class="pager" aria-label="Pages of transactions">
      <button type="button" class="small" disabled={page <= 1} onClick={() => onPage(1)}>
        First
      </button>
      <button type="button" class="small" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <form
        class="page-jump"
        onSubmit={(e) => {
          e.preventDefault()
          const n = Number(typed)
          if (Number.isInteger(n)) onPage(n)
        }}
      >
        <label for={inputId}>Page</label>
        <input
          id={inputId}
          type="number"
          min={1}
          max={pages}
          value={typed}
          onInput={(e) => setTyped((e.currentTarget as HTMLInputElement).value)}
        />
        <span>of {count(pages)}</span>
        <button type="submit" class="small">
          Go
        </button>
      </form>
      <button type="button" class="small" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
      <button type="button" class="small" disabled={page >= pages} onClick={() => onPage(pages)}>
        Last
      </button>
    </nav>
  )
}

/** What an import with `summary=true` answers. */
interface ImportSummary {
  created: number
  files: Array<{ file: string; created: number }>
}

/** Drop zone and file chooser: a multipart create with `verbose=true`, then the import report. */
function Import({
  workspaceId,
  serviceId,
  onDone,
}: {
  workspaceId: number
  serviceId: string
  onDone: () => void
}): JSX.Element {
  const [over, setOver] = useState(false)
  const [report, setReport] = useState<ApiResponse<ImportSummary> | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  const upload = (files: FileList | null): void => {
    if (files === null || files.length === 0) return
    if (serviceId === '') {
      setError(
        new ApiError(
          400,
          'Choose the service to import into first (the Service filter above).',
          'ERR_UI',
          [],
        ),
      )
      return
    }
    const form = new FormData()
    form.set('serviceId', serviceId)
    form.set('verbose', 'true')
    // The page prints a count: the summary spares it every created transaction.
    form.set('summary', 'true')
    for (const file of Array.from(files)) form.append('file', file, file.name)
    setBusy(true)
    setError(null)
    setReport(null)
    call<ImportSummary>('POST', v1(workspaceId, '/transactions'), form)
      .then((r) => {
        setReport(r)
        onDone()
      }, setError)
      .finally(() => {
        setBusy(false)
        if (input.current !== null) input.current.value = ''
      })
  }
  return (
    <div
      class={`dropzone${over ? ' over' : ''}`}
      onDragOver={(e) => {
        e.preventDefault()
        setOver(true)
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault()
        setOver(false)
        upload(e.dataTransfer?.files ?? null)
      }}
    >
      <label for="import-file">
        Import HAR, OpenAPI, Postman, WireMock, Mockoon or RR files: drop them here or choose
      </label>
      <input
        id="import-file"
        ref={input}
        type="file"
        multiple
        onChange={(e) => upload((e.currentTarget as HTMLInputElement).files)}
      />
      {busy && <Status>Importing…</Status>}
      <Alert error={error} />
      {error instanceof ApiError && error.details.length > 0 && (
        <ul class="field-error">
          {error.details.slice(0, 20).map((d, i) => (
            <li key={i}>
              {d.path}: {d.message}
            </li>
          ))}
        </ul>
      )}
      {report !== null && (
        <div class="report" role="status">
          <p>
            Imported {report.result.created.toLocaleString('en')} transaction
            {report.result.created === 1 ? '' : 's'}.
          </p>
          {(report.warnings ?? []).length > 0 && (
            <>
              <p>Dropped or ambiguous:</p>
              <ul>
                {(report.warnings ?? []).map((w, i) => (
                  <li key={i}>
                    {w.file !== undefined ? `${w.file}: ` : ''}
                    {w.message}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </div>
  )
}

type View = 'card' | 'edit' | 'advanced'

function TransactionPanel({
  workspaceId,
  txn,
  onChanged,
  onDuplicate,
  onDelete,
  initialView = 'card',
}: {
  workspaceId: number
  txn: Transaction
  onChanged: () => void
  onDuplicate: () => void
  onDelete: () => void
  initialView?: View
}): JSX.Element {
  const [view, setView] = useState<View>(initialView)
  const shown = exported(txn)
  const save = async (draft: TransactionDraft): Promise<void> => {
    await call<Transaction>('PUT', v1(workspaceId, `/transactions/${txn.id}`), draft)
    setView('card')
    onChanged()
  }
  return (
    <div class="panel">
      <div class="actions">
        <button type="button" class="small" onClick={onDuplicate}>
          Duplicate
        </button>
        <button
          type="button"
          class="small"
          onClick={() => exportTransactions([txn], 'json', `transaction-${txn.id}`)}
        >
          Export JSON
        </button>
        <button
          type="button"
          class="small"
          onClick={() => exportTransactions([txn], 'yaml', `transaction-${txn.id}`)}
        >
          Export YAML
        </button>
        <button type="button" class="small danger" onClick={onDelete}>
          Delete
        </button>
      </div>
      <Tabs
        label={`Views of ${txn.name}`}
        tabs={[
          ['card', 'Card'],
          ['edit', 'Edit'],
          ['advanced', 'Advanced (DSL)'],
        ]}
        selected={view}
        onSelect={setView}
      >
        {view === 'card' && <Card txn={txn} />}
        {view === 'edit' && (
          <TransactionEditor initial={shown} submitLabel="Save transaction" onSave={save} />
        )}
        {view === 'advanced' && (
          <Advanced
            workspaceId={workspaceId}
            txn={txn}
            shown={shown}
            onSaved={() => {
              setView('card')
              onChanged()
            }}
          />
        )}
      </Tabs>
    </div>
  )
}

/** The raw DSL: JSON to edit, YAML to read. */
function Advanced({
  workspaceId,
  txn,
  shown,
  onSaved,
}: {
  workspaceId: number
  txn: Transaction
  shown: TransactionDraft
  onSaved: () => void
}): JSX.Element {
  const [format, setFormat] = useState<'json' | 'yaml'>('json')
  return (
    <>
      <div class="actions" role="group" aria-label="DSL format">
        <button
          type="button"
          class="small"
          aria-pressed={format === 'json'}
          onClick={() => setFormat('json')}
        >
          JSON
        </button>
        <button
          type="button"
          class="small"
          aria-pressed={format === 'yaml'}
          onClick={() => setFormat('yaml')}
        >
          YAML
        </button>
      </div>
      {format === 'json' ? (
        <RawEdit workspaceId={workspaceId} txn={txn} onSaved={onSaved} />
      ) : (
        <pre tabIndex={0}>{toYaml(shown).trimStart()}</pre>
      )}
    </>
  )
}

function Card({ txn }: { txn: Transaction }): JSX.Element {
  const req = txn.dsl.requestDsl
  const res = txn.dsl.responseDsl
  const url = req['url'] as { matcherName?: string; matchingValue?: string } | undefined
  const headers = (res['headers'] ?? []) as Array<{ name: string; value: string }>
  return (
    <div class="card">
      <div>
        <h2>Request</h2>
        <p>
          <span class="method">{String(req['method'] ?? 'ANY')}</span>{' '}
          <code>{url?.matchingValue ?? String(req['path'] ?? '')}</code>{' '}
          <span class="muted">({url?.matcherName ?? 'equals_url'})</span>
        </p>
        {txn.description !== '' && <p>{txn.description}</p>}
        {txn.tags.length > 0 && <p>Tags: {txn.tags.join(', ')}</p>}
      </div>
      <div>
        <h2>Response</h2>
        <p>
          Status <strong>{String(res['status'] ?? 200)}</strong>{' '}
          {res['contentType'] !== undefined && (
            <span class="muted">{String(res['contentType'])}</span>
          )}
        </p>
        {headers.length > 0 && (
          <ul class="headers">
            {headers.map((h, i) => (
              <li key={i}>
                <code>
                  {h.name}: {h.value}
                </code>
              </li>
            ))}
          </ul>
        )}
        <pre tabIndex={0}>{decodeBase64(res['content'] as string | undefined)}</pre>
      </div>
    </div>
  )
}

function RawEdit({
  workspaceId,
  txn,
  onSaved,
}: {
  workspaceId: number
  txn: Transaction
  onSaved: () => void
}): JSX.Element {
  const [dsl, setDsl] = useState(JSON.stringify(txn.dsl, null, 2))
  const [problem, setProblem] = useState<string | undefined>(undefined)
  const [error, setError] = useState<unknown>(null)
  const save = (e: Event): void => {
    e.preventDefault()
    let parsed: unknown
    try {
      parsed = JSON.parse(dsl)
    } catch (err) {
      setProblem(`The DSL is not valid JSON: ${(err as Error).message}`)
      return
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      setProblem('The DSL must be a JSON object')
      return
    }
    setProblem(undefined)
    call<Transaction>('PUT', v1(workspaceId, `/transactions/${txn.id}`), {
      ...exported(txn),
      dsl: parsed,
    }).then(
      () => {
        setError(null)
        onSaved()
      },
      (err: unknown) => {
        setError(err)
        if (err instanceof ApiError) {
          const dslProblems = err.details
            .filter((d) => d.path.startsWith('/dsl'))
            .map((d) => `${d.path.slice(4) || '/'}: ${d.message}`)
          setProblem(dslProblems.length > 0 ? dslProblems.join('; ') : undefined)
        }
      },
    )
  }
  return (
    <form onSubmit={save} noValidate aria-label={`Edit the DSL of ${txn.name}`}>
      <Field label="DSL (JSON)" value={dsl} onInput={setDsl} error={problem} multiline rows={16} />
      <button type="submit">Save DSL</button>
      <Alert error={error} />
    </form>
  )
}
