/**
 * Request headers that carry credentials. A recording never keeps them: `recorded.json` matches no
 * request header at all, and the state that `understudy record` saves to merge later runs
 * (`.recording-state.json`), the runtime's `GET /recordings` and a cluster's batches carry the
 * request as a HAR entry without them. The response's `Set-Cookie` stays: it is part of the
 * answer the mock replays.
 */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-api-key',
])

/**
 * A HAR entry whose request carries no credential header (the same entry when it carries none):
 * for state saved by versions that kept them.
 *
 * @example
 * withoutCredentials({ request: { headers: [{ name: 'Authorization', value: 'Bearer x' }] } }) // { request: { headers: [] } }
 */
export function withoutCredentials(entry: Record<string, unknown>): Record<string, unknown> {
  const request = entry['request'] as { headers?: unknown } | undefined
  const headers = request?.headers
  if (!Array.isArray(headers)) return entry
  const kept = headers.filter(
    (h: { name?: unknown } | null) =>
      typeof h?.name !== 'string' || !CREDENTIAL_HEADERS.has(h.name.toLowerCase()),
  )
  return kept.length === headers.length
    ? entry
    : { ...entry, request: { ...request, headers: kept } }
}
