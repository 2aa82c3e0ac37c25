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
  static equalsUrl(expected: string, pointer: string): PathPredicate {
    const template = normalizeTemplate(expected)
    const check: ValueCheck = isTemplate(template)
      ? (
          (re) => (path: string) =>
            re.test(path)
        )(templateRegex(template))
      : (path: string) => path === template
    return new PathPredicate('equals_url', expected, pointer, check, false)
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
