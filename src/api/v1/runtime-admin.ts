import { adminHeaders, type RuntimeAdmin } from '../../deploy/index.js'
import { createError } from '../../errors/index.js'

/** How long the API waits for a runtime's admin listener. */
const TIMEOUT_MS = 5000

/**
 * GET on a running mock service's admin API (docs/runtime.md), with its token, returning `result`. A runtime that
 * does not answer is 503 ERR_API_UNAVAILABLE; its own errors keep their code and status.
 *
 * @example
 * const entries = await adminGet<unknown[]>(deployer.admin(mock.id), '/inspection?skip=0&limit=50')
 */
export async function adminGet<T> (admin: RuntimeAdmin, path: string): Promise<{ result: T; body: Record<string, unknown> }> {
  let res: Response
  let body: { error?: { code?: string; message?: string } | null; result?: unknown } & Record<string, unknown>
  try {
    res = await fetch(admin.url + path, { headers: adminHeaders(admin), signal: AbortSignal.timeout(TIMEOUT_MS) })
    body = await res.json() as typeof body
  } catch (err) {
    throw createError('ERR_API_UNAVAILABLE', [`the mock service's runtime did not answer: ${(err as Error).message}`], { cause: err })
  }
  if (res.status === 404 && body.error?.code === 'ERR_INSPECT_NOT_FOUND') throw createError('ERR_INSPECT_NOT_FOUND', [path.split('/').pop()])
  if (!res.ok || (body.error ?? null) !== null) throw createError('ERR_API_UNAVAILABLE', [`the mock service's runtime answered ${res.status}: ${body.error?.message ?? ''}`])
  return { result: body.result as T, body }
}

/**
 * Any call on a running mock service's admin API (`DELETE /inspection`, `POST
 * /inspection/verify`...), returning the whole envelope. Validation errors of the runtime keep
 * their code and status (so a bad filter is the caller's 400); an unreachable runtime is 503.
 *
 * @example
 * const { result } = await adminCall(admin, 'POST', '/inspection/verify', { request: { method: 'GET' }, count: 1 })
 */
export async function adminCall (admin: RuntimeAdmin, method: string, path: string, json?: unknown): Promise<{ result: unknown; body: Record<string, unknown> }> {
  let res: Response
  let body: { error?: { code?: string; message?: string; details?: unknown } | null; result?: unknown } & Record<string, unknown>
  try {
    const init: RequestInit = { method, headers: adminHeaders(admin), signal: AbortSignal.timeout(TIMEOUT_MS) }
    if (json !== undefined) {
      init.body = JSON.stringify(json)
      init.headers = adminHeaders(admin, { 'content-type': 'application/json' })
    }
    res = await fetch(admin.url + path, init)
    body = await res.json() as typeof body
  } catch (err) {
    throw createError('ERR_API_UNAVAILABLE', [`the mock service's runtime did not answer: ${(err as Error).message}`], { cause: err })
  }
  const error = body.error ?? null
  if (error !== null && res.status === 400 && error.code === 'ERR_API_VALIDATION') {
    const details = Array.isArray(error.details) ? error.details as Array<{ path: string; message: string }> : undefined
    throw createError('ERR_API_VALIDATION', [String(error.message ?? '').replace(/^Invalid request: /, '')], details === undefined ? {} : { details })
  }
  if (!res.ok || error !== null) throw createError('ERR_API_UNAVAILABLE', [`the mock service's runtime answered ${res.status}: ${error?.message ?? ''}`])
  return { result: body.result, body }
}
