import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { ApiError, type FieldError } from './api.js'
import {
  COMMON_STATUSES,
  DELAY_TYPES,
  dslOf,
  formOf,
  MATCHER_NAMES,
  MATCHER_PARTS,
  METHODS,
  PART_LABELS,
  type DelayType,
  type Dsl,
  type FormErrors,
  type MatcherPart,
  type MatcherRow,
  type TransactionForm,
} from './dsl-form.js'
import { Alert, Field, nameProblem, useId } from './widgets.js'
import { CellInput, CellSelect, EditableRows } from './rows.js'

export interface TransactionDraft {
  name: string
  description: string
  tags: string[]
  dsl: Dsl
}

const CONTENT_TYPES = ['json', 'text', 'xml', 'html']

/** A select with a visible label and its error at the field. */
function Select({
  label,
  value,
  options,
  onChange,
  error,
}: {
  label: string
  value: string
  options: ReadonlyArray<readonly [string, string]>
  onChange: (v: string) => void
  error?: string | undefined
}): JSX.Element {
  const id = useId('select')
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select
        id={id}
        value={value}
        aria-invalid={error !== undefined}
        aria-describedby={error !== undefined ? `${id}-error` : undefined}
        onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value)}
      >
        {options.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
      {error !== undefined && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  )
}

/** The API's DSL errors (`/dsl/responseDsl/status`) as the form's field names, where one fits. */
function formErrorsOf(details: FieldError[]): { fields: FormErrors; others: string[] } {
  const fields: FormErrors = {}
  const others: string[] = []
  for (const d of details) {
    const p = d.path
    if (p === '/name' || p === '/description' || p === '/tags') {
      fields[p.slice(1)] = d.message
      continue
    }
    if (p.startsWith('/dsl/responseDsl/status')) fields['status'] = d.message
    else if (p.startsWith('/dsl/requestDsl/url') || p.startsWith('/dsl/requestDsl/path')) {
      fields['urlValue'] = d.message
    } else if (p.startsWith('/dsl/responseDsl/responseDelay')) fields['delay.type'] = d.message
    else if (/^\/dsl\/responseDsl\/(content|text|json)/.test(p)) fields['body'] = d.message
    else others.push(`${p.replace(/^\/dsl/, '') || '/'}: ${d.message}`)
  }
  return { fields, others }
}

/**
 * The form editor of a transaction: name, request (method, path, matcher rows), response
 * (status picker, header table, decoded body, think time). `onSave` gets the draft to send and
 * answers the API's refusal, if any, which the form shows at its fields.
 */
export function TransactionEditor({
  initial,
  submitLabel,
  onSave,
  onCancel,
}: {
  initial: TransactionDraft
  submitLabel: string
  onSave: (draft: TransactionDraft) => Promise<void>
  onCancel?: () => void
}): JSX.Element {
  const [name, setName] = useState(initial.name)
  const [description, setDescription] = useState(initial.description)
  const [tags, setTags] = useState(initial.tags.join(', '))
  const [form, setForm] = useState<TransactionForm>(() => formOf(initial.dsl))
  const [errors, setErrors] = useState<FormErrors>({})
  const [others, setOthers] = useState<string[]>([])
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const set = <K extends keyof TransactionForm>(key: K, value: TransactionForm[K]): void => {
    setForm((f) => ({ ...f, [key]: value }))
    // A field's error goes once the field is changed; the next save checks it again.
    if (errors[key] !== undefined) setErrors(({ [key]: _gone, ...rest }) => rest)
  }

  const save = (e: Event): void => {
    e.preventDefault()
    const { dsl, errors: found } = dslOf(form, initial.dsl)
    const problem = nameProblem(name)
    if (problem !== undefined) found['name'] = `Name ${problem}`
    setErrors(found)
    setOthers([])
    if (Object.keys(found).length > 0) return
    setBusy(true)
    const draft = {
      name: name.trim(),
      description,
      tags: tags
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== ''),
      dsl,
    }
    onSave(draft)
      .then(
        () => {
          setError(null)
        },
        (err: unknown) => {
          setError(err)
          if (err instanceof ApiError) {
            const mapped = formErrorsOf(err.details)
            setErrors(mapped.fields)
            setOthers(mapped.others)
          }
        },
      )
      .finally(() => setBusy(false))
  }

  const statuses = COMMON_STATUSES.some(([s]) => String(s) === form.status)
    ? COMMON_STATUSES
    : [...COMMON_STATUSES, [Number(form.status), 'as saved'] as const]
  const jsonBody = form.bodyMode === 'text' && /json/i.test(form.contentType)
  return (
    <form
      class="txn-form"
      onSubmit={save}
      noValidate
      aria-label={`${submitLabel}: ${initial.name || 'new transaction'}`}
    >
      <div class="form-grid">
        <Field label="Name" value={name} onInput={setName} error={errors['name']} required />
        <Field
          label="Description"
          value={description}
          onInput={setDescription}
          error={errors['description']}
        />
        <Field
          label="Tags (comma-separated)"
          value={tags}
          onInput={setTags}
          error={errors['tags']}
        />
      </div>
      <fieldset>
        <legend>Request</legend>
        <div class="form-grid">
          <Select
            label="Method"
            value={form.method}
            options={METHODS.map((m) => [m, m === 'ANY' ? 'Any method' : m])}
            onChange={(v) => set('method', v)}
          />
          <Select
            label="Path matcher"
            value={form.urlMatcher}
            options={[
              ['equals_url', 'equals (with {name} segments)'],
              ['matches_url', 'matches (regex)'],
            ]}
            onChange={(v) => set('urlMatcher', v)}
          />
          <Field
            label="Path"
            value={form.urlValue}
            onInput={(v) => set('urlValue', v)}
            error={errors['urlValue']}
            required
          />
        </div>
        <EditableRows
          caption="Matchers (every one must hold)"
          columns={['Part', 'Key', 'Matcher', 'Value', 'Optional']}
          rows={form.matchers}
          noun="matcher"
          onChange={(rows) => set('matchers', rows)}
          newRow={(): MatcherRow => ({
            part: 'headers',
            key: '',
            matcherName: 'equals',
            value: '',
            optional: false,
            rest: {},
          })}
          cells={(m, i, change) => [
            <CellSelect
              key="part"
              label={`Part of matcher ${i + 1}`}
              value={m.part}
              options={MATCHER_PARTS.map((p) => [p, PART_LABELS[p]] as const)}
              onChange={(v) => change({ part: v as MatcherPart })}
            />,
            <CellInput
              key="key"
              label={`Key of matcher ${i + 1}`}
              value={m.key}
              onInput={(v) => change({ key: v })}
              error={errors[`matchers.${i}.key`]}
            />,
            <CellSelect
              key="matcher"
              label={`Matcher ${i + 1}`}
              value={m.matcherName}
              options={MATCHER_NAMES}
              onChange={(v) => change({ matcherName: v })}
            />,
            <CellInput
              key="value"
              label={`Value of matcher ${i + 1}`}
              value={m.value}
              onInput={(v) => change({ value: v })}
            />,
            <input
              key="optional"
              type="checkbox"
              aria-label={`Matcher ${i + 1} is optional`}
              checked={m.optional}
              onChange={(e) => change({ optional: (e.currentTarget as HTMLInputElement).checked })}
            />,
          ]}
        />
      </fieldset>
      <fieldset>
        <legend>Response</legend>
        <div class="form-grid">
          <Select
            label="Status"
            value={form.status}
            options={statuses.map(([s, l]) => [String(s), `${s} ${l}`])}
            onChange={(v) => set('status', v)}
            error={errors['status']}
          />
          <Select
            label="Content type"
            value={form.contentType}
            options={[
              ['', 'none'],
              ...CONTENT_TYPES.map((t) => [t, t] as const),
              ...(CONTENT_TYPES.includes(form.contentType) || form.contentType === ''
                ? []
                : [[form.contentType, form.contentType] as const]),
            ]}
            onChange={(v) => set('contentType', v)}
          />
          <Select
            label="Think time"
            value={form.delay.type}
            options={DELAY_TYPES.map((t) => [t, t])}
            onChange={(v) => set('delay', { ...form.delay, type: v as DelayType })}
            error={errors['delay.type']}
          />
          {form.delay.type === 'fixed' && (
            <Field
              label="Duration (ms)"
              type="number"
              value={form.delay.duration}
              onInput={(v) => set('delay', { ...form.delay, duration: v })}
              error={errors['delay.duration']}
            />
          )}
          {form.delay.type === 'uniform' && (
            <Field
              label="From (ms)"
              type="number"
              value={form.delay.lower}
              onInput={(v) => set('delay', { ...form.delay, lower: v })}
              error={errors['delay.lower']}
            />
          )}
          {(form.delay.type === 'uniform' || form.delay.type === 'lognormal') && (
            <Field
              label="Up to (ms)"
              type="number"
              value={form.delay.upper}
              onInput={(v) => set('delay', { ...form.delay, upper: v })}
              error={errors['delay.upper']}
            />
          )}
          {form.delay.type === 'lognormal' && (
            <Field
              label="Median (ms)"
              type="number"
              value={form.delay.median}
              onInput={(v) => set('delay', { ...form.delay, median: v })}
              error={errors['delay.median']}
            />
          )}
          {form.delay.type === 'lognormal' && (
            <Field
              label="Sigma"
              type="number"
              value={form.delay.sigma}
              onInput={(v) => set('delay', { ...form.delay, sigma: v })}
              error={errors['delay.sigma']}
            />
          )}
        </div>
        <EditableRows
          caption="Response headers"
          columns={['Name', 'Value']}
          rows={form.headers}
          noun="header"
          onChange={(rows) => set('headers', rows)}
          newRow={() => ({ name: '', value: '' })}
          cells={(h, i, change) => [
            <CellInput
              key="name"
              label={`Name of header ${i + 1}`}
              value={h.name}
              onInput={(v) => change({ name: v })}
              error={errors[`headers.${i}.name`]}
            />,
            <CellInput
              key="value"
              label={`Value of header ${i + 1}`}
              value={h.value}
              onInput={(v) => change({ value: v })}
            />,
          ]}
        />
        <Field
          label={
            form.bodyMode === 'binary' ? 'Body (binary, base64)' : jsonBody ? 'Body (JSON)' : 'Body'
          }
          value={form.body}
          onInput={(v) => set('body', v)}
          error={errors['body']}
          multiline
          rows={12}
        />
        {jsonBody && (
          <button
            type="button"
            class="small"
            onClick={() => {
              try {
                set('body', JSON.stringify(JSON.parse(form.body), null, 2))
              } catch (err) {
                setErrors({
                  ...errors,
                  body: `The body is not valid JSON: ${(err as Error).message}`,
                })
              }
            }}
          >
            Format JSON
          </button>
        )}
      </fieldset>
      {others.length > 0 && (
        <ul class="field-error">
          {others.map((o, i) => (
            <li key={i}>{o}</li>
          ))}
        </ul>
      )}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {submitLabel}
        </button>
        {onCancel !== undefined && (
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      <Alert error={error} />
    </form>
  )
}
