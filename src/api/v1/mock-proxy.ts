import type { MockServiceProxy } from '../../store/index.js'
import { invalidField } from '../validation.js'

/*
 * The mock-service `proxy` object of the product: `{proxyUrl, nonProxyHosts, username,
 * password, certificateId}`. The runtime's live pass-through (`proxyUrl` transactions,
 * `bypasslive`) connects through it (docs/runtime.md). `certificateId` names a certificate asset
 * the product gives the proxy connection; this platform has no such asset type, so a value there
 * is refused naming it, never accepted and ignored.
 */

/** What GET shows in place of a stored password; sent back unchanged, it keeps the stored one. */
const PASSWORD_MASK = '********'

/** A body's `proxy` as read (the body's schema includes `proxySchema`). */
export interface ProxyInput {
  proxyUrl?: string | null
  nonProxyHosts?: string | null
  username?: string | null
  password?: string | null
  certificateId?: number | string | null
}

/** The JSON Schema of `proxy` in create, PUT and PATCH bodies (errors then name `/proxy/...`). */
export const proxySchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {
    proxyUrl: { type: ['string', 'null'], maxLength: 2000 },
    nonProxyHosts: { type: ['string', 'null'], maxLength: 4000 },
    username: { type: ['string', 'null'], maxLength: 1000 },
    password: { type: ['string', 'null'], maxLength: 1000 },
    certificateId: { type: ['integer', 'string', 'null'] },
  },
} as const

/**
 * The stored proxy a request body's `proxy` sets: undefined when absent (no change), null for
 * `null` or `{}` (direct connections), else the checked settings (400 naming the field).
 *
 * @example
 * proxyOf({ proxyUrl: 'http://proxy.corp:3128', nonProxyHosts: 'localhost|*.corp' }, null)
 */
export function proxyOf(
  input: ProxyInput | null | undefined,
  current: MockServiceProxy | null,
): MockServiceProxy | null | undefined {
  if (input === undefined) return undefined
  if (input === null) return null
  if (Object.values(input).every((v) => v === null || v === undefined || v === '')) return null
  if (
    input.certificateId !== undefined &&
    input.certificateId !== null &&
    input.certificateId !== ''
  ) {
    throw invalidField(
      '/proxy/certificateId',
      'cannot be applied: this platform has no certificate assets for proxy connections (leave it null)',
    )
  }
  const url = input.proxyUrl ?? ''
  let parsed: URL | null = null
  try {
    parsed = new URL(url)
  } catch {
    // reported below
  }
  if (
    parsed === null ||
    (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') ||
    parsed.pathname.length > 1 ||
    parsed.search !== '' ||
    parsed.username !== ''
  ) {
    throw invalidField(
      '/proxy/proxyUrl',
      'must be the http:// or https:// URL of the proxy, host and port only (credentials go in username and password)',
    )
  }
  const password =
    input.password === PASSWORD_MASK ? (current?.password ?? null) : (input.password ?? null)
  const username = input.username === '' ? null : (input.username ?? null)
  if (password !== null && password !== '' && username === null) {
    throw invalidField('/proxy/username', 'is required with a password')
  }
  return {
    proxyUrl: `${parsed.protocol}//${parsed.host}`,
    nonProxyHosts: input.nonProxyHosts === '' ? null : (input.nonProxyHosts ?? null),
    username,
    password: password === '' ? null : password,
  }
}

/** The `proxy` of a record as GET shows it: the password masked. */
export function proxyView(p: MockServiceProxy | null | undefined) {
  if (p === null || p === undefined) return null
  return {
    proxyUrl: p.proxyUrl,
    nonProxyHosts: p.nonProxyHosts,
    username: p.username,
    password: p.password === null ? null : PASSWORD_MASK,
    certificateId: null,
  }
}
