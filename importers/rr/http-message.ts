/**
 * Raw HTTP/1.x message text as saved by proxies and hand-written by testers: a start line,
 * headers, an empty line, the body. Line endings may be CRLF or LF (files get converted by
 * editors and git), and a chunked body is decoded.
 */

/** A parsed message; `start` holds the three parts of the start line. */
export interface HttpMessage {
  start: [string, string, string]
  headers: Array<[string, string]>
  body: Uint8Array
  /** Problems that did not stop the parse (a chunked body that does not decode). */
  notes: string[]
}

/**
 * Why a message could not be read, with the 1-based line of the problem.
 *
 * @example
 * new MessageError('expected a status line', 1)
 */
export class MessageError {
  constructor(
    readonly message: string,
    readonly line: number,
  ) {}
}

const CR = 13
const LF = 10

/** Index of the end of the header section and the length of the separator, or null. */
function findSeparator(bytes: Uint8Array, from: number): [number, number] | null {
  for (let i = from; i < bytes.length; i++) {
    if (bytes[i] !== LF) continue
    if (bytes[i + 1] === LF) return [i, 2]
    if (bytes[i + 1] === CR && bytes[i + 2] === LF) return [i, 3]
  }
  return null
}

/**
 * Splits a message into start line, headers and body. `kind` decides what the start line must
 * look like. Returns a MessageError for a message that is not HTTP.
 *
 * @example
 * parseHttpMessage(Buffer.from('GET /a HTTP/1.1\nHost: x\n\n'), 'request').start // ['GET', '/a', 'HTTP/1.1']
 */
export function parseHttpMessage(
  bytes: Uint8Array,
  kind: 'request' | 'response',
): HttpMessage | MessageError {
  // Skip leading blank lines (and a UTF-8 byte order mark), which editors leave behind.
  let offset = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  let skippedLines = 0
  while (offset < bytes.length && (bytes[offset] === LF || bytes[offset] === CR)) {
    if (bytes[offset] === LF) skippedLines++
    offset++
  }
  if (offset >= bytes.length) return new MessageError(`is empty; expected an HTTP ${kind}`, 1)
  const sep = findSeparator(bytes, offset)
  const headEnd = sep === null ? bytes.length : sep[0]
  const bodyStart = sep === null ? bytes.length : sep[0] + sep[1]
  const head = Buffer.from(bytes.subarray(offset, headEnd)).toString('latin1')
  const lines = head.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
  const firstLine = skippedLines + 1
  const start = parseStartLine(lines[0] ?? '', kind)
  if (start === null) {
    const expected =
      kind === 'request'
        ? 'a request line such as "GET /path HTTP/1.1"'
        : 'a status line such as "HTTP/1.1 200 OK"'
    return new MessageError(
      `expected ${expected}, found ${JSON.stringify((lines[0] ?? '').slice(0, 60))}`,
      firstLine,
    )
  }
  const headers: Array<[string, string]> = []
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] ?? ''
    const last = headers[headers.length - 1]
    if (/^[ \t]/.test(line) && last !== undefined) {
      // obsolete line folding (RFC 7230 section 3.2.4): a continuation of the previous value
      last[1] = `${last[1]} ${line.trim()}`
      continue
    }
    const colon = line.indexOf(':')
    if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(line.slice(0, colon))) {
      return new MessageError(
        `expected a header line "Name: value", found ${JSON.stringify(line.slice(0, 60))}`,
        firstLine + i,
      )
    }
    headers.push([line.slice(0, colon), latin1ToUtf8(line.slice(colon + 1).trim())])
  }
  const notes: string[] = []
  const body = decodeBody(bytes.subarray(bodyStart), headers, notes)
  return { start, headers, body, notes }
}

/** Header values were read as latin1 (never fails); most files are UTF-8, so re-read them so. */
function latin1ToUtf8(value: string): string {
  if (!/[\u0080-\u00ff]/.test(value)) return value
  const decoded = Buffer.from(value, 'latin1').toString('utf8')
  return decoded.includes('\uFFFD') ? value : decoded
}

function parseStartLine(
  line: string,
  kind: 'request' | 'response',
): [string, string, string] | null {
  if (kind === 'request') {
    const m = /^([A-Za-z]+) +(\S+)(?: +(HTTP\/\d(?:\.\d)?))? *$/.exec(line)
    return m === null ? null : [m[1] ?? '', m[2] ?? '', m[3] ?? 'HTTP/1.1']
  }
  const m = /^(HTTP\/\d(?:\.\d)?) +(\d{3})(?: +(.*))?$/.exec(line)
  return m === null ? null : [m[1] ?? '', m[2] ?? '', (m[3] ?? '').trim()]
}

/**
 * The first value of a header, by case-insensitive name.
 *
 * @example
 * headerValue([['Content-Type', 'text/plain']], 'content-type') // 'text/plain'
 */
export function headerValue(
  headers: ReadonlyArray<[string, string]>,
  name: string,
): string | undefined {
  const lower = name.toLowerCase()
  return headers.find(([n]) => n.toLowerCase() === lower)?.[1]
}

function decodeBody(
  raw: Uint8Array,
  headers: Array<[string, string]>,
  notes: string[],
): Uint8Array {
  if (/\bchunked\b/i.test(headerValue(headers, 'transfer-encoding') ?? '')) {
    const decoded = decodeChunked(raw)
    if (decoded !== null) return decoded
    notes.push(
      'declares Transfer-Encoding: chunked but its body is not valid chunked encoding; the body is kept as written',
    )
  }
  if (isBlank(raw)) return new Uint8Array(0)
  // A Content-Length shorter than the body: the surplus is the newline an editor appended, keep
  // the declared length. A longer one usually means CRLF was converted to LF: keep the body.
  const declared = Number(headerValue(headers, 'content-length'))
  if (
    Number.isInteger(declared) &&
    declared >= 0 &&
    declared < raw.length &&
    isBlank(raw.subarray(declared))
  ) {
    return raw.subarray(0, declared)
  }
  return raw
}

function isBlank(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== CR && b !== LF && b !== 32 && b !== 9) return false
  return true
}

/**
 * Decodes a chunked body (RFC 9112 section 7.1), tolerating LF line ends and chunk extensions;
 * null when it is not valid chunked encoding.
 *
 * @example
 * decodeChunked(Buffer.from('2\r\nhi\r\n0\r\n\r\n')) // 'hi' as bytes
 */
function decodeChunked(raw: Uint8Array): Uint8Array | null {
  const parts: Uint8Array[] = []
  let pos = 0
  for (;;) {
    const lineEnd = raw.indexOf(LF, pos)
    if (lineEnd === -1) return null
    const sizeText =
      Buffer.from(raw.subarray(pos, lineEnd))
        .toString('latin1')
        .replace(/\r$/, '')
        .split(';')[0]
        ?.trim() ?? ''
    if (!/^[0-9a-fA-F]+$/.test(sizeText)) return null
    const size = parseInt(sizeText, 16)
    pos = lineEnd + 1
    if (size === 0) break
    if (pos + size > raw.length) return null
    parts.push(raw.subarray(pos, pos + size))
    pos += size
    if (raw[pos] === CR) pos++
    if (raw[pos] === LF) pos++
  }
  return Buffer.concat(parts)
}
