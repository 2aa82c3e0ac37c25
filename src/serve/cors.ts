import type { CorsSpec } from '../dsl/index.js'

/** The response side CORS needs: headers set before writeHead are merged into every answer. */
interface CorsResponse {
  setHeader: (name: string, value: string) => unknown
  writeHead: (status: number, headers: string[]) => unknown
  end: (body?: Buffer) => unknown
}

interface CorsRequest {
  method?: string | undefined
  headers: Record<string, string | string[] | undefined>
}

/** A mock service's CORS configuration, compiled once. */
export interface CompiledCors {
  /**
   * Adds the Access-Control-* headers for this request's origin to whatever answer follows (match,
   * 404, error, proxied); answers a preflight itself and returns true then.
   */
  handle: (req: CorsRequest, res: CorsResponse) => boolean
}

/** Compiles `cors`; null when off (the default). */
export function compileCors(spec: CorsSpec | undefined): CompiledCors | null {
  if (spec === undefined) return null
  const anyOrigin = spec.origins.includes('*')
  const origins = new Set(spec.origins)
  const methods = spec.methods.join(', ')
  const fixedHeaders = spec.headers.length > 0 ? spec.headers.join(', ') : null
  const maxAge = spec.maxAge === null ? null : String(spec.maxAge)
  const credentials = spec.credentials
  return {
    handle(req, res) {
      const origin = req.headers['origin']
      if (typeof origin !== 'string') return false
      if (!anyOrigin && !origins.has(origin)) return false
      // With credentials a browser refuses `*`: echo the origin (and vary on it).
      const echo = credentials || !anyOrigin
      res.setHeader('access-control-allow-origin', echo ? origin : '*')
      if (echo) res.setHeader('vary', 'Origin')
      if (credentials) res.setHeader('access-control-allow-credentials', 'true')
      const requested = req.headers['access-control-request-method']
      if (req.method !== 'OPTIONS' || typeof requested !== 'string') {
        res.setHeader('access-control-expose-headers', '*')
        return false
      }
      const headers: string[] = ['access-control-allow-methods', methods]
      const asked = req.headers['access-control-request-headers']
      const allowHeaders = fixedHeaders ?? (typeof asked === 'string' ? asked : null)
      if (allowHeaders !== null) headers.push('access-control-allow-headers', allowHeaders)
      if (maxAge !== null) headers.push('access-control-max-age', maxAge)
      headers.push('content-length', '0')
      res.writeHead(204, headers)
      res.end()
      return true
    },
  }
}
