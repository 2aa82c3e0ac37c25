import { render, type JSX } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import {
  ApiError,
  call,
  csrf,
  setCsrfToken,
  setExpiredHandler,
  type Session,
  type User,
  type Workspace,
} from './api.js'
import { NamedResources } from './catalog.js'
import { LiveInspection, LiveView, type InspectionSource } from './inspection.js'
import { MockServices } from './mocks.js'
import { hasMonitoring, Monitoring } from './monitoring.js'
import { Transactions } from './transactions.js'
import { Alert, Field, useId } from './widgets.js'

/** The hash route: `#/services`, `#/transactions?serviceId=1`, `#/mocks`, `#/mocks/3`. */
function useRoute(): { page: string; id: string; query: URLSearchParams } {
  const read = (): string => window.location.hash.replace(/^#/, '') || '/services'
  const [hash, setHash] = useState(read)
  useEffect(() => {
    const onChange = (): void => setHash(read())
    window.addEventListener('hashchange', onChange)
    return () => window.removeEventListener('hashchange', onChange)
  }, [])
  const [path = '', query = ''] = hash.split('?')
  const [, page = 'services', id = ''] = path.split('/')
  return { page, id, query: new URLSearchParams(query) }
}

function SignIn({
  onSignedIn,
  expired,
}: {
  onSignedIn: (s: Session) => void
  expired: boolean
}): JSX.Element {
  const form = useRef<HTMLFormElement>(null)
  // The sign-in dialog takes focus when it opens; the page behind it is inert while it is open.
  useEffect(() => {
    form.current?.querySelector<HTMLElement>('input')?.focus()
  }, [])
  const [keyId, setKeyId] = useState('')
  const [secret, setSecret] = useState('')
  const [errors, setErrors] = useState<Record<string, string | undefined>>({})
  const [error, setError] = useState<unknown>(null)
  const submit = (e: Event): void => {
    e.preventDefault()
    const found: Record<string, string | undefined> = {}
    if (keyId.trim() === '') found['keyId'] = 'The API key id is required'
    if (secret === '') found['secret'] = 'The secret is required'
    setErrors(found)
    if (Object.keys(found).length > 0) return
    call<Session>('POST', '/ui/session', { keyId: keyId.trim(), secret }).then(
      (r) => {
        setSecret('')
        onSignedIn(r.result)
      },
      (err: unknown) => {
        setError(err)
        if (err instanceof ApiError) {
          setErrors({ keyId: err.field('/keyId'), secret: err.field('/secret') })
        }
      },
    )
  }
  const content = (
    <form ref={form} onSubmit={submit} noValidate aria-labelledby="signin-heading">
      <h1 id="signin-heading">Understudy</h1>
      <p>
        {expired
          ? 'Your session has ended. Sign in again: what you typed on the page is kept.'
          : 'Sign in with an API key.'}
      </p>
      <Field
        label="API key id"
        value={keyId}
        onInput={setKeyId}
        error={errors['keyId']}
        autoComplete="username"
        required
      />
      <Field
        label="Secret"
        type="password"
        value={secret}
        onInput={setSecret}
        error={errors['secret']}
        autoComplete="current-password"
        required
      />
      <button type="submit">Sign in</button>
      <Alert error={error} />
    </form>
  )
  // Over a page (the session ended) it is a dialog, not a second main landmark.
  return expired ? <div class="signin">{content}</div> : <main class="signin">{content}</main>
}

/** Tab and Shift+Tab go round the dialog's own controls, never behind it. */
function keepFocusIn(e: KeyboardEvent): void {
  if (e.key !== 'Tab') return
  const focusable = [
    ...(e.currentTarget as HTMLElement).querySelectorAll<HTMLElement>(
      'input, button, select, textarea, a[href]',
    ),
  ].filter((el) => !el.hasAttribute('disabled'))
  const first = focusable[0]
  const last = focusable[focusable.length - 1]
  if (first === undefined || last === undefined) return
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault()
    last.focus()
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault()
    first.focus()
  }
}

function App(): JSX.Element {
  const [session, setSession] = useState<Session | null | undefined>(undefined)
  const [expired, setExpired] = useState(false)
  const [user, setUser] = useState<User | null>(null)
  const [workspaces, setWorkspaces] = useState<Workspace[]>([])
  const [workspaceId, setWorkspaceId] = useState<number>(
    Number(localStorage.getItem('understudy.workspace') ?? '0'),
  )
  const [error, setError] = useState<unknown>(null)
  const [monitoring, setMonitoring] = useState(false)
  const route = useRoute()
  const pickerId = useId('workspace')

  useEffect(() => {
    setExpiredHandler(() => setExpired(true))
    // Every call needs the session's token beside its cookie: without a stored token no session
    // can serve this tab, so sign-in shows at once (and a first visit logs no refused request).
    if (csrf() === '') setSession(null)
    else {
      call<Session>('GET', '/ui/session').then(
        (r) => {
          setCsrfToken(r.result.csrfToken)
          setSession(r.result)
        },
        () => setSession(null),
      )
    }
    // A sign-in in another tab of this dashboard gives this one its session too: the cookie is
    // shared already, the token arrives through localStorage.
    const onStorage = (e: StorageEvent): void => {
      if (e.key !== 'understudy.token' || e.newValue === null || e.newValue === '') return
      setCsrfToken(e.newValue)
      call<Session>('GET', '/ui/session').then(
        (r) => {
          setSession(r.result)
          setExpired(false)
        },
        () => undefined,
      )
    }
    window.addEventListener('storage', onStorage)
    return () => window.removeEventListener('storage', onStorage)
  }, [])

  // Navigation moves focus to the new page's heading, as a page load would for a screen reader.
  const place = `${route.page}/${route.id}`
  const firstPlace = useRef(place)
  useEffect(() => {
    if (place === firstPlace.current) return
    firstPlace.current = ''
    const heading = document.querySelector<HTMLElement>('main h1')
    if (heading === null) return
    heading.tabIndex = -1
    heading.focus()
  }, [place])

  useEffect(() => {
    if (session === null || session === undefined) return
    call<User>('GET', '/api/v4/user')
      .then(async (r) => {
        setUser(r.result)
        const list = await call<Workspace[]>(
          'GET',
          `/api/v4/workspaces?accountId=${r.result.accountId}&limit=0`,
        )
        setWorkspaces(list.result)
        const first = list.result[0]
        setWorkspaceId((current) =>
          list.result.some((w) => w.id === current) ? current : (first?.id ?? 0),
        )
        setMonitoring(await hasMonitoring())
      })
      .catch(setError)
  }, [session])

  const signedIn = (s: Session): void => {
    setCsrfToken(s.csrfToken)
    setSession(s)
    setExpired(false)
  }
  const signOut = (): void => {
    const done = (): void => {
      setCsrfToken('')
      setSession(null)
      setUser(null)
    }
    call('DELETE', '/ui/session').then(done, done)
  }
  const pickWorkspace = (id: number): void => {
    setWorkspaceId(id)
    localStorage.setItem('understudy.workspace', String(id))
  }

  if (session === undefined) {
    return (
      <main>
        <p role="status">Loading…</p>
      </main>
    )
  }
  if (session === null) return <SignIn onSignedIn={signedIn} expired={false} />
  const nav = [
    ['services', 'Services & tags'],
    ['transactions', 'Transactions'],
    ['mocks', 'Mock services'],
    ...(monitoring ? [['monitoring', 'Monitoring'] as const] : []),
  ] as const
  return (
    <>
      <a class="skip" href="#content" {...(expired ? { inert: true } : {})}>
        Skip to content
      </a>
      <header {...(expired ? { inert: true } : {})}>
        <span class="brand">Understudy</span>
        <nav aria-label="Pages">
          {nav.map(([page, label]) => (
            <a
              key={page}
              href={`#/${page}`}
              aria-current={route.page === page ? 'page' : undefined}
            >
              {label}
            </a>
          ))}
        </nav>
        <div class="field workspace">
          <label for={pickerId}>Workspace</label>
          <select
            id={pickerId}
            value={String(workspaceId)}
            onChange={(e) => pickWorkspace(Number((e.currentTarget as HTMLSelectElement).value))}
          >
            {workspaces.map((w) => (
              <option key={w.id} value={String(w.id)}>
                {w.name}
              </option>
            ))}
          </select>
        </div>
        <span class="muted">{user?.email ?? ''}</span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="content" tabIndex={-1} {...(expired ? { inert: true } : {})}>
        <Alert error={error} />
        {workspaceId > 0 && <Page route={route} workspaceId={workspaceId} />}
      </main>
      {expired && (
        <div
          class="overlay"
          role="dialog"
          aria-modal="true"
          aria-label="Sign in again"
          onKeyDown={keepFocusIn}
        >
          <SignIn onSignedIn={signedIn} expired />
        </div>
      )}
    </>
  )
}

function Page({
  route,
  workspaceId,
}: {
  route: ReturnType<typeof useRoute>
  workspaceId: number
}): JSX.Element {
  switch (route.page) {
    case 'transactions':
      return (
        <Transactions
          workspaceId={workspaceId}
          initialServiceId={route.query.get('serviceId') ?? ''}
          openId={route.query.get('open') ?? ''}
        />
      )
    case 'monitoring':
      return <Monitoring />
    case 'mocks':
      return route.id !== '' ? (
        <LiveInspection workspaceId={workspaceId} mockId={Number(route.id)} />
      ) : (
        <MockServices workspaceId={workspaceId} />
      )
    default:
      return (
        <>
          <h1>Services &amp; tags</h1>
          <NamedResources
            title="Services"
            noun="service"
            base={`/api/v1/workspaces/${workspaceId}/services`}
            linkOf={(s) => `#/transactions?serviceId=${s.id}`}
          />
          <NamedResources title="Tags" noun="tag" base="/api/v1/tags" />
        </>
      )
  }
}

/** Whatever fails while rendering, the page says so in words instead of going blank. */
window.addEventListener('error', () => {
  const root = document.getElementById('app')
  if (root !== null && root.childElementCount === 0) {
    root.textContent = 'The dashboard failed to start; reload the page.'
  }
})

/**
 * `understudy serve --admin-port N` serves the inspection part at /__ui/ on the admin port: no
 * sign-in (the admin listener is the developer's own, on loopback by default), one runtime.
 */
function LocalInspection(): JSX.Element {
  const source: InspectionSource = {
    list: (skip, limit) => `/inspection?skip=${skip}&limit=${limit}`,
    detail: (id) => `/inspection/${id}`,
    events: () => '/__ui/events',
  }
  return (
    <main id="content">
      <h1>Understudy: live requests of this runtime</h1>
      <LiveView source={source} workspaceId={0} mock={null} />
    </main>
  )
}

render(
  window.location.pathname.startsWith('/__ui') ? <LocalInspection /> : <App />,
  document.getElementById('app') as HTMLElement,
)
