import type { MatchRequest } from '../request.js'
import { isTemplate, normalizeTemplate, templateRegex } from '../path.js'
import { shorten, type UrlPredicate } from './predicate.js'
import type { ValueCheck } from './value-check.js'

/**
 * A matcher on the request path (normalized, see path.ts). `equals_url` compares normalized paths,
 * `{name}` segments matching one segment; the other matchers apply their check to the path.
 */
export class PathPredicate implements UrlPredicate {
  readonly part = 'url' as const
  readonly key = 'url'
  private readonly check: ValueCheck
  private readonly negated: boolean

  constructor(
    readonly matcherName: string,
    readonly expected: string,
    readonly pointer: string,
    check: ValueCheck,
    negated: boolean,
  ) {
    this.check = check
    this.negated = negated
  }

  /** `equals_url` against a literal path or a `{name}` template. */
  static equalsUrl(expected: string, pointer: string): UrlPredicate {
    return new EqualsUrlPredicate(expected, pointer)
  }

  test(req: MatchRequest): boolean {
    return this.check(req.path) !== this.negated
  }

  testPath(path: string): boolean {
    return this.check(path) !== this.negated
  }

  actual(req: MatchRequest): string {
    return shorten(req.path)
  }
}

/**
 * `equals_url`: the normalized path equals a literal path, or matches a `{name}` template. No
 * closure per transaction, and a template's regex is compiled only when something asks for it
 * (the route index does, at load, for the templates it checks at request time; most are decided
 * by the route itself and never need one).
 */
class EqualsUrlPredicate implements UrlPredicate {
  // The same for every instance: on the prototype, not in each of 100,000s of objects.
  get part(): 'url' {
    return 'url'
  }

  get key(): string {
    return 'url'
  }

  get matcherName(): string {
    return 'equals_url'
  }

  /** The normalized path or template. */
  private readonly template: string
  /** True when `template` has no `{name}`: compared as a string. */
  private readonly literal: boolean
  private regex: RegExp | null = null

  constructor(
    readonly expected: string,
    readonly pointer: string,
  ) {
    this.template = normalizeTemplate(expected)
    this.literal = !isTemplate(this.template)
  }

  /** Compiles the template's regex now (load time), so that no request compiles it. */
  prepare(): void {
    if (!this.literal) this.regex ??= templateRegex(this.template)
  }

  test(req: MatchRequest): boolean {
    return this.testPath(req.path)
  }

  testPath(path: string): boolean {
    if (this.literal) return path === this.template
    this.regex ??= templateRegex(this.template)
    return this.regex.test(path)
  }

  actual(req: MatchRequest): string {
    return shorten(req.path)
  }
}

/**
 * Readies a url predicate the index checks at request time (an `equals_url` template's regex),
 * so that the first request through it compiles nothing.
 */
export function prepareUrl(url: UrlPredicate | null): void {
  if (url instanceof EqualsUrlPredicate) url.prepare()
}
