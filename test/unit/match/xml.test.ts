import { describe, expect, it } from 'vitest'
import { canonicalXml, parseXml } from '../../../src/match/xml.js'

const canonical = (text: string): string => {
  const doc = parseXml(text)
  if (doc === null) throw new Error(`not XML: ${text}`)
  return canonicalXml(doc)
}

describe('parseXml', () => {
  it('returns null for malformed, empty or non-XML text', () => {
    expect(parseXml('<a>')).toBeNull()
    expect(parseXml('')).toBeNull()
    expect(parseXml('   ')).toBeNull()
    expect(parseXml('{"a": 1}')).toBeNull()
    expect(parseXml('<a></b>')).toBeNull()
  })

  it('parses well-formed XML', () => {
    expect(parseXml('<a b="1"><c/></a>')).not.toBeNull()
  })

  it('does not resolve external entities', () => {
    const doc = parseXml(
      '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>',
    )
    expect(doc === null || !(doc.documentElement?.textContent ?? '').includes('root:')).toBe(true)
  })
})

describe('canonicalXml', () => {
  it('ignores attribute order, whitespace-only text, comments and processing instructions', () => {
    expect(canonical('<a y="2" x="1">\n  <b/><!-- c --><?pi x?>\n</a>')).toBe(
      canonical('<a x="1" y="2"><b></b></a>'),
    )
  })

  it('trims text', () => {
    expect(canonical('<a>  x </a>')).toBe(canonical('<a>x</a>'))
    expect(canonical('<a>x y</a>')).not.toBe(canonical('<a>xy</a>'))
  })

  it('treats CDATA like text', () => {
    expect(canonical('<a><![CDATA[1 < 2]]></a>')).toBe(canonical('<a>1 &lt; 2</a>'))
  })

  it('compares namespace URIs, not prefixes, on elements and attributes', () => {
    expect(canonical('<p:a xmlns:p="urn:x" p:k="1"/>')).toBe(
      canonical('<q:a xmlns:q="urn:x" q:k="1"/>'),
    )
    expect(canonical('<p:a xmlns:p="urn:x"/>')).toBe(canonical('<a xmlns="urn:x"/>'))
    expect(canonical('<p:a xmlns:p="urn:x"/>')).not.toBe(canonical('<p:a xmlns:p="urn:y"/>'))
    expect(canonical('<a xmlns="urn:x"/>')).not.toBe(canonical('<a/>'))
  })

  it('keeps child order and attribute values significant', () => {
    expect(canonical('<a><b/><c/></a>')).not.toBe(canonical('<a><c/><b/></a>'))
    expect(canonical('<a k="1"/>')).not.toBe(canonical('<a k="2"/>'))
    expect(canonical('<a k="1"/>')).not.toBe(canonical('<a/>'))
  })
})
