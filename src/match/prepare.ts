import { createRequire } from 'node:module'
import type BusboyModule from 'busboy'
import type { FieldValue, MatchRequest } from './request.js'
import type { PreparedPredicate } from './predicates/index.js'

type Busboy = typeof BusboyModule
let busboyModule: Busboy | null = null

/** busboy, loaded on the first multipart body a form matcher needs. */
function busboy(): Busboy {
  busboyModule ??= createRequire(import.meta.url)('busboy') as Busboy
  return busboyModule
}

/**
 * Parses a multipart body into form fields before matching, because busboy delivers file parts
 * asynchronously. Called only when an active transaction matches form fields and the request is
 * multipart; a malformed body leaves the form empty (the matchers then fail, never throw).
 */
export async function prepareMultipart(req: MatchRequest): Promise<void> {
  const contentType = req.headers['content-type'] ?? ''
  if (req.body === null || !contentType.toLowerCase().startsWith('multipart/')) return
  const fields: Record<string, FieldValue> = Object.create(null) as Record<string, FieldValue>
  const add = (name: string, value: string): void => {
    const existing = fields[name]
    fields[name] =
      existing === undefined
        ? value
        : typeof existing === 'string'
          ? [existing, value]
          : [...existing, value]
  }
  await new Promise<void>((resolve) => {
    let parser: BusboyModule.Busboy
    try {
      parser = busboy()({
        headers: { 'content-type': contentType },
        limits: { fieldSize: req.body?.length ?? 0 },
      })
    } catch {
      resolve()
      return
    }
    parser.on('field', (name, value) => add(name, value))
    parser.on('file', (name, stream) => {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => add(name, Buffer.concat(chunks).toString('utf8')))
    })
    parser.on('close', () => resolve())
    parser.on('error', () => resolve())
    parser.end(req.body)
  })
  req.setMultipartForm(fields)
}

/**
 * Runs the asynchronous preparations (body validations, matches_xml_schema) the given predicates
 * will read when the request is matched, concurrently; a schema several predicates share runs once.
 * Never rejects: a validation that cannot run leaves its predicate failing.
 */
export async function preparePredicates(
  req: MatchRequest,
  predicates: readonly PreparedPredicate[],
): Promise<void> {
  if (req.body === null || req.body.length === 0) return
  await Promise.all(predicates.map((p) => p.prepare(req)))
}
