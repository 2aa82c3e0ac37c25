import { PROBLEM_CONTENT_TYPE, toProblem, type UnderstudyError } from '../errors/index.js'

/** A runtime error answer, ready to write. */
interface ProblemAnswer {
  status: number
  headers: string[]
  headers2: string[]
  body: Buffer
}

/**
 * The problem+json answer for an error the runtime produces (no match, capacity, body too large,
 * upstream down), with `requestId` = the inspection record id when there is one.
 */
export function problemAnswer(
  err: UnderstudyError,
  requestId: number | null,
  extra?: Record<string, unknown>,
  extraHeaders?: readonly string[],
): ProblemAnswer {
  const body = Buffer.from(
    JSON.stringify(toProblem(err, requestId === null ? null : String(requestId), extra)),
  )
  const headers = ['content-type', PROBLEM_CONTENT_TYPE, 'content-length', String(body.length)]
  if (extraHeaders !== undefined) headers.push(...extraHeaders)
  // Connection is meaningful only to HTTP/1.1.
  const headers2: string[] = []
  for (let i = 0; i < headers.length; i += 2) {
    if (headers[i] !== 'connection') headers2.push(headers[i] as string, headers[i + 1] as string)
  }
  return { status: err.statusCode, headers, headers2, body }
}
