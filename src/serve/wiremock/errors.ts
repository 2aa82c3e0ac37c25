/**
 * WireMock's error body: `{errors: [{code, source: {pointer}, title, detail?}]}`, which its
 * clients read (the Java client raises `InvalidInputException` from it). Codes are WireMock's:
 * 10 for invalid input, 30 for not found (`Errors.java`); the others use 10.
 */
export interface WireMockErrorItem {
  code: number
  source?: { pointer: string }
  title: string
  detail?: string
}

/** A WireMock admin request refused: its HTTP status and WireMock's error items. */
export class WireMockError extends Error {
  readonly status: number
  readonly errors: WireMockErrorItem[]

  constructor(status: number, errors: WireMockErrorItem[]) {
    super(errors[0]?.title ?? 'refused')
    this.status = status
    this.errors = errors
  }

  /** The body WireMock answers with. */
  get body(): { errors: WireMockErrorItem[] } {
    return { errors: this.errors }
  }
}

/**
 * 422 naming the field at `pointer` (JSON pointer into the request body).
 *
 * @example
 * throw invalidInput('/request/bodyPatterns/0', 'binaryEqualTo is not supported')
 */
export function invalidInput(pointer: string, title: string, detail?: string): WireMockError {
  return new WireMockError(422, [item(10, pointer, title, detail)])
}

/** 400 naming the field at `pointer` (WireMock's answer to a value it knows but refuses). */
export function badRequest(pointer: string, title: string): WireMockError {
  return new WireMockError(400, [item(10, pointer, title)])
}

/** 400 for a body that is not JSON (or not the object expected). */
export function malformed(title: string): WireMockError {
  return new WireMockError(400, [{ code: 10, title }])
}

/** 404 for an id or name that is not known. */
export function notFound(title: string): WireMockError {
  return new WireMockError(404, [{ code: 30, title }])
}

function item(code: number, pointer: string, title: string, detail?: string): WireMockErrorItem {
  const out: WireMockErrorItem = { code, source: { pointer }, title }
  if (detail !== undefined) out.detail = detail
  return out
}
