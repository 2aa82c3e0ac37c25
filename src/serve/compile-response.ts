import type { ResponseDsl } from '../dsl/index.js'
import { decodeContent } from '../dsl/index.js'
import { compileDelay, type DelaySampler } from './think-time.js'
import type { Dispatcher } from 'undici'
import { compileProxyTarget, type CompiledOutbound, type ProxyTarget } from './proxy.js'
import { HeaderBlocks } from './interned.js'

/**
 * A transaction's response, precomputed at compile time (docs/architecture.md#hot-path): status, header
 * arrays for HTTP/1.1 and HTTP/2, body Buffer and its content-length.
 */
export interface CompiledResponse {
  readonly status: number
  /** HTTP/1.1 reason phrase; HTTP/2 has none. */
  readonly statusMessage: string | null
  /** Flat `[name, value, ...]` for HTTP/1.1, content-length included. */
  readonly headers: string[]
  /** The same for HTTP/2: lowercase names, no connection-specific headers. */
  readonly headers2: string[]
  readonly body: Buffer
  /** The transaction's own think time (null: none). */
  readonly delay: DelaySampler | null
  /** True when the transaction sets `responseDelay` (even `none`): the mock's think time is then ignored. */
  readonly ownsDelay: boolean
  /** `proxyUrl`: forward instead of answering. */
  readonly proxy: ProxyTarget | null
  /** `responseDelay.dribbled`: the body goes out in this many chunks over the delay; 0 = not dribbled. */
  readonly dribbleChunks: number
}

/** Chunks of a dribbled body when `chunks` is not given. */
const DEFAULT_DRIBBLE_CHUNKS = 10

/** `contentType` shorthands (docs/dsl.md#response-responsedsl). */
const mimeByShorthand: Record<string, string> = {
  json: 'application/json',
  xml: 'application/xml',
  text: 'text/plain',
  html: 'text/html',
}

/** Headers HTTP/2 forbids (RFC 9113 section 8.2.2) or that the runtime computes itself. */
const connectionSpecific = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
])

/** Statuses that never carry a body (RFC 9110). */
const noBody = (status: number): boolean =>
  status === 204 || status === 304 || (status >= 100 && status < 200)

/**
 * The Content-Type a response gets from `contentType` and `charset` (none for an empty
 * `contentType`); `binary` bodies get no charset.
 *
 * @example
 * contentTypeOf({ status: 200, contentType: 'json', charset: 'UTF-8' }) // 'application/json; charset=UTF-8'
 */
export function contentTypeOf(dsl: ResponseDsl): string | null {
  if (dsl.contentType === undefined) return null
  const mime = mimeByShorthand[dsl.contentType.toLowerCase()] ?? dsl.contentType
  if (dsl.charset === undefined || dsl.binary === true || /;\s*charset=/i.test(mime)) return mime
  return `${mime}; charset=${dsl.charset}`
}

/**
 * Compiles a response. Headers written in the transaction win over the computed Content-Type;
 * Content-Length is always computed from the body (a written one is dropped, as are
 * Transfer-Encoding and Connection, which the server manages). The header arrays come from
 * `blocks`, shared with every equal response compiled with the same blocks.
 *
 * @example
 * compileResponse({ status: 201, content: 'aGk=', contentType: 'text' }, 30_000, new Map()).headers
 * // ['content-type', 'text/plain', 'content-length', '2']
 */
export function compileResponse(
  dsl: ResponseDsl,
  proxyTimeout: number,
  pools: Map<string, Dispatcher>,
  outbound: CompiledOutbound | null = null,
  blocks: HeaderBlocks = new HeaderBlocks(),
): CompiledResponse {
  const body = noBody(dsl.status) ? Buffer.alloc(0) : decodeContent(dsl.content)
  const headers: string[] = []
  let hasContentType = false
  for (const h of dsl.headers ?? []) {
    const lower = h.name.toLowerCase()
    if (lower === 'content-length' || lower === 'transfer-encoding' || lower === 'connection') {
      continue
    }
    if (lower === 'content-type') hasContentType = true
    headers.push(h.name, h.value)
  }
  const contentType = hasContentType ? null : contentTypeOf(dsl)
  if (contentType !== null) headers.push('content-type', contentType)
  if (!noBody(dsl.status)) headers.push('content-length', String(body.length))

  const headers2: string[] = []
  for (let i = 0; i < headers.length; i += 2) {
    const name = (headers[i] as string).toLowerCase()
    if (!connectionSpecific.has(name)) headers2.push(name, headers[i + 1] as string)
  }
  return {
    status: dsl.status,
    statusMessage: dsl.statusMessage ?? null,
    headers: blocks.of(headers),
    headers2: blocks.of(headers2),
    body,
    delay: compileDelay(dsl.responseDelay),
    ownsDelay: dsl.responseDelay !== undefined,
    proxy:
      dsl.proxyUrl === undefined
        ? null
        : compileProxyTarget(dsl.proxyUrl, proxyTimeout, pools, outbound),
    dribbleChunks:
      dsl.responseDelay?.dribbled === true && body.length > 1
        ? Math.min(body.length, dsl.responseDelay.chunks ?? DEFAULT_DRIBBLE_CHUNKS)
        : 0,
  }
}
