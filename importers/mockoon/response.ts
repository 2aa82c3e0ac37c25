import type { ResponseDslInput } from '../../src/dsl/index.js'
import { setBody } from '../shared/content-type.js'
import { isObject, str, type Loose } from '../shared/structured.js'
import { translateTemplate } from './template.js'

/** What a response needs from its environment. */
export interface EnvironmentParts {
  /** Headers every response carries unless it sets the same name. */
  headers: Array<{ name: string; value: string }>
  /** Data buckets by id and by uuid: their `value` text. */
  buckets: Map<string, string>
  /** Callbacks by uuid. */
  callbacks: Map<string, Loose>
  /** Latency added to every response, in ms. */
  latency: number
  readFile?: ((relativePath: string) => Uint8Array | undefined) | undefined
}

/**
 * The response of a Mockoon route response: status, the environment's then its own headers, the
 * body (inline, a file read beside the environment, or a data bucket's value), latency, templating
 * and callbacks. Everything it cannot carry over is noted.
 *
 * @example
 * responseOf({ statusCode: 201, body: '{"id": 1}', headers: [] }, env, note).status // 201
 */
export function responseOf(
  res: Loose,
  env: EnvironmentParts,
  note: (message: string) => void,
): ResponseDslInput {
  const out: ResponseDslInput = {}
  const status =
    typeof res['statusCode'] === 'string' ? Number(res['statusCode']) : res['statusCode']
  if (typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599) {
    out.status = status
  } else if (status !== undefined) {
    // the value as written: a text that is no number would read `null` once converted
    note(`status ${JSON.stringify(res['statusCode'])} is not an HTTP status; 200 is used`)
  }
  const own = headersOf(res['headers'])
  const headers = [
    ...env.headers.filter((h) => !own.some((o) => o.name.toLowerCase() === h.name.toLowerCase())),
    ...own,
  ]
  const body = bodyOf(res, env, note)
  const templating = res['disableTemplating'] !== true
  let templated = false
  let text = body
  if (templating) {
    const translated = translateTemplate(body)
    if ('template' in translated) {
      text = translated.template
      templated = true
    } else if ('untranslated' in translated) {
      note(
        `templating helpers ${translated.untranslated.join(', ')} have no equivalent; the body is served as written`,
      )
    }
    for (const h of headers) {
      const value = translateTemplate(h.value)
      if ('template' in value) {
        h.value = value.template
        templated = true
      } else if ('untranslated' in value) {
        note(
          `header ${h.name}: templating helpers ${value.untranslated.join(', ')} have no equivalent; served as written`,
        )
      }
    }
  }
  setBody(out, headers, Buffer.from(text, 'utf8'), jsonLike(text) ? 'json' : 'text')
  if (templated) out.template = true
  // Mockoon adds the environment's latency to a response's own; the DSL's own delay replaces the
  // mock service's think time, so the sum is written here
  const latency = typeof res['latency'] === 'number' && res['latency'] > 0 ? res['latency'] : 0
  if (latency > 0) {
    out.responseDelay = { type: 'fixed', duration: Math.round(env.latency + latency) }
  }
  const calls = callbacksOf(res['callbacks'], env, note)
  if (calls.length > 0) out.postServe = calls
  return out
}

function headersOf(value: unknown): Array<{ name: string; value: string }> {
  if (!Array.isArray(value)) return []
  return value.filter(isObject).flatMap((h) => {
    const name = str(h['key'])
    return name === undefined || name === ''
      ? []
      : [{ name, value: h['value'] === undefined || h['value'] === null ? '' : String(h['value']) }]
  })
}

function bodyOf(res: Loose, env: EnvironmentParts, note: (message: string) => void): string {
  const inline = str(res['body']) ?? ''
  const bodyType =
    str(res['bodyType']) ??
    (res['sendFileAsBody'] === true || (str(res['filePath']) ?? '') !== '' ? 'FILE' : 'INLINE')
  if (bodyType === 'DATABUCKET') {
    const id = str(res['databucketID']) ?? ''
    const value = env.buckets.get(id)
    if (value !== undefined) return value
    note(`data bucket ${JSON.stringify(id)} does not exist; the inline body is served`)
    return inline
  }
  if (bodyType === 'FILE') {
    const filePath = str(res['filePath']) ?? ''
    if (filePath === '') return inline
    const relative = !/^([A-Za-z]:)?[\\/]/.test(filePath) && !filePath.includes('{{')
    const bytes = relative ? env.readFile?.(filePath) : undefined
    if (bytes !== undefined) return Buffer.from(bytes).toString('utf8')
    note(
      `file ${JSON.stringify(filePath)} ${relative ? 'was not found beside the environment' : 'is not a path relative to the environment'}; the inline body is served`,
    )
    return inline
  }
  return inline
}

function callbacksOf(
  value: unknown,
  env: EnvironmentParts,
  note: (message: string) => void,
): NonNullable<ResponseDslInput['postServe']> {
  if (!Array.isArray(value)) return []
  const calls: NonNullable<ResponseDslInput['postServe']> = []
  for (const ref of value.filter(isObject)) {
    const callback = env.callbacks.get(str(ref['uuid']) ?? '')
    const url = callback === undefined ? undefined : str(callback['uri'])
    if (callback === undefined || url === undefined || !/^https?:\/\//.test(url)) {
      note('a callback without an absolute http(s) uri is not called')
      continue
    }
    const call: NonNullable<ResponseDslInput['postServe']>[number] = {
      url,
      method: (str(callback['method']) ?? 'get').toUpperCase(),
    }
    const headers = headersOf(callback['headers'])
    if (headers.length > 0) call.headers = headers
    const body = str(callback['body'])
    if (body !== undefined && body !== '') {
      const translated = translateTemplate(body)
      call.body = 'template' in translated ? translated.template : body
      if ('untranslated' in translated) {
        note(
          `callback ${JSON.stringify(str(callback['name']) ?? url)}: templating helpers ${translated.untranslated.join(', ')} have no equivalent; sent as written`,
        )
      }
    }
    if (typeof ref['latency'] === 'number' && ref['latency'] > 0) {
      call.delay = Math.round(ref['latency'])
    }
    calls.push(call)
  }
  return calls
}

function jsonLike(text: string): boolean {
  const t = text.trim()
  if (t === '') return false
  try {
    JSON.parse(t)
    return true
  } catch {
    return /^[[{]/.test(t)
  }
}
