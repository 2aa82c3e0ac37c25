import type { ComponentChildren, JSX } from 'preact'

/*
 * Editable rows (matchers, headers, assertions, variables): one table shape for every form that
 * edits a list, each cell labelled for screen readers by its column and row number, a Remove
 * button per row, and below it an Add button.
 */

/** A text input in a cell, its error under it. */
export function CellInput({
  label,
  value,
  onInput,
  error,
}: {
  label: string
  value: string
  onInput: (v: string) => void
  error?: string | undefined
}): JSX.Element {
  return (
    <>
      <input
        aria-label={label}
        value={value}
        aria-invalid={error !== undefined}
        onInput={(e) => onInput((e.currentTarget as HTMLInputElement).value)}
      />
      {error !== undefined && <p class="field-error">{error}</p>}
    </>
  )
}

/** A select in a cell; a value not among the options (as saved by another tool) is offered too. */
export function CellSelect({
  label,
  value,
  options,
  onChange,
}: {
  label: string
  value: string
  options: ReadonlyArray<string | readonly [string, string]>
  onChange: (v: string) => void
}): JSX.Element {
  const pairs = options.map((o) => (typeof o === 'string' ? ([o, o] as const) : o))
  return (
    <select
      aria-label={label}
      value={value}
      onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value)}
    >
      {pairs.some(([v]) => v === value) ? null : <option value={value}>{value}</option>}
      {pairs.map(([v, text]) => (
        <option key={v} value={v}>
          {text}
        </option>
      ))}
    </select>
  )
}

/**
 * A table of editable rows. `cells` renders one row's cells (one per column); `noun` names a row
 * in the Remove and Add labels (`Remove header 2`, `Add header`), `of` what the rows belong to.
 */
export function EditableRows<R>({
  caption,
  columns,
  rows,
  noun,
  of,
  cells,
  onChange,
  newRow,
  addLabel,
}: {
  caption: string
  columns: readonly string[]
  rows: readonly R[]
  noun: string
  of?: string
  cells: (row: R, index: number, change: (next: Partial<R>) => void) => ComponentChildren[]
  onChange: (rows: R[]) => void
  newRow: () => R
  addLabel?: string
}): JSX.Element {
  const suffix = of === undefined ? '' : ` of ${of}`
  const change = (i: number, next: Partial<R>): void =>
    onChange(rows.map((r, j) => (j === i ? { ...r, ...next } : r)))
  return (
    <>
      <table class="rows">
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
            <th scope="col">
              <span class="visually-hidden">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i}>
              {cells(row, i, (next) => change(i, next)).map((cell, k) => (
                <td key={k}>{cell}</td>
              ))}
              <td>
                <button
                  type="button"
                  class="small"
                  aria-label={`Remove ${noun} ${i + 1}${suffix}`}
                  onClick={() => onChange(rows.filter((_, j) => j !== i))}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button
        type="button"
        class="small"
        aria-label={addLabel}
        onClick={() => onChange([...rows, newRow()])}
      >
        Add {noun}
      </button>
    </>
  )
}
