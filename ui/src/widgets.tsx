import type { ComponentChildren, JSX } from 'preact'
import { useState } from 'preact/hooks'
import { ApiError } from './api.js'

let nextId = 0
/** A stable id for label/input pairs. */
export function useId (prefix: string): string {
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
export function Field (props: FieldProps): JSX.Element {
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
    <div class='field'>
      <label for={id}>{props.label}{props.required === true ? ' *' : ''}</label>
      {props.multiline === true
        ? <textarea {...common} rows={props.rows ?? 8} spellcheck={false} />
        : <input {...common} type={(props.type ?? 'text') as 'text'} autoComplete={props.autoComplete} />}
      {props.error !== undefined && <p class='field-error' id={errorId}>{props.error}</p>}
    </div>
  )
}

/** An error in words, announced to screen readers; never a stack trace. */
export function Alert ({ error }: { error: unknown }): JSX.Element | null {
  if (error === null || error === undefined) return null
  const message = error instanceof ApiError ? error.message : 'Something went wrong; try again.'
  return <p class='alert' role='alert'>{message}</p>
}

export function Status ({ children }: { children: ComponentChildren }): JSX.Element {
  return <p class='status' role='status' aria-live='polite'>{children}</p>
}

/** Copies a value to the clipboard and says so. */
export function CopyButton ({ value, label }: { value: string; label: string }): JSX.Element {
  const [done, setDone] = useState(false)
  return (
    <button
      type='button' class='small' aria-label={label} onClick={() => {
        navigator.clipboard.writeText(value).then(() => { setDone(true); setTimeout(() => setDone(false), 1500) }, () => setDone(false))
      }}
    >{done ? 'Copied' : 'Copy'}
    </button>
  )
}

/** Minimal YAML for display (the API speaks JSON; the YAML view is read-only). */
export function toYaml (value: unknown, indent = ''): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'string') return /^[\w./{}-][\w ./{}:-]*$/.test(value) && !/^(true|false|null|\d.*)$/.test(value) && !value.includes(': ') ? value : JSON.stringify(value)
  if (typeof value !== 'object') return String(value)
  const next = indent + '  '
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]'
    return value.map((v) => `\n${indent}- ${toYaml(v, next).replace(/^\n\s*/, '')}`).join('')
  }
  const entries = Object.entries(value as Record<string, unknown>)
  if (entries.length === 0) return '{}'
  return entries.map(([k, v]) => `\n${indent}${JSON.stringify(k).slice(1, -1)}: ${toYaml(v, next)}`).join('')
}

/** Validation before sending: a required, trimmed name of at most 255 characters. */
export function nameProblem (name: string): string | undefined {
  if (name.trim() === '') return 'is required'
  if (name.trim().length > 255) return 'must be at most 255 characters'
  return undefined
}
