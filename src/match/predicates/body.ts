import { jsonTextDepth, MAX_DEFINITION_DEPTH, type Matcher } from '../../dsl/index.js'
import { JsonPathScanner } from '../json-scan.js'
import type { JsonScanners } from '../json-scanners.js'
import { compileJsonPath, jsonEquals, jsonValueText, type JsonSelector } from '../json.js'
import type { FieldValue, MatchRequest } from '../request.js'
import { canonicalXml, compileXPath, parseXml, type CompiledXPath } from '../xml.js'
import {
  FieldPredicate,
  readAllFormFields,
  readBodyText,
  readFormField,
  type FieldReader,
} from './field.js'
import { shorten, type Predicate } from './predicate.js'
import { compileValueCheck } from './value-check.js'
import { compileXsd } from '../xsd.js'
import { compileJsonSchema } from '../json-schema.js'
import { XsdPredicate } from './xsd.js'

/** A body predicate, or why it cannot be built (reported against `matchingValue` or `key`). */
type BodyPredicateResult =
  Predicate | { error: string; at: 'key' | 'matchingValue' | 'matcherName' }

/** A body condition that is not a string comparison: JSON and XML structure. */
class StructuredBodyPredicate implements Predicate {
  readonly part = 'body' as const
  constructor(
    readonly key: string,
    readonly matcherName: string,
    readonly expected: string,
    readonly pointer: string,
    private readonly holds: (req: MatchRequest) => boolean,
  ) {}

  test(req: MatchRequest): boolean {
    try {
      return this.holds(req)
    } catch {
      // A recursive library (xpath, jsonpath-plus) on a hostile document: the matcher does not hold.
      return false
    }
  }

  actual(req: MatchRequest): string | null {
    return req.body === null || req.body.length === 0 ? null : shorten(req.text())
  }
}

/**
 * Compiles a body matcher (docs/architecture.md#matching): without `key` it applies to the whole
 * body; a `$` key is a JSONPath and a `/` key an XPath whose selections the matcher applies to; any
 * other key names a form field (urlencoded or multipart).
 *
 * @example
 * Within one compiled mock service, `scanners` gives every matcher on the same simple JSONPath
 * the same scanner, so that a request's body is scanned once for all of them (json-scanners.ts);
 * without it the predicate compiles its own.
 *
 * @example
 * compileBodyPredicate({ key: '$.type', matcherName: 'equals', matchingValue: 'order' }, '/dsl/requestDsl/body/0')
 */
export function compileBodyPredicate(
  m: Matcher,
  pointer: string,
  scanners?: JsonScanners,
): BodyPredicateResult {
  const key = m.key ?? ''
  const expected = m.matchingValue ?? ''
  const keyKind =
    key === '' ? 'whole' : key.startsWith('$') ? 'jsonpath' : key.startsWith('/') ? 'xpath' : 'form'

  const namespaces = namespaceMap(m)
  let keySelector: JsonSelector | null = null
  let keyXPath: CompiledXPath | null = null
  if (keyKind === 'jsonpath') {
    try {
      keySelector = compileJsonPath(key)
    } catch (err) {
      return { error: `is not a valid JSONPath: ${messageOf(err)}`, at: 'key' }
    }
  } else if (keyKind === 'xpath') {
    try {
      keyXPath = compileXPath(key, namespaces)
    } catch (err) {
      return { error: `is not a valid XPath: ${messageOf(err)}`, at: 'key' }
    }
  }

  switch (m.matcherName) {
    case 'matches_json': {
      if (keyKind === 'xpath' || keyKind === 'form') {
        return {
          error: 'matches_json needs a JSON body: use no key or a JSONPath key',
          at: 'matcherName',
        }
      }
      let selector: JsonSelector
      try {
        selector = compileJsonPath(expected)
      } catch (err) {
        return { error: `is not a valid JSONPath: ${messageOf(err)}`, at: 'matchingValue' }
      }
      const roots = keySelector
      const optional = m.optional === true
      return structured(m, pointer, (req) => {
        // With a key, the item is what the key selects: `optional` also passes when it selects nothing.
        if (!req.hasJson()) return optional && (roots !== null || isEmpty(req))
        const json = req.json()
        if (roots === null) return selector(json).length > 0
        const selected = roots(json)
        if (selected.length === 0) return optional
        for (let i = 0; i < selected.length; i++) if (selector(selected[i]).length > 0) return true
        return false
      })
    }
    case 'equals_json': {
      if (keyKind === 'xpath' || keyKind === 'form') {
        return {
          error: 'equals_json needs a JSON body: use no key or a JSONPath key',
          at: 'matcherName',
        }
      }
      let wanted: unknown
      // The semantic comparison recurses as deep as the expected value: bound it at load.
      if (jsonTextDepth(expected) > MAX_DEFINITION_DEPTH) {
        return { error: `nests deeper than ${MAX_DEFINITION_DEPTH} levels`, at: 'matchingValue' }
      }
      try {
        wanted = JSON.parse(expected)
      } catch (err) {
        return { error: `must be JSON: ${messageOf(err)}`, at: 'matchingValue' }
      }
      const roots = keySelector
      const optional = m.optional === true
      const flags =
        m.ignoreArrayOrder === true || m.ignoreExtraElements === true
          ? {
              ignoreArrayOrder: m.ignoreArrayOrder === true,
              ignoreExtraElements: m.ignoreExtraElements === true,
            }
          : null
      return structured(m, pointer, (req) => {
        if (!req.hasJson()) return optional && (roots !== null || isEmpty(req))
        if (roots === null) return jsonEquals(wanted, req.json(), flags)
        const selected = roots(req.json())
        if (selected.length === 0) return optional
        for (let i = 0; i < selected.length; i++) {
          if (jsonEquals(wanted, selected[i], flags)) return true
        }
        return false
      })
    }
    case 'matches_json_schema': {
      if (keyKind === 'xpath' || keyKind === 'form') {
        return {
          error: 'matches_json_schema needs a JSON body: use no key or a JSONPath key',
          at: 'matcherName',
        }
      }
      const validate = compileJsonSchema(expected)
      if ('error' in validate) return { error: validate.error, at: 'matchingValue' }
      const roots = keySelector
      const optional = m.optional === true
      return structured(m, pointer, (req) => {
        if (!req.hasJson()) return optional && (roots !== null || isEmpty(req))
        if (roots === null) return validate(req.json())
        const selected = roots(req.json())
        if (selected.length === 0) return optional
        for (let i = 0; i < selected.length; i++) if (validate(selected[i])) return true
        return false
      })
    }
    case 'equals_xml': {
      if (keyKind === 'jsonpath' || keyKind === 'form') {
        return {
          error: 'equals_xml needs an XML body: use no key or an XPath key',
          at: 'matcherName',
        }
      }
      const doc = parseXml(expected)
      if (doc === null) return { error: 'must be well-formed XML', at: 'matchingValue' }
      const wanted = canonicalXml(doc)
      const nodes = keyXPath
      const optional = m.optional === true
      return structured(m, pointer, (req) => {
        const xml = req.xml()
        if (xml === null) return optional && (nodes !== null || isEmpty(req))
        if (nodes === null) return canonicalXml(xml) === wanted
        const selected = nodes.nodes(xml)
        if (selected.length === 0) return optional
        for (const node of selected) if (canonicalXml(node) === wanted) return true
        return false
      })
    }
    case 'matches_xml': {
      if (keyKind === 'jsonpath' || keyKind === 'form') {
        return {
          error: 'matches_xml needs an XML body: use no key or an XPath key',
          at: 'matcherName',
        }
      }
      let xpath: CompiledXPath
      try {
        xpath = compileXPath(expected, namespaces)
      } catch (err) {
        return { error: `is not a valid XPath: ${messageOf(err)}`, at: 'matchingValue' }
      }
      const nodes = keyXPath
      const optional = m.optional === true
      return structured(m, pointer, (req) => {
        const xml = req.xml()
        if (xml === null) return optional && (nodes !== null || isEmpty(req))
        if (nodes === null) return xpath.holds(xml)
        const selected = nodes.nodes(xml)
        if (selected.length === 0) return optional
        for (const node of selected) if (xpath.holds(node)) return true
        return false
      })
    }
    // --- product DSL compatibility ---
    case 'matches_xml_schema': {
      if (keyKind === 'jsonpath' || keyKind === 'form') {
        return {
          error: 'matches_xml_schema needs an XML body: use no key or an XPath key',
          at: 'matcherName',
        }
      }
      const schema = compileXsd(expected)
      if ('error' in schema) return { error: schema.error, at: 'matchingValue' }
      return new XsdPredicate(key, expected, pointer, schema, keyXPath, m.optional === true)
    }
    case 'matches_xml_cdata': {
      let holder: CompiledXPath
      let inner: CompiledXPath
      try {
        holder = compileXPath(m.cdataXpath ?? '', namespaces)
      } catch (err) {
        return { error: `cdataXpath is not a valid XPath: ${messageOf(err)}`, at: 'matcherName' }
      }
      try {
        inner = compileXPath(expected, namespaces)
      } catch (err) {
        return { error: `is not a valid XPath: ${messageOf(err)}`, at: 'matchingValue' }
      }
      const optional = m.optional === true
      return structured(m, pointer, (req) => {
        const xml = req.xml()
        if (xml === null) return optional && isEmpty(req)
        // The CDATA text is request data: it can only be parsed here, once per holder element.
        const holders = holder.values(xml)
        if (holders.length === 0) return optional
        for (const text of holders) {
          const embedded = parseXml(text)
          if (embedded !== null && inner.holds(embedded)) return true
        }
        return false
      })
    }
    case 'equals_url':
      return { error: 'equals_url applies only to the url', at: 'matcherName' }
    case 'absent':
    case 'equals':
    case 'equals_insensitive':
    case 'contains':
    case 'before_date':
    case 'after_date':
    case 'equals_date':
    case 'matches':
    case 'matches_url':
    case 'not_matches':
      break
  }

  const reader = readerFor(keyKind, key, keySelector, keyXPath, scanners)
  const absent = m.matcherName === 'absent'
  // `absent` without a key may name the form field in matchingValue (as for headers).
  const fieldKey = absent && key === '' && expected !== '' ? expected : key
  const fieldReader = absent && key === '' && expected !== '' ? readFormField : reader
  if (absent) {
    return new FieldPredicate(
      'body',
      fieldKey,
      'absent',
      expected,
      pointer,
      fieldReader,
      () => true,
      {
        absent: true,
        optional: false,
        negated: false,
      },
    )
  }
  const compiled = compileValueCheck(m)
  if ('error' in compiled) return { error: compiled.error, at: 'matchingValue' }
  const every = m.allParts === true
  return new FieldPredicate(
    'body',
    every ? '*' : key,
    m.matcherName,
    expected,
    pointer,
    every ? readAllFormFields : reader,
    compiled.check,
    { absent: false, optional: m.optional === true, negated: compiled.negated, every },
  )
}

function readerFor(
  kind: 'whole' | 'jsonpath' | 'xpath' | 'form',
  key: string,
  selector: JsonSelector | null,
  xpath: CompiledXPath | null,
  scanners: JsonScanners | undefined,
): FieldReader {
  if (kind === 'whole') return readBodyText
  if (kind === 'form') return readFormField
  if (selector !== null) {
    // A simple path (`$.a.b`, `$.items[0]`) is read by scanning the body, not by parsing it.
    const scanner = scanners !== undefined ? scanners.get(key) : JsonPathScanner.compile(key)
    if (scanner !== null) return (req) => req.jsonText(scanner)
    return (req) => {
      if (!req.hasJson()) return undefined
      const values = selector(req.json())
      return values.length === 0 ? undefined : textsOf(values)
    }
  }
  const compiled = xpath as CompiledXPath
  return (req) => {
    const xml = req.xml()
    if (xml === null) return undefined
    const values = compiled.values(xml)
    return values.length === 0 ? undefined : values
  }
}

function textsOf(values: unknown[]): FieldValue | undefined {
  if (values.length === 1) return jsonValueText(values[0])
  const texts: string[] = []
  for (const value of values) {
    const text = jsonValueText(value)
    if (text !== undefined) texts.push(text)
  }
  return texts.length === 0 ? undefined : texts
}

function structured(m: Matcher, pointer: string, holds: (req: MatchRequest) => boolean): Predicate {
  return new StructuredBodyPredicate(
    m.key ?? '',
    m.matcherName,
    m.matchingValue ?? '',
    pointer,
    holds,
  )
}

function isEmpty(req: MatchRequest): boolean {
  return req.body === null || req.body.length === 0
}

/** The matcher's `namespaces` as the prefix map XPath evaluation takes, or undefined without any. */
function namespaceMap(m: Matcher): Record<string, string> | undefined {
  if (m.namespaces === undefined || m.namespaces.length === 0) return undefined
  const map: Record<string, string> = {}
  for (const n of m.namespaces) map[n.prefix] = n.uri
  return map
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
