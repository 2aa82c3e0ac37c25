import type { MatchRequest } from '../request.js'
import { serializeXml, type CompiledXPath } from '../xml.js'
import type { CompiledXsd } from '../xsd.js'
import { validateXml, type XsdOutcome } from '../xsd/xmllint-pool.js'
import { shorten, type Predicate } from './predicate.js'

/** Nodes one XPath-keyed matcher validates per request; those past it are not validated. */
const MAX_VALIDATED_NODES = 16

/** A condition whose verdict is computed asynchronously before the synchronous match. */
export interface PreparedPredicate extends Predicate {
  /** Runs the work `test` will read; never rejects. */
  prepare: (req: MatchRequest) => Promise<void>
}

let nextPredicateId = 1

/**
 * `matches_xml_schema`: the body (or a node the XPath key selects) validates against the schema.
 * libxml2 runs in a worker thread, so the validation happens in `prepare`, before matching; `test`
 * only reads the stored outcome (a request that was not prepared does not match).
 */
export class XsdPredicate implements PreparedPredicate {
  readonly part = 'body' as const
  readonly matcherName = 'matches_xml_schema'
  /** Where this matcher's own outcome is stored when it validates selected nodes. */
  readonly #nodesKey = `xsd-nodes-${nextPredicateId++}`

  constructor(
    readonly key: string,
    readonly expected: string,
    readonly pointer: string,
    private readonly schema: CompiledXsd,
    private readonly nodes: CompiledXPath | null,
    private readonly optional: boolean,
  ) {}

  /** The key of the stored outcome this matcher reads. */
  get #outcomeKey(): string {
    return this.nodes === null ? `xsd-${this.schema.id}` : this.#nodesKey
  }

  async prepare(req: MatchRequest): Promise<void> {
    if (req.body === null || req.body.length === 0) return
    const schema = this.schema.text
    if (this.nodes === null) {
      const body = req.body
      await req.validate(this.#outcomeKey, () =>
        looksLikeXml(body) ? validateXml(schema, body) : Promise.resolve(NOT_XML),
      )
      return
    }
    const xml = req.xml()
    const selected = xml === null ? [] : this.nodes.nodes(xml)
    if (selected.length === 0) return
    const texts = selected.slice(0, MAX_VALIDATED_NODES).map(serializeXml)
    await req.validate(this.#outcomeKey, async () => {
      const outcomes = await Promise.all(texts.map((text) => validateXml(schema, text)))
      return outcomes.find((o) => o.valid) ?? outcomes[0] ?? NOT_XML
    })
  }

  test(req: MatchRequest): boolean {
    if (req.body === null || req.body.length === 0) return this.optional
    if (this.nodes !== null) {
      // With a key, the item is what the key selects: `optional` also passes when it selects nothing.
      const xml = req.xml()
      if (xml === null || this.nodes.nodes(xml).length === 0) return this.optional
    }
    return req.validation(this.#outcomeKey)?.valid === true
  }

  actual(req: MatchRequest): string | null {
    if (req.body === null || req.body.length === 0) return null
    const outcome = req.validation(this.#outcomeKey)
    if (outcome === undefined) return this.nodes === null ? 'not validated' : 'nothing selected'
    return shorten(outcome.problem ?? 'valid')
  }
}

const NOT_XML: XsdOutcome = { valid: false, problem: 'not XML' }

/** Whether the first byte past a BOM and white space opens markup: a cheap test before a worker trip. */
function looksLikeXml(body: Buffer): boolean {
  let i = body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0
  while (
    i < body.length &&
    (body[i] === 0x20 || body[i] === 0x09 || body[i] === 0x0a || body[i] === 0x0d)
  ) {
    i++
  }
  return body[i] === 0x3c
}
