import { formatCount } from '../../errors/index.js'
import { createRequire } from 'node:module'
import type * as XPath from 'xpath'
import { MAX_DEFINITION_DEPTH, TemplateBoundError } from '../../dsl/index.js'
import { parseXml } from '../../match/index.js'
import type { RenderBudget } from './budget.js'

/**
 * Characters of XML the `xPath` helper parses in one render: a request body past it is not read.
 * 256 KiB is far above a usual SOAP message; the xpath package orders a node set by comparing
 * positions among siblings, so a selection costs up to the square of the nodes selected, and
 * 50,000 sibling elements (350 KB) took seconds for `count(//a)`.
 */
const MAX_TEMPLATE_XPATH_INPUT = 262_144

/**
 * Characters of an `xPath` or `jsonPath` expression (it may come from the request:
 * `{{xPath request.body request.query.q}}`).
 */
export const MAX_TEMPLATE_PATH_EXPRESSION = 1_000

/**
 * Nodes the `xPath` calls of one render may visit, all together. An expression nesting paths in
 * predicates (`//*[//*[//x]]`) visits nodes times nodes times nodes: 3,000 elements would make
 * 27,000,000,000 visits. `count(//*[//*])` over 200 elements makes about 160,000.
 */
const MAX_TEMPLATE_XPATH_VISITS = 500_000

interface XPathExpression {
  xpath: unknown
  evaluate: (
    node: unknown,
    type: number,
    result: null,
  ) => {
    resultType: number
    stringValue: string
    numberValue: number
    booleanValue: boolean
    nodes: Array<{ textContent?: string | null }>
  }
}
interface NodeTest {
  matches: (node: unknown, context: unknown) => boolean
}

/**
 * The DOM 3 entry point of the xpath package: what `xpath.select` evaluates, with the parsed tree
 * reachable so that its node tests can be counted.
 */
interface XPathDom3 {
  createExpression: (expression: string, resolver: null) => XPathExpression
}
let dom3Module: XPathDom3 | null = null

/** The xpath package (CommonJS), loaded with the first `xPath` a template renders. */
function dom3(): XPathDom3 {
  dom3Module ??= createRequire(import.meta.url)('xpath') as typeof XPath as unknown as XPathDom3
  return dom3Module
}
const ANY_TYPE = 0
const NUMBER_TYPE = 1
const STRING_TYPE = 2
const BOOLEAN_TYPE = 3

/**
 * `xPath source expression` of a template, as `xpath.select` answers it (the text of the first
 * node selected, or the value of a scalar expression), within the bounds above: the XML parsed
 * (once per render for the same text), the expression's length, and the nodes visited, counted
 * in `budget`. Past a bound it throws TemplateBoundError naming it (500 ERR_SERVE_TEMPLATE_LIMIT).
 */
export function boundedXPath(source: unknown, expression: string, budget: RenderBudget): string {
  if (expression.length > MAX_TEMPLATE_PATH_EXPRESSION) {
    throw new TemplateBoundError(
      `the XPath expression is longer than ${formatCount(MAX_TEMPLATE_PATH_EXPRESSION)} characters, the limit (docs/limits.md)`,
    )
  }
  const text = String(source ?? '')
  if (budget.xmlText !== text) {
    if (text.length > MAX_TEMPLATE_XPATH_INPUT) {
      throw new TemplateBoundError(
        `the XML given to xPath is longer than ${formatCount(MAX_TEMPLATE_XPATH_INPUT)} characters (256 KiB), the limit (docs/limits.md)`,
      )
    }
    budget.xml = parseXml(text, MAX_DEFINITION_DEPTH)
    budget.xmlText = text
  }
  const doc = budget.xml
  if (doc === null) {
    throw new Error(
      `the body is not well-formed XML (or nests deeper than ${MAX_DEFINITION_DEPTH} levels)`,
    )
  }
  const compiled = dom3().createExpression(expression, null)
  countVisits(compiled.xpath, budget, new Set())
  const result = compiled.evaluate(doc, ANY_TYPE, null)
  if (result.resultType === STRING_TYPE) return result.stringValue
  if (result.resultType === NUMBER_TYPE) return String(result.numberValue)
  if (result.resultType === BOOLEAN_TYPE) return String(result.booleanValue)
  const first = result.nodes[0]
  return first === undefined ? '' : (first.textContent ?? '')
}

/**
 * Replaces the node test of every step of a parsed expression with one that counts each node it
 * is asked about against the render's budget: every axis of the xpath package visits nodes
 * through its step's node test, so the count is the work done. The tree is as small as the
 * expression (1,000 characters at most).
 */
function countVisits(node: unknown, budget: RenderBudget, seen: Set<object>): void {
  if (node === null || typeof node !== 'object' || seen.has(node)) return
  seen.add(node)
  const record = node as Record<string, unknown>
  const test = record['nodeTest'] as NodeTest | undefined
  if (test !== undefined && typeof test.matches === 'function') {
    const counted = Object.create(test) as NodeTest
    counted.matches = (candidate, context) => {
      if (++budget.xpathVisits > MAX_TEMPLATE_XPATH_VISITS) {
        throw new TemplateBoundError(
          `the xPath calls of one render visited more than ${formatCount(MAX_TEMPLATE_XPATH_VISITS)} nodes, the limit (docs/limits.md)`,
        )
      }
      return test.matches(candidate, context)
    }
    record['nodeTest'] = counted
  }
  for (const key of Object.keys(record)) {
    if (key !== 'nodeTest') countVisits(record[key], budget, seen)
  }
}
