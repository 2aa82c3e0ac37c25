import type { FieldValue, MatchRequest } from '../request.js'
import { shorten, type Predicate, type RequestPart } from './predicate.js'
import type { ValueCheck } from './value-check.js'

/** Reads the value(s) of one named item of a request; undefined when it is absent. */
export type FieldReader = (req: MatchRequest, key: string) => FieldValue | undefined

/** How a field predicate treats presence (docs/architecture.md#matching). */
interface FieldRules {
  /** `absent`: holds exactly when the item is missing. */
  absent: boolean
  /** `optional: true`: a missing item also satisfies the matcher. */
  optional: boolean
  /** `not_matches`: holds when no value satisfies the (positive) check. */
  negated: boolean
  /** `allParts`: holds when every value satisfies the check (and there is one at least). */
  every?: boolean
}

/**
 * A matcher on a named item with string values: a header, query parameter, cookie, form field, or
 * a value a JSONPath/XPath selects. Holds when any value satisfies the check (or, negated, none).
 */
export class FieldPredicate implements Predicate {
  readonly expected: string
  /**
   * The value an `equals` that must hold (not optional, absent or negated) requires, so that an
   * index can pick the candidates a request can match (discriminator.ts); null otherwise.
   */
  readonly indexValue: string | null
  /** An Authorization header: its credentials never reach a diagnosis (the 404 body). */
  private readonly secret: boolean

  constructor(
    readonly part: RequestPart,
    readonly key: string,
    readonly matcherName: string,
    expected: string,
    readonly pointer: string,
    private readonly read: FieldReader,
    private readonly check: ValueCheck,
    private readonly rules: FieldRules,
  ) {
    this.secret = part === 'headers' && (key === 'authorization' || key === 'proxy-authorization')
    this.expected = this.secret ? maskCredentials(expected) : expected
    this.indexValue =
      matcherName === 'equals' && !rules.absent && !rules.optional && !rules.negated
        ? expected
        : null
  }

  /** The request's value(s) of this predicate's item (what `test` checks). */
  readValue(req: MatchRequest): FieldValue | undefined {
    return this.read(req, this.key)
  }

  // HOT PATH: every candidate transaction runs its predicates through here.
  test(req: MatchRequest): boolean {
    const value = this.read(req, this.key)
    if (value === undefined) return this.rules.absent || this.rules.optional
    if (this.rules.absent) return false
    if (typeof value === 'string') return this.check(value) !== this.rules.negated
    if (this.rules.every === true && !this.rules.negated) {
      for (let i = 0; i < value.length; i++) if (!this.check(value[i] as string)) return false
      return value.length > 0
    }
    for (let i = 0; i < value.length; i++) {
      if (this.check(value[i] as string)) return !this.rules.negated
    }
    return this.rules.negated
  }

  actual(req: MatchRequest): string | null {
    const value = this.read(req, this.key)
    if (value === undefined) return null
    const text = typeof value === 'string' ? value : value.join(', ')
    return this.secret ? maskCredentials(text) : shorten(text)
  }
}

/** `Basic dXNlcjpwYXNz` -> `Basic ***`: the scheme stays, the credentials go (as in credentials.ts). */
function maskCredentials(value: string): string {
  const space = value.indexOf(' ')
  return space === -1 ? '***' : `${value.slice(0, space)} ***`
}

/** Header values by lowercase name, as Node presents them (repeated headers joined by `, `). */
export const readHeader: FieldReader = (req, key) => req.headers[key]

/** Query parameter values; repeated parameters give several values. */
export const readQuery: FieldReader = (req, key) => req.query()[key]

/** Cookie values of the `Cookie` header. */
export const readCookie: FieldReader = (req, key) => req.cookies()[key]

/** Every field of an urlencoded or multipart body, whatever its name; absent when the body is no form. */
export const readAllFormFields: FieldReader = (req) => {
  const form = req.form()
  if (form === null) return undefined
  const values: string[] = []
  for (const name in form) {
    const value = form[name] as FieldValue
    if (typeof value === 'string') values.push(value)
    else values.push(...value)
  }
  return values
}

/** Form fields of an urlencoded or multipart body. */
export const readFormField: FieldReader = (req, key) => req.form()?.[key]

/** The whole body as text; absent when the request has no body. */
export const readBodyText: FieldReader = (req) =>
  req.body === null || req.body.length === 0 ? undefined : req.text()
