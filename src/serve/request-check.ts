import type { IncomingHttpHeaders } from 'node:http'
import type { MatchRequest } from '../match/index.js'

/**
 * An opt-in check of incoming requests before matching (`serve --validate-requests`: an OpenAPI
 * description's operations, built by the importers): the operation a request is for and what it
 * breaks of it, or null when no operation has its path (the request is then matched as usual).
 */
export type RequestCheck = (req: MatchRequest) => {
  operation: string
  violations: Array<{ path: string; message: string; challenges?: string[] }>
} | null

/** `Prefer: code=404` (Prism's header) as an alias of `X-Understudy-Status: 404`. */
const PREFER_CODE = /(?:^|[,;\s])code=([0-9A-Za-z]+)/
/** `Prefer: example=dog` as an alias of `X-Understudy-Example: dog`. */
const PREFER_EXAMPLE = /(?:^|[,;\s])example=("[^"]*"|[^,;\s]+)/

/**
 * Applies the `Prefer` aliases of the OpenAPI importer's selection headers: `Prefer: code=404`
 * selects the documented 404 response as `X-Understudy-Status: 404` does, `Prefer: example=dog`
 * a named example as `X-Understudy-Example: dog` does: of the main response, or with `code=` of
 * the response it selects (the explicit headers win when both are sent). Called only when a `Prefer` header is present.
 *
 * @example
 * applyPrefer({ prefer: 'code=404' }) // headers['x-understudy-status'] === '404'
 */
export function applyPrefer(headers: IncomingHttpHeaders): void {
  const prefer = headers['prefer']
  if (typeof prefer !== 'string') return
  if (headers['x-understudy-status'] === undefined) {
    const code = PREFER_CODE.exec(prefer)?.[1]
    if (code !== undefined) headers['x-understudy-status'] = code
  }
  if (headers['x-understudy-example'] === undefined) {
    const example = PREFER_EXAMPLE.exec(prefer)?.[1]
    if (example !== undefined) headers['x-understudy-example'] = example.replace(/^"(.*)"$/, '$1')
  }
}
