import { describe, expect, it } from 'vitest'
import { canonicalXml, compileXPath, parseXml } from '../../../src/match/xml.js'

// The depth bound on XML bodies counts elements only, and XPath answers nothing, never a throw,
// for an expression that fails on a document.
const nested = (depth: number, inner = ''): string =>
  '<a>'.repeat(depth) + inner + '</a>'.repeat(depth)
const padding = ' '.repeat(200)

describe('parseXml with a depth bound', () => {
  it('refuses elements nested deeper than the bound', () => {
    expect(parseXml(nested(6) + padding, 5)).toBeNull()
    expect(parseXml(nested(5) + padding, 5)).not.toBeNull()
  })

  it('does not count comments, CDATA, processing instructions, declarations or empty elements', () => {
    const inner = '<!-- <a><a><a> --><![CDATA[<a><a><a>]]><?pi <a><a>?><b/><c/><d/>'
    const text = `<?xml version="1.0"?><!DOCTYPE a>${nested(4, inner)}${padding}`
    expect(parseXml(text, 5)).not.toBeNull()
  })

  it('leaves unterminated markup to the parser, which refuses it', () => {
    expect(parseXml(`<a><!-- never closed${padding}`, 2)).toBeNull()
    expect(parseXml(`<a><b${padding}`, 2)).toBeNull()
    expect(parseXml('   ')).toBeNull()
  })
})

describe('compileXPath', () => {
  const doc = parseXml('<order xmlns:p="urn:p"><id>7</id><p:tag>x</p:tag></order>')
  if (doc === null) throw new Error('test document does not parse')

  it('answers scalar expressions as one value and as a truth', () => {
    expect(compileXPath('count(/order/id)').values(doc)).toEqual(['1'])
    expect(compileXPath('count(/order/id) = 2').holds(doc)).toBe(false)
    expect(compileXPath('count(/order/id)').nodes(doc)).toEqual([])
  })

  it('answers nothing for an expression that fails on the document', () => {
    const unbound = compileXPath('/order/q:tag')
    expect(unbound.values(doc)).toEqual([])
    expect(unbound.holds(doc)).toBe(false)
    expect(unbound.nodes(doc)).toEqual([])
    expect(compileXPath('/order/q:tag', { q: 'urn:p' }).values(doc)).toEqual(['x'])
  })
})

describe('canonicalXml', () => {
  it('compares by namespace URI, not prefix', () => {
    const a = parseXml('<x:a xmlns:x="urn:n" x:k="1"><x:b>t</x:b></x:a>')
    const b = parseXml('<y:a xmlns:y="urn:n" y:k="1"><y:b> t </y:b></y:a>')
    if (a === null || b === null) throw new Error('test documents do not parse')
    expect(canonicalXml(a)).toBe(canonicalXml(b))
  })
})
