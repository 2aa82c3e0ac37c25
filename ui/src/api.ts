/** The dashboard's only way to the platform: the public APIs, with the session cookie. */

export interface FieldError {
  path: string
  message: string
}

/** An API refusal, as the envelope gives it: the message in words and the failing fields. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly details: FieldError[],
  ) {
    super(message)
  }

  /** The message of one field (`/name`), if the API named it. */
  field(pointer: string): string | undefined {
    const hit = this.details.find((d) => d.path === pointer || d.path.startsWith(pointer + '/'))
    return hit === undefined ? undefined : `${hit.message}`
  }
}

/**
 * The session's token, given at sign-in and kept in this origin's localStorage: every call sends it
 * beside the HttpOnly cookie, and neither works without the other (docs/dashboard.md).
 */
let csrfToken = localStorage.getItem('understudy.token') ?? ''
let onExpired: () => void = () => {}
const tokenListeners = new Set<(token: string) => void>()

export function setCsrfToken(token: string): void {
  csrfToken = token
  if (token === '') localStorage.removeItem('understudy.token')
  else localStorage.setItem('understudy.token', token)
  for (const listener of tokenListeners) listener(token)
}
/** Calls `listener` with each new token (a stream reconnects with it after sign-in); returns the unsubscribe. */
export function onTokenChange(listener: (token: string) => void): () => void {
  tokenListeners.add(listener)
  return () => {
    tokenListeners.delete(listener)
  }
}
export function csrf(): string {
  return csrfToken
}
/** Called when the API answers 401: the app shows sign-in over the page, keeping what was typed. */
export function setExpiredHandler(handler: () => void): void {
  onExpired = handler
}

export interface ApiResponse<T> {
  result: T
  total?: number
  warnings?: Array<{ message: string; file?: string }>
}

/**
 * One call to the platform. JSON bodies are sent as JSON, FormData as multipart. Any failure becomes
 * an ApiError with a readable message; a 401 also reopens sign-in.
 */
export async function call<T>(
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = {
    'x-requested-with': 'understudy-ui',
    accept: 'application/json',
  }
  headers['x-csrf-token'] = csrfToken
  let payload: BodyInit | undefined
  if (body instanceof FormData) payload = body
  else if (body !== undefined) {
    headers['content-type'] = 'application/json'
    payload = JSON.stringify(body)
  }
  let res: Response
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(payload === undefined ? {} : { body: payload }),
    })
  } catch {
    throw new ApiError(0, 'The platform cannot be reached. Is it running?', 'ERR_NETWORK', [])
  }
  const text = await res.text()
  let parsed: Record<string, unknown> | null = null
  try {
    parsed = text === '' ? null : (JSON.parse(text) as Record<string, unknown>)
  } catch {
    parsed = null
  }
  if (res.status === 401 && path !== '/ui/session') onExpired()
  if (!res.ok) {
    const error = (parsed?.['error'] ?? null) as {
      code?: string
      message?: string
      details?: FieldError[]
    } | null
    throw new ApiError(
      res.status,
      error?.message ?? `The platform answered ${res.status}.`,
      error?.code ?? `HTTP_${res.status}`,
      Array.isArray(error?.details) ? error.details : [],
    )
  }
  if (parsed === null) return { result: undefined as T }
  // Delete bodies of the mock services specification come without the envelope.
  if (!('result' in parsed)) return { result: parsed as T }
  return parsed as unknown as ApiResponse<T>
}

export interface Session {
  csrfToken: string
  apiKeyId: string
}
export interface User {
  id: number
  email: string
  accountId: number
  firstName?: string
  lastName?: string
}
export interface Workspace {
  id: number
  name: string
}
export interface Service {
  id: number
  name: string
  description: string | null
  updated: number
}
export interface Transaction {
  id: number
  name: string
  description: string
  serviceId: number
  serviceName: string
  tags: string[]
  dslType: string
  dsl: {
    requestDsl: Record<string, unknown>
    responseDsl: Record<string, unknown>
    priority?: number
  }
}
export interface MockService {
  id: number
  serviceId: number
  serviceName: string
  name: string
  description: string | null
  status: string
  httpEndpoint: string | null
  httpsEndpoint: string | null
  replicas: number | null
  thinkTime: number | null
  noMatchingRequestPreference: string
  pendingUpdate: boolean
  svMessage?: string | null
  liveSystemHost?: string | null
  noMatchingRequestTxnId?: number | null
}
export interface Tracking {
  trackingId: string
  status: string
  action: string
  errors: Array<{ message: string }>
  trackingUrl: string
}
export interface InspectionEntry {
  id: number
  operation: string
  url: string
  timestamp: number
  matched: boolean
  hasError: boolean
  respondingTxn: string | null
  source: string
  statusCode?: number
  durationMs?: number
  /** Kept by the platform from a run before the last stop or redeploy. */
  previousRun?: boolean
}
export interface NearMiss {
  transactionId: number | null
  name: string
  matched: number
  total: number
  failed: Array<{
    part: string
    key?: string
    matcherName: string
    expected: unknown
    actual: unknown
  }>
}
export interface InspectionDetail extends Omit<InspectionEntry, 'statusCode' | 'durationMs'> {
  requestHeaders: Array<{ key: string; value: string }>
  requestBody: string
  requestBodyEncoding: string
  responseHeaders: Array<{ key: string; value: string }>
  responseBody: string
  statusCode: number
  durationMs: number
  matchingData: unknown
}

export const v1 = (workspaceId: number, rest: string): string =>
  `/api/v1/workspaces/${workspaceId}${rest}`

/** Decodes a base64 body for display (binary shows as a note). */
export function decodeBase64(value: string | undefined | null): string {
  if (value === undefined || value === null || value === '') return ''
  try {
    const bytes = Uint8Array.from(atob(value), (c) => c.charCodeAt(0))
    return pretty(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch {
    return `(binary, ${Math.floor((value.length * 3) / 4)} bytes)`
  }
}

/** JSON indented for reading; any other text as it is. */
export function pretty(text: string): string {
  const first = text.trimStart()[0]
  if (first !== '{' && first !== '[') return text
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}
