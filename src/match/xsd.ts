import { compileUserRegex, RegexRejection } from '../dsl/index.js'
import { parseXml } from './xml.js'
import type { Node as XmlNode, Element as XmlElement } from '@xmldom/xmldom'

/**
 * A compiled XML Schema for `matches_xml_schema` (issue 7). No XSD validator is among the
 * project's dependencies, so this is a subset, compiled once at load: global and local
 * `element` declarations (`name`, `type`, `ref`, `minOccurs`, `maxOccurs`), named and inline
 * `complexType` with `sequence`, `choice`, `all` (nested), `attribute use="required"`,
 * `simpleContent`/`complexContent` `extension` of a named type, named and inline `simpleType`
 * `restriction` with `enumeration`, `pattern`, `minLength`, `maxLength`, and the built-in types
 * string, boolean, the integer and decimal families, date and dateTime. Constructs outside the
 * subset (`any`, `group`, `attributeGroup`, substitution groups, identity constraints) accept
 * whatever they stand for, never refuse. Element names are compared by local name. docs/dsl.md
 * lists the subset.
 */
export interface CompiledXsd {
  /** Whether a document (or element) is valid against the schema's global elements. */
  validates: (node: XmlNode) => boolean
}

type Check = (el: XmlElement) => boolean
type TextCheck = (text: string) => boolean

const ELEMENT_NODE = 1
const TEXT_NODE = 3
const CDATA_SECTION_NODE = 4
const ACCEPT: Check = () => true

const builtins: Record<string, TextCheck> = {
  boolean: (v) => /^(true|false|1|0)$/.test(v.trim()),
  integer: (v) => /^[+-]?\d+$/.test(v.trim()),
  decimal: (v) => /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(v.trim()),
  double: (v) => /^([+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|INF|-INF|NaN)$/.test(v.trim()),
  date: (v) => /^\d{4}-\d{2}-\d{2}(Z|[+-]\d{2}:\d{2})?$/.test(v.trim()),
  dateTime: (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/.test(v.trim()),
}
for (const name of ['int', 'long', 'short', 'byte', 'nonNegativeInteger', 'positiveInteger', 'unsignedInt', 'unsignedLong', 'unsignedShort', 'unsignedByte', 'negativeInteger', 'nonPositiveInteger']) builtins[name] = builtins['integer'] as TextCheck
builtins['float'] = builtins['double'] as TextCheck

const localName = (qname: string): string => qname.slice(qname.indexOf(':') + 1)
const childElements = (node: XmlNode): XmlElement[] => {
  const out: XmlElement[] = []
  for (let c = node.firstChild; c !== null; c = c.nextSibling) if (c.nodeType === ELEMENT_NODE) out.push(c as XmlElement)
  return out
}
const xsChildren = (el: XmlElement, name?: string): XmlElement[] => childElements(el).filter((c) => name === undefined || (c.localName ?? c.nodeName) === name)
const nameOf = (el: XmlElement): string => el.localName ?? localName(el.nodeName)
const textOf = (el: XmlElement): string => {
  let text = ''
  for (let c = el.firstChild; c !== null; c = c.nextSibling) if (c.nodeType === TEXT_NODE || c.nodeType === CDATA_SECTION_NODE) text += c.nodeValue ?? ''
  return text
}

/**
 * Compiles an XSD text, or says why it cannot.
 *
 * @example
 * const xsd = compileXsd('<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="a" type="xs:int"/></xs:schema>')
 */
export function compileXsd (text: string): CompiledXsd | { error: string } {
  const doc = parseXml(text)
  const root = doc === null ? null : childElements(doc)[0]
  if (root === undefined || root === null || nameOf(root) !== 'schema') return { error: 'must be an XML Schema (an xs:schema document)' }
  const decls = new Map<string, XmlElement>()
  const types = new Map<string, XmlElement>()
  for (const c of xsChildren(root)) {
    const name = c.getAttribute('name') ?? ''
    if (nameOf(c) === 'element') decls.set(name, c)
    else if (nameOf(c) === 'complexType' || nameOf(c) === 'simpleType') types.set(name, c)
  }
  if (decls.size === 0) return { error: 'declares no global element' }
  const problems: string[] = []
  // Named types compile lazily, once each, so that recursive types terminate.
  const typeChecks = new Map<string, Check>()
  const elementChecks = new Map<string, Check>()

  const textCheckOfType = (qname: string): TextCheck | null => {
    const name = localName(qname)
    const named = types.get(name)
    if (named !== undefined && nameOf(named) === 'simpleType') return simpleTypeCheck(named)
    if (named !== undefined) return null
    return builtins[name] ?? (() => true)
  }

  const simpleTypeCheck = (st: XmlElement): TextCheck => {
    const restriction = xsChildren(st, 'restriction')[0]
    if (restriction === undefined) return () => true
    const base = textCheckOfType(restriction.getAttribute('base') ?? 'string') ?? (() => true)
    const facets: TextCheck[] = [base]
    const enums = xsChildren(restriction, 'enumeration').map((e) => e.getAttribute('value') ?? '')
    if (enums.length > 0) facets.push((v) => enums.includes(v.trim()))
    for (const p of xsChildren(restriction, 'pattern')) {
      const re = compileUserRegex(p.getAttribute('value') ?? '', true)
      if (re instanceof RegexRejection) problems.push(`pattern ${JSON.stringify(p.getAttribute('value'))}: ${re.reason}`)
      else facets.push((v) => re.test(v))
    }
    const min = xsChildren(restriction, 'minLength')[0]?.getAttribute('value')
    const max = xsChildren(restriction, 'maxLength')[0]?.getAttribute('value')
    if (min !== undefined && min !== null) facets.push((v) => v.length >= Number(min))
    if (max !== undefined && max !== null) facets.push((v) => v.length <= Number(max))
    return (v) => facets.every((f) => f(v))
  }

  const complexTypeCheck = (ct: XmlElement): Check => {
    let content: XmlElement = ct
    let baseCheck: Check = ACCEPT
    let textCheck: TextCheck | null = null
    const simple = xsChildren(ct, 'simpleContent')[0]
    const complex = xsChildren(ct, 'complexContent')[0]
    const derivation = simple ?? complex
    if (derivation !== undefined) {
      const ext = xsChildren(derivation)[0]
      if (ext === undefined) return ACCEPT
      const base = ext.getAttribute('base') ?? ''
      if (simple !== undefined) textCheck = textCheckOfType(base) ?? (() => true)
      else if (types.has(localName(base)) && nameOf(ext) === 'extension') baseCheck = namedTypeCheck(localName(base))
      content = ext
      // an extension of a complex type appends particles: the base's own are not re-checked here
      if (complex !== undefined && nameOf(ext) === 'extension') baseCheck = ACCEPT
    }
    const required = xsChildren(content, 'attribute').filter((a) => a.getAttribute('use') === 'required').map((a) => localName(a.getAttribute('name') ?? a.getAttribute('ref') ?? ''))
    const group = childElements(content).find((c) => ['sequence', 'choice', 'all'].includes(nameOf(c)))
    const particles = group === undefined ? null : particleOf(group)
    const mixed = ct.getAttribute('mixed') === 'true'
    return (el) => {
      for (const attr of required) if (!hasAttribute(el, attr)) return false
      if (textCheck !== null) return textCheck(textOf(el))
      if (!mixed && particles !== null && textOf(el).trim() !== '') return false
      if (particles === null) return childElements(el).length === 0 && baseCheck(el)
      const children = childElements(el)
      const end = particles(children, 0)
      return end.includes(children.length) && baseCheck(el)
    }
  }

  const namedTypeCheck = (name: string): Check => {
    const cached = typeChecks.get(name)
    if (cached !== undefined) return cached
    const def = types.get(name) as XmlElement
    let compiled: Check | null = null
    const lazy: Check = (el) => (compiled ??= nameOf(def) === 'simpleType' ? textElement(simpleTypeCheck(def)) : complexTypeCheck(def))(el)
    typeChecks.set(name, lazy)
    return lazy
  }

  /** The check of an element declaration's content (by type, inline type, or ref). */
  const declCheck = (decl: XmlElement): Check => {
    const type = decl.getAttribute('type')
    if (type !== null && type !== '') {
      const name = localName(type)
      if (types.has(name)) return namedTypeCheck(name)
      return textElement(builtins[name] ?? (() => true))
    }
    const inline = childElements(decl).find((c) => nameOf(c) === 'complexType' || nameOf(c) === 'simpleType')
    if (inline === undefined) return ACCEPT
    return nameOf(inline) === 'simpleType' ? textElement(simpleTypeCheck(inline)) : complexTypeCheck(inline)
  }

  const globalCheck = (name: string): Check => {
    const cached = elementChecks.get(name)
    if (cached !== undefined) return cached
    let compiled: Check | null = null
    const lazy: Check = (el) => (compiled ??= declCheck(decls.get(name) as XmlElement))(el)
    elementChecks.set(name, lazy)
    return lazy
  }

  /** A particle: from position i, every position the children can be consumed up to. */
  type Particle = (children: XmlElement[], i: number) => number[]

  const occurs = (p: XmlElement, one: Particle): Particle => {
    const min = Number(p.getAttribute('minOccurs') ?? '1')
    const rawMax = p.getAttribute('maxOccurs') ?? '1'
    const max = rawMax === 'unbounded' ? Infinity : Number(rawMax)
    return (children, start) => {
      const out = new Set<number>()
      let frontier = new Set([start])
      if (min === 0) out.add(start)
      for (let n = 1; n <= max && frontier.size > 0; n++) {
        const next = new Set<number>()
        for (const i of frontier) for (const j of one(children, i)) if (j > i || n === 1) next.add(j)
        if (n >= min) for (const j of next) out.add(j)
        frontier = next
        if (n > children.length + 1) break
      }
      return [...out]
    }
  }

  const particleOf = (p: XmlElement): Particle => {
    switch (nameOf(p)) {
      case 'element': {
        const ref = p.getAttribute('ref')
        const name = ref !== null && ref !== '' ? localName(ref) : (p.getAttribute('name') ?? '')
        const check = ref !== null && ref !== '' ? (decls.has(name) ? globalCheck(name) : ACCEPT) : declCheck(p)
        return occurs(p, (children, i) => {
          const child = children[i]
          return child !== undefined && nameOf(child) === name && check(child) ? [i + 1] : []
        })
      }
      case 'sequence': {
        const parts = childElements(p).map(particleOf)
        return occurs(p, (children, i) => parts.reduce<number[]>((starts, part) => [...new Set(starts.flatMap((s) => part(children, s)))], [i]))
      }
      case 'choice': {
        const parts = childElements(p).map(particleOf)
        return occurs(p, (children, i) => [...new Set(parts.flatMap((part) => part(children, i)))])
      }
      case 'all': {
        const members = childElements(p).map((e) => ({ name: localName(e.getAttribute('ref') ?? e.getAttribute('name') ?? ''), optional: e.getAttribute('minOccurs') === '0', check: declCheck(e) }))
        return (children, i) => {
          const seen = new Set<string>()
          let j = i
          for (; j < children.length; j++) {
            const child = children[j] as XmlElement
            const member = members.find((m) => m.name === nameOf(child))
            if (member === undefined || seen.has(member.name) || !member.check(child)) break
            seen.add(member.name)
          }
          return members.every((m) => m.optional || seen.has(m.name)) ? [j] : []
        }
      }
      default:
        // any, group: anything from here to the end
        return (children, i) => Array.from({ length: children.length - i + 1 }, (_, k) => i + k)
    }
  }

  // Compile every global element now, so that bad patterns are reported at load.
  for (const name of decls.keys()) declCheck(decls.get(name) as XmlElement)
  if (problems.length > 0) return { error: `has an unusable ${problems[0] ?? ''}` }

  return {
    validates: (node) => {
      const el = node.nodeType === ELEMENT_NODE ? (node as XmlElement) : childElements(node)[0]
      if (el === undefined) return false
      const name = nameOf(el)
      return decls.has(name) && globalCheck(name)(el)
    },
  }
}

function textElement (check: TextCheck): Check {
  return (el) => childElements(el).length === 0 && check(textOf(el))
}

function hasAttribute (el: XmlElement, local: string): boolean {
  for (let i = 0; i < el.attributes.length; i++) {
    const a = el.attributes.item(i)
    if (a !== null && (a.localName ?? a.name) === local) return true
  }
  return false
}
