import { createRequire } from 'node:module'
import type * as XmlDomModule from '@xmldom/xmldom'
import type {
  Document as XmlDom,
  Node as XmlNode,
  Element as XmlElement,
  DOMParser,
} from '@xmldom/xmldom'

/** A parsed XML body. */
export type XmlDocument = XmlDom

/** The result of an XPath evaluation, as xpath.js returns it. */
interface XPathResult {
  toArray?: () => XmlNode[]
  stringValue: () => string
  booleanValue: () => boolean
}

/** A pre-parsed XPath expression (xpath.js `parse`, which its type declarations omit). */
interface XPathEvaluator {
  evaluate: (options: { node: XmlNode; namespaces?: Record<string, string> }) => XPathResult
}

// The XML libraries (CommonJS) load on first use, synchronously: a mock service without XML
// matchers does not pay for them (about 18 MiB).
const load = createRequire(import.meta.url)
let xpathModule: { parse: (expression: string) => XPathEvaluator } | null = null
let strictParserInstance: DOMParser | null = null

function xpath(): { parse: (expression: string) => XPathEvaluator } {
  xpathModule ??= load('xpath') as { parse: (expression: string) => XPathEvaluator }
  return xpathModule
}

function strictParser(): DOMParser {
  if (strictParserInstance === null) {
    const { DOMParser: Parser } = load('@xmldom/xmldom') as typeof XmlDomModule
    strictParserInstance = new Parser({
      onError: (level: string, message: string) => {
        if (level !== 'warning') throw new Error(message)
      },
    })
  }
  return strictParserInstance
}

const ELEMENT_NODE = 1
const TEXT_NODE = 3
const CDATA_SECTION_NODE = 4

/**
 * Parses XML, returning null when it is not well-formed. xmldom resolves no external entities, so
 * a request body cannot make the runtime read files or the network.
 */
export function parseXml(text: string, maxDepth = Infinity): XmlDocument | null {
  if (text.trim() === '') return null
  // Each level takes at least 7 characters (`<a>` and `</a>`): only long texts need the scan.
  if (text.length > 7 * maxDepth && xmlDepthExceeds(text, maxDepth)) return null
  try {
    return strictParser().parseFromString(text, 'text/xml')
  } catch {
    return null
  }
}

/**
 * Whether XML text nests elements deeper than `limit`, by counting start and end tags (comments,
 * CDATA, processing instructions and declarations are skipped). A bound for hostile bodies: xmldom
 * takes about a second for 20,000 nested elements and the XPath walks recurse.
 */
function xmlDepthExceeds(text: string, limit: number): boolean {
  let depth = 0
  let i = text.indexOf('<')
  while (i !== -1 && i < text.length) {
    const next = text.charCodeAt(i + 1)
    if (next === 0x21 || next === 0x3f) {
      // `<!--`, `<![CDATA[`, `<!DOCTYPE`, `<?`: skip to their end.
      const end = text.startsWith('<!--', i)
        ? text.indexOf('-->', i)
        : text.startsWith('<![CDATA[', i)
          ? text.indexOf(']]>', i)
          : text.indexOf('>', i)
      if (end === -1) return false
      i = text.indexOf('<', end)
      continue
    }
    const close = text.indexOf('>', i)
    if (close === -1) return false
    if (next === 0x2f) depth--
    else if (text.charCodeAt(close - 1) !== 0x2f) {
      depth++
      if (depth > limit) return true
    }
    i = text.indexOf('<', close)
  }
  return false
}

/** A compiled XPath: what it selects, as strings, and whether it selects anything. */
export interface CompiledXPath {
  /** The selected nodes (none for a scalar expression). */
  nodes: (node: XmlNode) => XmlNode[]
  /** String values of the selected nodes, or the value of a scalar expression. */
  values: (node: XmlNode) => string[]
  /** True when the expression selects at least one node, or its scalar value is true. */
  holds: (node: XmlNode) => boolean
}

/**
 * Parses an XPath expression once, at compile time. Throws on invalid syntax.
 *
 * @example
 * compileXPath('/order/id').values(parseXml('<order><id>7</id></order>')!) // ['7']
 */
export function compileXPath(
  expression: string,
  namespaces?: Readonly<Record<string, string>>,
): CompiledXPath {
  const evaluator = xpath().parse(expression)
  // Prefix bindings of the matcher (`namespaces: [{prefix, uri}]`), resolved once here.
  const options = namespaces === undefined ? null : { namespaces: { ...namespaces } }
  const run = (node: XmlNode): XPathResult | null => {
    try {
      return evaluator.evaluate(
        options === null ? { node } : { node, namespaces: options.namespaces },
      )
    } catch {
      return null
    }
  }
  return {
    nodes: (node) => run(node)?.toArray?.() ?? [],
    values: (node) => {
      const result = run(node)
      if (result === null) return []
      if (result.toArray !== undefined) return result.toArray().map((n) => n.textContent ?? '')
      return [result.stringValue()]
    },
    holds: (node) => {
      const result = run(node)
      if (result === null) return false
      if (result.toArray !== undefined) return result.toArray().length > 0
      return result.booleanValue()
    },
  }
}

/**
 * A canonical string of an XML tree for semantic equality (`equals_xml`): namespaces resolved,
 * attributes sorted, namespace declarations, comments, processing instructions and
 * whitespace-only text ignored, text trimmed.
 *
 * @example
 * canonicalXml(parseXml('<a y="2" x="1"> <b/> </a>')!) === canonicalXml(parseXml('<a x="1" y="2"><b></b></a>')!) // true
 */
export function canonicalXml(node: XmlNode): string {
  if (node.nodeType === ELEMENT_NODE) {
    const element = node as XmlElement
    const attrs: string[] = []
    for (let i = 0; i < element.attributes.length; i++) {
      const attr = element.attributes.item(i)
      if (attr === null || attr.name === 'xmlns' || attr.name.startsWith('xmlns:')) continue
      attrs.push(
        `{${attr.namespaceURI ?? ''}}${attr.localName ?? attr.name}=${JSON.stringify(attr.value)}`,
      )
    }
    attrs.sort()
    let children = ''
    for (let child = element.firstChild; child !== null; child = child.nextSibling) {
      children += canonicalXml(child)
    }
    return `<{${element.namespaceURI ?? ''}}${element.localName ?? element.nodeName} ${attrs.join(' ')}>${children}</>`
  }
  if (node.nodeType === TEXT_NODE || node.nodeType === CDATA_SECTION_NODE) {
    const text = (node.nodeValue ?? '').trim()
    return text === '' ? '' : JSON.stringify(text)
  }
  if (node.nodeType === 9 /* document */) {
    let out = ''
    for (let child = node.firstChild; child !== null; child = child.nextSibling) {
      out += canonicalXml(child)
    }
    return out
  }
  return ''
}

let serializerInstance: XmlDomModule.XMLSerializer | null = null

/**
 * A node as XML text, with the namespace declarations it uses (xmldom adds those declared on its
 * ancestors), so that it stands alone as a document.
 */
export function serializeXml(node: XmlNode): string {
  if (serializerInstance === null) {
    const { XMLSerializer: Serializer } = load('@xmldom/xmldom') as typeof XmlDomModule
    serializerInstance = new Serializer()
  }
  return serializerInstance.serializeToString(node)
}
