import type { ComponentChildren, JSX } from 'preact'
import { useState } from 'preact/hooks'
import { ApiError } from './api.js'

export { toYaml } from './yaml.js'

let nextId = 0
/** A stable id for label/input pairs. */
export function useId(prefix: string): string {
  const [id] = useState(() => `${prefix}-${++nextId}`)
  return id
}

interface FieldProps {
  label: string
  value: string
  onInput: (value: string) => void
  error?: string | undefined
  type?: string
  multiline?: boolean
  required?: boolean
  placeholder?: string
  autoComplete?: string
  rows?: number
}

/** A labelled input whose error sits at the field and is announced with it. */
export function Field(props: FieldProps): JSX.Element {
  const id = useId('field')
  const errorId = `${id}-error`
  const common = {
    id,
    value: props.value,
    'aria-invalid': props.error !== undefined,
    'aria-describedby': props.error !== undefined ? errorId : undefined,
    required: props.required,
    placeholder: props.placeholder,
    onInput: (e: Event) => props.onInput((e.currentTarget as HTMLInputElement).value),
  }
  return (
    <div class="field">
      <label for={id}>
        {props.label}
        {props.required === true ? ' *' : ''}
      </label>
      {props.multiline === true ? (
        <textarea {...common} rows={props.rows ?? 8} spellcheck={false} />
      ) : (
        <input
          {...common}
          type={(props.type ?? 'text') as 'text'}
          autoComplete={props.autoComplete}
        />
      )}
      {props.error !== undefined && (
        <p class="field-error" id={errorId}>
          {props.error}
        </p>
      )}
    </div>
  )
}

/** An error in words, announced to screen readers; never a stack trace. */
export function Alert({ error }: { error: unknown }): JSX.Element | null {
  if (error === null || error === undefined) return null
  const message = error instanceof ApiError ? error.message : 'Something went wrong; try again.'
  return (
    <p class="alert" role="alert">
      {message}
    </p>
  )
}

export function Status({ children }: { children: ComponentChildren }): JSX.Element {
  return (
    <p class="status" role="status" aria-live="polite">
      {children}
    </p>
  )
}

/** Copies a value to the clipboard and says so. */
export function CopyButton({ value, label }: { value: string; label: string }): JSX.Element {
  const [done, setDone] = useState(false)
  return (
    <button
      type="button"
      class="small"
      aria-label={label}
      onClick={() => {
        navigator.clipboard.writeText(value).then(
          () => {
            setDone(true)
            setTimeout(() => setDone(false), 1500)
          },
          () => setDone(false),
        )
      }}
    >
      {done ? 'Copied' : 'Copy'}
    </button>
  )
}

/** Validation before sending: a required, trimmed name of at most 255 characters. */
export function nameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'is required'
  if (name.trim().length > 255) return 'must be at most 255 characters'
  return undefined
}

/**
 * Tabs as the ARIA tabs pattern: one tab stop, arrow keys (and Home/End) move between tabs and
 * select them, the panel is labelled by its tab.
 */
export function Tabs<T extends string>({
  label,
  tabs,
  selected,
  onSelect,
  children,
}: {
  label: string
  tabs: ReadonlyArray<readonly [T, string]>
  selected: T
  onSelect: (tab: T) => void
  children: ComponentChildren
}): JSX.Element {
  const id = useId('tabs')
  const move = (e: KeyboardEvent, index: number): void => {
    const last = tabs.length - 1
    const next =
      e.key === 'ArrowRight'
        ? index === last
          ? 0
          : index + 1
        : e.key === 'ArrowLeft'
          ? index === 0
            ? last
            : index - 1
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? last
              : -1
    if (next < 0) return
    e.preventDefault()
    const tab = tabs[next]
    if (tab === undefined) return
    onSelect(tab[0])
    const list = (e.currentTarget as HTMLElement).parentElement
    const target = list?.querySelectorAll<HTMLElement>('[role="tab"]')[next]
    target?.focus()
  }
  return (
    <>
      <div role="tablist" aria-label={label}>
        {tabs.map(([value, name], i) => (
          <button
            key={value}
            type="button"
            role="tab"
            id={`${id}-${value}`}
            aria-controls={`${id}-panel`}
            aria-selected={selected === value}
            tabIndex={selected === value ? 0 : -1}
            onClick={() => onSelect(value)}
            onKeyDown={(e) => move(e, i)}
          >
            {name}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-${selected}`}>
        {children}
      </div>
    </>
  )
}

/** Saves text as a file the browser downloads (exports are made in the page, from what the API gave). */
export function download(name: string, type: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type }))
  const a = document.createElement('a')
  a.href = url
  a.download = name
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 1000)
}
