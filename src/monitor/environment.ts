import type {
  EnvironmentDoc,
  HttpVersionSupport,
  MultiMap,
  NotifyOn,
  ResolvedEnvironment,
} from './types.js'

/** The environment of nothing: no variables, no headers, SSL verified, no notifications. */
function emptyEnvironment(): ResolvedEnvironment {
  return {
    id: null,
    name: null,
    initial_variables: Object.create(null) as Record<string, string>,
    headers: Object.create(null) as Record<string, string[]>,
    scripts: [],
    verify_ssl: true,
    preserve_cookies: false,
    stop_on_failure: false,
    client_certificate: null,
    http_version_support: 'h1_1',
    force_h2c: false,
    webhooks: [],
    emails: { notify_all: false, notify_on: 'all', notify_threshold: 1, recipients: [] },
  }
}

function toList(value: MultiMap[string] | undefined | null): string[] {
  if (value === undefined || value === null) return []
  return Array.isArray(value) ? value.map(String) : [String(value)]
}

function httpVersion(value: unknown, fallback: HttpVersionSupport): HttpVersionSupport {
  return value === 'h1_1' || value === 'h2' ? value : fallback
}

function notifyOn(value: unknown, fallback: NotifyOn): NotifyOn {
  return value === 'all' || value === 'failures' || value === 'threshold' ? value : fallback
}

/**
 * Applies a child environment over its (already resolved) parent, as the product inherits them:
 * variables and headers merge key by key (the child wins), scripts run parent first, settings the
 * child sets (non-null) replace the parent's.
 */
export function mergeEnvironments(
  parent: ResolvedEnvironment,
  child: EnvironmentDoc,
): ResolvedEnvironment {
  // Maps without a prototype: a variable (or header) named `__proto__` or `toString` is data.
  const headers: Record<string, string[]> = Object.assign(
    Object.create(null) as Record<string, string[]>,
    parent.headers,
  )
  for (const [name, value] of Object.entries(child.headers ?? {})) headers[name] = toList(value)
  const initial: Record<string, string> = Object.assign(
    Object.create(null) as Record<string, string>,
    parent.initial_variables,
  )
  for (const [name, value] of Object.entries(child.initial_variables ?? {})) {
    if (value !== null && value !== undefined) initial[name] = String(value)
  }
  const script =
    typeof child.script === 'string' && child.script.trim() !== '' ? [child.script] : []
  const emails = child.emails ?? null
  return {
    id: child.id ?? parent.id,
    name: child.name ?? parent.name,
    initial_variables: initial,
    headers,
    scripts: [...parent.scripts, ...script],
    verify_ssl: child.verify_ssl ?? parent.verify_ssl,
    preserve_cookies: child.preserve_cookies ?? parent.preserve_cookies,
    stop_on_failure: child.stop_on_failure ?? parent.stop_on_failure,
    client_certificate:
      typeof child.client_certificate === 'string' && child.client_certificate !== ''
        ? child.client_certificate
        : parent.client_certificate,
    http_version_support: httpVersion(child.http_version_support, parent.http_version_support),
    force_h2c: typeof child.force_h2c === 'boolean' ? child.force_h2c : parent.force_h2c,
    webhooks: Array.isArray(child.webhooks)
      ? child.webhooks.filter((w): w is string => typeof w === 'string')
      : parent.webhooks,
    emails:
      emails === null
        ? parent.emails
        : {
            notify_all: emails.notify_all ?? parent.emails.notify_all,
            notify_on: notifyOn(emails.notify_on, parent.emails.notify_on),
            notify_threshold:
              typeof emails.notify_threshold === 'number' && emails.notify_threshold > 0
                ? Math.floor(emails.notify_threshold)
                : parent.emails.notify_threshold,
            recipients: Array.isArray(emails.recipients)
              ? emails.recipients.filter((r) => typeof r?.email === 'string')
              : parent.emails.recipients,
          },
  }
}

/** Resolves an environment chain, the root first (as the API loads it), into one environment. */
export function resolveEnvironment(chain: readonly EnvironmentDoc[]): ResolvedEnvironment {
  return chain.reduce<ResolvedEnvironment>(
    (acc, env) => mergeEnvironments(acc, env),
    emptyEnvironment(),
  )
}
