import type { ResponseDslInput } from '../../src/dsl/index.js'
import { isTextType, parseMediaType } from './mime.js'
import { utf8Text } from './text.js'

/**
 * Like the HAR importer, the importers here carry the response's Content-Type in `contentType`
 * (media type without charset) and `charset`, not in `headers`, so that the runtime writes it once.
 * A body is `binary` when its media type is not textual, or when its bytes are not UTF-8 and no
 * charset is declared.
 */

/**
 * Moves the Content-Type header of `headers` into `out.contentType` / `out.charset`, sets the body
 * and `binary`. `fallbackType` (`json`, `xml`, ...) applies when there is no Content-Type header.
 *
 * @example
 * const out = {}
 * setBody(out, [{ name: 'Content-Type', value: 'text/plain; charset=utf-8' }], Buffer.from('hi'))
 * // out: { contentType: 'text/plain', charset: 'utf-8', content: 'aGk=' }
 */
export function setBody(
  out: ResponseDslInput,
  headers: ReadonlyArray<{ name: string; value: string }>,
  body: Uint8Array,
  fallbackType?: string,
): void {
  const kept = headers.filter((h) => h.name.toLowerCase() !== 'content-type')
  const header = headers.find((h) => h.name.toLowerCase() === 'content-type')
  if (kept.length > 0) out.headers = kept
  else delete out.headers
  const isText = utf8Text(body) !== undefined
  let binary = !isText
  const media = header === undefined ? undefined : parseMediaType(header.value)
  if (media !== undefined && media.essence !== '') {
    out.contentType = media.withoutCharset
    if (!isTextType(media.essence)) {
      binary = true
    } else if (media.charset !== undefined) {
      // declared text in another charset (latin1 bytes are not UTF-8): send it as declared
      binary = false
      out.charset = media.charset
    }
  } else if (header !== undefined) {
    // an empty or unparsable Content-Type is sent as written
    out.headers = [...kept, header]
  } else if (fallbackType !== undefined && body.length > 0) {
    out.contentType = fallbackType
  }
  if (binary && body.length > 0) out.binary = true
  if (body.length > 0) out.content = Buffer.from(body).toString('base64')
}
