import { JsonPathScanner } from './json-scan.js'

/** Distinct expressions a table shares scanners for; beyond it each matcher compiles its own. */
export const MAX_SHARED_SCANNERS = 10_000

/**
 * One JsonPathScanner per JSONPath expression within a compiled mock service.
 *
 * Why: a request keeps the answer of its last scan by scanner object (MatchRequest#jsonText). The
 * discriminator reads the value through one transaction's predicate and the candidate it picks
 * tests its own predicate on the same expression; with a scanner each, the body was scanned
 * twice. Sharing the scanner makes the second read a cache hit. The cap bounds the table for a
 * document of 100,000s of distinct paths, where sharing would buy nothing anyway.
 *
 * @example
 * const scanners = new JsonScanners()
 * scanners.get('$.a.b') === scanners.get('$.a.b') // true
 */
export class JsonScanners {
  readonly #byExpression = new Map<string, JsonPathScanner | null>()

  constructor(private readonly limit: number = MAX_SHARED_SCANNERS) {}

  /** The shared scanner for `expression`, or null when it is not a simple path (see json-scan.ts). */
  get(expression: string): JsonPathScanner | null {
    const known = this.#byExpression.get(expression)
    if (known !== undefined) return known
    const scanner = JsonPathScanner.compile(expression)
    if (this.#byExpression.size < this.limit) this.#byExpression.set(expression, scanner)
    return scanner
  }

  /** How many expressions are shared. */
  get size(): number {
    return this.#byExpression.size
  }
}
