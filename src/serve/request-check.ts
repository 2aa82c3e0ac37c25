import type { IncomingHttpHeaders } from 'node:http'
import type { MatchRequest } from '../match/index.js'

/**
 * An opt-in check of incoming requests before matching (`serve --validate-requests`: an OpenAPI
 * description's operations, built by the importers): the operation a request is for and what it
 * breaks of it, or null when no operation has its path (the request is then matched as usual).
 */
export type RequestCheck = (req: MatchRequest) => { operation: string; violations: Array<{ path: string; message: string }> } | null

/** `Prefer: code=404` (Prism's header) as an alias of `X-Understudy-Status: 404`. */
const PREFER_CODE = /(?:^|[,;\s])code=([0-9A-Za-z]+)/

/**
 * Applies the `Prefer` aliases of the OpenAPI importer's selection header: `Prefer: code=404`
 * selects the documented 404 response as `X-Understudy-Status: 404` does (which wins when both
 * are sent). Called only when a `Prefer` header is present.
 *
 * @example
 * applyPrefer({ prefer: 'code=404' }) // headers['x-understudy-status'] === '404'
 */
export function applyPrefer (headers: IncomingHttpHeaders): void {
  if (headers['x-understudy-status'] !== undefined) return
  const prefer = headers['prefer']
  const code = typeof prefer === 'string' ? PREFER_CODE.exec(prefer)?.[1] : undefined
  if (code !== undefined) headers['x-understudy-status'] = code
}
