import type { DelayInput, ResponseDslInput } from '../../src/dsl/index.js'
import { setBody } from '../shared/content-type.js'
import { isObject, str, type Loose } from '../shared/structured.js'
import { utf8Text } from '../shared/text.js'
import { applyTransformers, faultOf } from './dynamic.js'

/** How the response of one stub is read. */
interface ResponseContext {
  readFile?: ((relativePath: string) => Uint8Array | undefined) | undefined
  note: (message: string) => void
}

/** The mapped response, or why the stub cannot be served at all. */
type ResponseOutcome = { responseDsl: ResponseDslInput } | { skip: string }

const unsupportedResponseKeys: Record<string, string> = {
  transformerParameters: 'transformer parameters are ignored',
  additionalProxyRequestHeaders: 'additional proxy request headers are not sent',
  removeProxyRequestHeaders: 'proxy request headers are not removed',
  proxyUrlPrefixToRemove: 'proxyUrlPrefixToRemove is not supported; the full path is forwarded',
}

const knownResponseKeys = new Set([
  'status',
  'statusMessage',
  'headers',
  'body',
  'jsonBody',
  'base64Body',
  'bodyFileName',
  'fixedDelayMilliseconds',
  'delayDistribution',
  'chunkedDribbleDelay',
  'proxyBaseUrl',
  'fault',
  'transformers',
  ...Object.keys(unsupportedResponseKeys),
])

/**
 * Maps the `response` of a WireMock stub: status, headers, the body (`body`, `jsonBody`,
 * `base64Body` or a `bodyFileName` read from `__files/`), delays and proxying. A `fault` stub
 * cannot be served faithfully and is skipped.
 *
 * @example
 * responseOf({ status: 201, jsonBody: { id: 1 } }, { note })
 * // { responseDsl: { status: 201, contentType: 'json', content: 'eyJpZCI6MX0=' } }
 */
export function responseOf(res: Loose, ctx: ResponseContext): ResponseOutcome {
  const out: ResponseDslInput = {}
  if (res['fault'] !== undefined) {
    const fault = faultOf(res['fault'])
    if ('unknown' in fault) return { skip: `fault ${fault.unknown} is not one WireMock defines` }
    out.fault = fault.fault
  }
  applyTransformers(res, out, ctx.note)
  const status = typeof res['status'] === 'string' ? Number(res['status']) : res['status']
  if (typeof status === 'number') out.status = status
  else if (status !== undefined) {
    ctx.note(`response status ${JSON.stringify(status)} is not a number; 200 is used`)
  }
  const statusMessage = str(res['statusMessage'])
  if (statusMessage !== undefined) out.statusMessage = statusMessage
  const headers = headersOf(res['headers'], ctx)
  const body = bodyOf(res, ctx)
  setBody(out, headers, body?.bytes ?? new Uint8Array(0), body?.fallbackType)
  const delay = delayOf(res, ctx)
  if (delay !== undefined) out.responseDelay = delay
  const proxy = str(res['proxyBaseUrl'])
  if (proxy !== undefined) out.proxyUrl = proxy
  for (const key of Object.keys(res)) {
    const reason = unsupportedResponseKeys[key]
    if (reason !== undefined) ctx.note(`response ${key}: ${reason}`)
    else if (!knownResponseKeys.has(key)) ctx.note(`response has unknown property ${key}; ignored`)
  }
  return { responseDsl: out }
}

function headersOf(value: unknown, ctx: ResponseContext): Array<{ name: string; value: string }> {
  if (value === undefined) return []
  if (!isObject(value)) {
    ctx.note('response headers must be an object; ignored')
    return []
  }
  const out: Array<{ name: string; value: string }> = []
  for (const [name, v] of Object.entries(value)) {
    // a header with several values is written as an array
    for (const item of Array.isArray(v) ? v : [v]) {
      if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') {
        out.push({ name, value: String(item) })
      } else {
        ctx.note(`response header ${JSON.stringify(name)} has a value that is not text; ignored`)
      }
    }
  }
  return out
}

const bodyKeys = ['body', 'jsonBody', 'base64Body', 'bodyFileName'] as const

/** The body bytes of the response, and the content type it implies when no header gives one. */
function bodyOf(
  res: Loose,
  ctx: ResponseContext,
): { bytes: Uint8Array; fallbackType?: string } | undefined {
  const given = bodyKeys.filter((k) => res[k] !== undefined && res[k] !== null)
  if (given.length > 1) {
    ctx.note(`response has ${given.join(' and ')}; only ${given[0] ?? ''} is served`)
  }
  const templated =
    Array.isArray(res['transformers']) && res['transformers'].includes('response-template')
  let out: { bytes: Uint8Array; fallbackType?: string } | undefined
  switch (given[0]) {
    case undefined:
      return undefined
    case 'body': {
      const body = res['body']
      out = { bytes: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8') }
      break
    }
    case 'jsonBody':
      out = { bytes: Buffer.from(JSON.stringify(res['jsonBody']), 'utf8'), fallbackType: 'json' }
      break
    case 'base64Body': {
      const b64 = str(res['base64Body'])?.replace(/\s+/g, '') ?? ''
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) {
        ctx.note('response base64Body is not base64; the body is empty')
        return undefined
      }
      out = { bytes: Buffer.from(b64, 'base64') }
      break
    }
    case 'bodyFileName': {
      const bytes = readBodyFile(str(res['bodyFileName']) ?? '', ctx)
      if (bytes === undefined) return undefined
      out = { bytes }
      break
    }
  }
  if (out === undefined) return undefined
  const text = utf8Text(out.bytes)
  if (!templated && text !== undefined && /\{\{[^{}]+\}\}/.test(text)) {
    ctx.note(
      'response body looks like a Handlebars template ({{...}}), which WireMock renders only with response templating; it is served verbatim',
    )
  }
  return out
}

/**
 * WireMock resolves `bodyFileName` against `__files/`, a sibling of `mappings/`. `readFile` is
 * relative to the mapping file's directory (or the archive root), so try the sibling first, then a
 * `__files/` beside the file, then the name itself.
 */
function readBodyFile(name: string, ctx: ResponseContext): Uint8Array | undefined {
  if (
    name === '' ||
    name.startsWith('/') ||
    /^[A-Za-z]:/.test(name) ||
    name.split(/[\\/]/).includes('..')
  ) {
    ctx.note(
      `bodyFileName ${JSON.stringify(name)} must be a relative path inside __files/; the body is empty`,
    )
    return undefined
  }
  if (name.includes('{{')) {
    ctx.note(
      `bodyFileName ${JSON.stringify(name)} is a template, which is not supported; the body is empty`,
    )
    return undefined
  }
  for (const candidate of [`../__files/${name}`, `__files/${name}`, name]) {
    const bytes = ctx.readFile?.(candidate)
    if (bytes !== undefined) return bytes
  }
  ctx.note(`body file __files/${name} was not found; the body is empty`)
  return undefined
}

/** Non-negative finite number, or undefined. */
const ms = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined

function delayOf(res: Loose, ctx: ResponseContext): DelayInput | undefined {
  let fixed = ms(res['fixedDelayMilliseconds']) ?? 0
  if (
    res['fixedDelayMilliseconds'] !== undefined &&
    ms(res['fixedDelayMilliseconds']) === undefined
  ) {
    ctx.note('fixedDelayMilliseconds is not a non-negative number; ignored')
  }
  const dribble = res['chunkedDribbleDelay']
  const dist = res['delayDistribution']
  if (isObject(dribble)) {
    const total = ms(dribble['totalDuration'])
    const chunks = dribble['numberOfChunks']
    if (
      total !== undefined &&
      typeof chunks === 'number' &&
      Number.isInteger(chunks) &&
      chunks >= 1 &&
      fixed === 0 &&
      dist === undefined
    ) {
      // the body goes out in numberOfChunks pieces spread over totalDuration, as WireMock does
      return { type: 'fixed', duration: total, dribbled: true, chunks }
    }
    ctx.note(
      'chunkedDribbleDelay is supported alone ({numberOfChunks >= 1, totalDuration}), not with another delay; ignored',
    )
  }
  let random: DelayInput | undefined
  if (isObject(dist)) {
    const type = str(dist['type'])?.toLowerCase()
    if (
      type === 'lognormal' &&
      ms(dist['median']) !== undefined &&
      ms(dist['sigma']) !== undefined
    ) {
      random = { type: 'lognormal', median: ms(dist['median']) ?? 0, sigma: ms(dist['sigma']) ?? 0 }
    } else if (
      type === 'uniform' &&
      ms(dist['lower']) !== undefined &&
      ms(dist['upper']) !== undefined
    ) {
      random = { type: 'uniform', lower: ms(dist['lower']) ?? 0, upper: ms(dist['upper']) ?? 0 }
    } else if (type === 'fixed' && ms(dist['milliseconds']) !== undefined) {
      fixed += ms(dist['milliseconds']) ?? 0
    } else {
      ctx.note(
        `delayDistribution ${JSON.stringify(dist)} is not a lognormal {median, sigma}, uniform {lower, upper} or fixed {milliseconds} distribution; ignored`,
      )
    }
  }
  // WireMock adds a fixed delay to a random one
  if (random === undefined) return fixed > 0 ? { type: 'fixed', duration: fixed } : undefined
  if (fixed === 0) return random
  if (random.type === 'uniform') {
    return {
      type: 'uniform',
      lower: (random.lower ?? 0) + fixed,
      upper: (random.upper ?? 0) + fixed,
    }
  }
  ctx.note(
    `the fixed delay of ${fixed} ms is added to the lognormal median (an approximation of WireMock's sum of both)`,
  )
  return { type: 'lognormal', median: (random.median ?? 0) + fixed, sigma: random.sigma ?? 0 }
}
