import type { JSX } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ApiError, call, type Service } from './api.js'
import { Alert, Field, nameProblem, Status } from './widgets.js'

interface Named {
  id: number
  name: string
  description: string | null
}

interface Props {
  title: string
  /** Collection path (`/api/v1/workspaces/1/services`, `/api/v1/tags`). */
  base: string
  noun: string
  /** Link of an item, if it has a page (a service opens its transactions). */
  linkOf?: (item: Named) => string
}

/** List, search, create, rename and delete of services or tags (409s shown in words). */
export function NamedResources({ title, base, noun, linkOf }: Props): JSX.Element {
  const [items, setItems] = useState<Named[]>([])
  const [search, setSearch] = useState('')
  const [loadError, setLoadError] = useState<unknown>(null)
  const [message, setMessage] = useState('')
  const [reload, setReload] = useState(0)

  useEffect(() => {
    call<Named[]>('GET', `${base}?limit=1000&sort=name`).then((r) => {
      setItems(r.result)
      setLoadError(null)
    }, setLoadError)
  }, [base, reload])

  const shown = items.filter(
    (s) =>
      search === '' ||
      s.name.toLowerCase().includes(search.toLowerCase()) ||
      (s.description ?? '').toLowerCase().includes(search.toLowerCase()),
  )
  const done = (text: string): void => {
    setMessage(text)
    setReload((n) => n + 1)
  }

  return (
    <section aria-labelledby={`${noun}-heading`}>
      <h2 id={`${noun}-heading`}>{title}</h2>
      <CreateForm base={base} noun={noun} onDone={done} />
      <Field
        label={`Search ${title.toLowerCase()}`}
        value={search}
        onInput={setSearch}
        type="search"
      />
      {message !== '' && <Status>{message}</Status>}
      <Alert error={loadError} />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Description</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((item) => (
            <Row key={item.id} item={item} base={base} noun={noun} linkOf={linkOf} onDone={done} />
          ))}
          {shown.length === 0 && (
            <tr>
              <td colSpan={3}>
                No {title.toLowerCase()}
                {search === '' ? ' yet' : ' match the search'}.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  )
}

function CreateForm({
  base,
  noun,
  onDone,
}: {
  base: string
  noun: string
  onDone: (m: string) => void
}): JSX.Element {
  const [name, setName] = useState('')
  const [description, setDescription] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [nameError, setNameError] = useState<string | undefined>()
  const submit = (e: Event): void => {
    e.preventDefault()
    const problem = nameProblem(name)
    setNameError(problem === undefined ? undefined : `Name ${problem}`)
    if (problem !== undefined) return
    call<Named>('POST', base, {
      name: name.trim(),
      description: description === '' ? null : description,
    }).then(
      (r) => {
        setName('')
        setDescription('')
        setError(null)
        onDone(`Created ${noun} ${r.result.name}.`)
      },
      (err: unknown) => {
        setError(err)
        if (err instanceof ApiError) setNameError(err.field('/name'))
      },
    )
  }
  return (
    <form class="inline-form" onSubmit={submit} aria-label={`Create a ${noun}`} noValidate>
      <Field label={`New ${noun} name`} value={name} onInput={setName} error={nameError} required />
      <Field label="Description" value={description} onInput={setDescription} />
      <button type="submit">Create {noun}</button>
      <Alert error={error} />
    </form>
  )
}

function Row({
  item,
  base,
  noun,
  linkOf,
  onDone,
}: {
  item: Named
  base: string
  noun: string
  linkOf: Props['linkOf']
  onDone: (m: string) => void
}): JSX.Element {
  const [editing, setEditing] = useState(false)
  const [name, setName] = useState(item.name)
  const [nameError, setNameError] = useState<string | undefined>()
  const [error, setError] = useState<unknown>(null)
  const rename = (e: Event): void => {
    e.preventDefault()
    const problem = nameProblem(name)
    setNameError(problem === undefined ? undefined : `Name ${problem}`)
    if (problem !== undefined) return
    call<Named>('PUT', `${base}/${item.id}`, { name: name.trim() }).then(
      () => {
        setEditing(false)
        onDone(`Renamed ${item.name} to ${name.trim()}.`)
      },
      (err: unknown) => {
        setError(err)
        if (err instanceof ApiError) setNameError(err.field('/name'))
      },
    )
  }
  const remove = (): void => {
    if (!window.confirm(`Delete ${noun} "${item.name}"?`)) return
    call('DELETE', `${base}/${item.id}`).then(
      () => onDone(`Deleted ${noun} ${item.name}.`),
      setError,
    )
  }
  return (
    <tr>
      <td>
        {editing ? (
          <form onSubmit={rename} class="inline-form" noValidate>
            <Field
              label={`New name of ${item.name}`}
              value={name}
              onInput={setName}
              error={nameError}
              required
            />
            <button type="submit">Save</button>
            <button
              type="button"
              onClick={() => {
                setEditing(false)
                setName(item.name)
                setNameError(undefined)
              }}
            >
              Cancel
            </button>
          </form>
        ) : linkOf !== undefined ? (
          <a href={linkOf(item)}>{item.name}</a>
        ) : (
          item.name
        )}
      </td>
      <td>{item.description ?? ''}</td>
      <td class="actions">
        {!editing && (
          <button type="button" onClick={() => setEditing(true)} aria-label={`Rename ${item.name}`}>
            Rename
          </button>
        )}
        <button type="button" class="danger" onClick={remove} aria-label={`Delete ${item.name}`}>
          Delete
        </button>
        <Alert error={error} />
      </td>
    </tr>
  )
}

/** The services of a workspace, for selects. */
export function useServices(workspaceId: number): Service[] {
  const [services, setServices] = useState<Service[]>([])
  useEffect(() => {
    call<Service[]>('GET', `/api/v1/workspaces/${workspaceId}/services?limit=1000&sort=name`).then(
      (r) => setServices(r.result),
      () => setServices([]),
    )
  }, [workspaceId])
  return services
}
