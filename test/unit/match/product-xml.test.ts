import { describe, expect, it } from 'vitest'
import { onPart, matchName, request } from '../fixtures/match.js'
import { compileXsd } from '../../../src/match/xsd.js'
import { parseXml } from '../../../src/match/index.js'

const ns = [{ prefix: 'p', uri: 'urn:orders' }]
const order = (id: string, uri = 'urn:orders'): string => `<o:order xmlns:o="${uri}"><o:id>${id}</o:id></o:order>`

describe('namespaces on XPath keys (issue 7)', () => {
  it('bind the matcher prefixes, whatever prefix the request uses', () => {
    const m = onPart('body', { key: '/p:order/p:id', matcherName: 'equals', matchingValue: '7', namespaces: ns })
    expect(matchName(m, request('POST', '/', {}, order('7')))).toBe('it')
    expect(matchName(m, request('POST', '/', {}, order('8')))).toBeUndefined()
    expect(matchName(m, request('POST', '/', {}, order('7', 'urn:other')))).toBeUndefined()
  })
})

const xsd = `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="order"><xs:complexType><xs:sequence>
    <xs:element name="id" type="xs:int"/>
    <xs:element name="state"><xs:simpleType><xs:restriction base="xs:string">
      <xs:enumeration value="new"/><xs:enumeration value="paid"/></xs:restriction></xs:simpleType></xs:element>
    <xs:element name="line" type="Line" minOccurs="0" maxOccurs="unbounded"/>
  </xs:sequence><xs:attribute name="ref" use="required"/></xs:complexType></xs:element>
  <xs:complexType name="Line"><xs:all><xs:element name="sku" type="xs:string"/><xs:element name="qty" type="xs:positiveInteger" minOccurs="0"/></xs:all></xs:complexType>
</xs:schema>`

describe('matches_xml_schema (issue 7)', () => {
  const m = onPart('body', { matcherName: 'matches_xml_schema', matchingValue: xsd })
  const body = (inner: string, attrs = ' ref="r1"'): string => `<order${attrs}>${inner}</order>`

  it('holds for a body valid against the XSD', () => {
    expect(matchName(m, request('POST', '/', {}, body('<id>1</id><state>new</state>')))).toBe('it')
    expect(matchName(m, request('POST', '/', {}, body('<id>1</id><state>paid</state><line><qty>2</qty><sku>a</sku></line><line><sku>b</sku></line>')))).toBe('it')
  })

  it('fails on a wrong type, order, enumeration, missing element or required attribute', () => {
    for (const invalid of [
      body('<id>x</id><state>new</state>'),
      body('<state>new</state><id>1</id>'),
      body('<id>1</id><state>lost</state>'),
      body('<id>1</id>'),
      body('<id>1</id><state>new</state>', ''),
      body('<id>1</id><state>new</state><line><qty>2</qty></line>'),
      '<other/>',
      'not xml',
    ]) expect(matchName(m, request('POST', '/', {}, invalid)), invalid).toBeUndefined()
  })

  it('refuses a matchingValue that is not a schema, at load', () => {
    expect(compileXsd('<a/>')).toEqual({ error: 'must be an XML Schema (an xs:schema document)' })
    const ok = compileXsd(xsd)
    expect('validates' in ok && ok.validates(parseXml(body('<id>2</id><state>new</state>')) as never)).toBe(true)
  })
})

describe('matches_xml_cdata (issue 7)', () => {
  const m = onPart('body', { matcherName: 'matches_xml_cdata', cdataXpath: '/envelope/payload', matchingValue: "/inner[code='A1']" })
  it('applies the XPath to the XML inside the CDATA section', () => {
    expect(matchName(m, request('POST', '/', {}, '<envelope><payload><![CDATA[<inner><code>A1</code></inner>]]></payload></envelope>'))).toBe('it')
    expect(matchName(m, request('POST', '/', {}, '<envelope><payload><![CDATA[<inner><code>B2</code></inner>]]></payload></envelope>'))).toBeUndefined()
    expect(matchName(m, request('POST', '/', {}, '<envelope><payload><![CDATA[not xml]]></payload></envelope>'))).toBeUndefined()
    expect(matchName(m, request('POST', '/', {}, '<envelope/>'))).toBeUndefined()
  })
})
