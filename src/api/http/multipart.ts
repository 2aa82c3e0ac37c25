import type { IncomingMessage } from 'node:http'
import busboy from 'busboy'
import { createError } from '../../errors/index.js'
import { mediaTypeOf } from '../../httpkit/index.js'
import type { MultipartForm, UploadedFile } from './types.js'

/** A file's first buffer when the body's length is not declared (it doubles as needed). */
const FIRST_CAPACITY = 64 * 1024

/**
 * A file's bytes, copied into one buffer of its own as they arrive: one concat of the chunks at
 * the end held the event loop for 100 ms for an 80 MB file. The buffer is sized from the
 * declared body length when there is one, so it is not copied again; its tail pages past the
 * file's end are never written.
 */
class FileBytes {
  #buffer: Buffer
  #used = 0

  constructor(capacity: number) {
    this.#buffer = Buffer.allocUnsafeSlow(Math.max(0, capacity))
  }

  append(chunk: Buffer): void {
    if (this.#used + chunk.length > this.#buffer.length) {
      const grown = Buffer.allocUnsafeSlow(
        Math.max(2 * this.#buffer.length, this.#used + chunk.length, FIRST_CAPACITY),
      )
      this.#buffer.copy(grown, 0, 0, this.#used)
      this.#buffer = grown
    }
    chunk.copy(this.#buffer, this.#used)
    this.#used += chunk.length
  }

  /** The file's bytes: a view of the buffer, or a copy of its own size when the view would keep over half of it unused. */
  done(): Buffer {
    if (this.#used * 2 >= this.#buffer.length) return this.#buffer.subarray(0, this.#used)
    const exact = Buffer.allocUnsafeSlow(this.#used)
    this.#buffer.copy(exact, 0, 0, this.#used)
    return exact
  }
}

/**
 * The body as multipart/form-data, files buffered. Errors: 415 for another type, 413 past `limit`
 * (for any one file or the whole body), 400 for a malformed body.
 */
export async function readMultipart(req: IncomingMessage, limit: number): Promise<MultipartForm> {
  const type = mediaTypeOf(req)
  if (type !== 'multipart/form-data') {
    throw createError('ERR_API_UNSUPPORTED_MEDIA_TYPE', [
      type === '' ? 'none' : type,
      'multipart/form-data',
    ])
  }
  const declared = Number(req.headers['content-length'] ?? 0)
  if (declared > limit) {
    req.resume()
    throw createError('ERR_API_PAYLOAD_TOO_LARGE', [limit])
  }
  return new Promise<MultipartForm>((resolve, reject) => {
    const form: MultipartForm = { fields: {}, files: [] }
    let failed = false
    let total = 0
    const fail = (err: Error): void => {
      if (failed) return
      failed = true
      req.unpipe()
      req.resume()
      reject(err)
    }
    let parser: busboy.Busboy
    try {
      parser = busboy({
        headers: req.headers,
        limits: { fileSize: limit, fieldSize: 1024 * 1024, files: 20, fields: 200 },
      })
    } catch (err) {
      reject(
        createError('ERR_API_BAD_REQUEST', [`Malformed multipart body: ${(err as Error).message}`]),
      )
      return
    }
    parser.on('field', (name, value) => {
      form.fields[name] = value
    })
    parser.on('file', (field, stream, info) => {
      // what is left of the declared body bounds this file's size
      const bytes = new FileBytes(
        declared > 0 ? Math.min(declared - total, limit - total) : FIRST_CAPACITY,
      )
      stream.on('data', (chunk: Buffer) => {
        total += chunk.length
        if (total > limit) {
          stream.resume()
          fail(createError('ERR_API_PAYLOAD_TOO_LARGE', [limit]))
          return
        }
        bytes.append(chunk)
      })
      stream.on('limit', () => fail(createError('ERR_API_PAYLOAD_TOO_LARGE', [limit])))
      stream.on('end', () => {
        const file: UploadedFile = {
          field,
          filename: info.filename ?? field,
          contentType: info.mimeType,
          bytes: bytes.done(),
          exclusive: true,
        }
        form.files.push(file)
      })
    })
    parser.on('error', (err: Error) =>
      fail(createError('ERR_API_BAD_REQUEST', [`Malformed multipart body: ${err.message}`])),
    )
    parser.on('close', () => {
      if (!failed) resolve(form)
    })
    req.pipe(parser)
  })
}
