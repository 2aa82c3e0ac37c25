import { describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onPart, matchName, matcherOf, request, thrown } from '../fixtures/match.js'
import { failureInWords, preparePredicates, XSD_LIMITS } from '../../../src/match/index.js'

const ns = [{ prefix: 'p', uri: 'urn:orders' }]
const order = (id: string, uri = 'urn:orders'): string =>
  `<o:order xmlns:o="${uri}"><o:id>${id}</o:id></o:order>`

describe('namespaces on XPath keys', () => {
  it('bind the matcher prefixes, whatever prefix the request uses', () => {
    const m = onPart('body', {
      key: '/p:order/p:id',
      matcherName: 'equals',
      matchingValue: '7',
      namespaces: ns,
    })
    expect(matchName(m, request('POST', '/', {}, order('7')))).toBe('it')
    expect(matchName(m, request('POST', '/', {}, order('8')))).toBeUndefined()
    expect(matchName(m, request('POST', '/', {}, order('7', 'urn:other')))).toBeUndefined()
  })
})

// Types, restrictions (facets the old subset could not check: totalDigits, minInclusive,
// fractionDigits), sequences, attributes with types and defaults, a key reference.
const xsd = `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:simpleType name="Sku"><xs:restriction base="xs:string"><xs:pattern value="[A-Z]{3}-\\d{4}"/></xs:restriction></xs:simpleType>
  <xs:simpleType name="Money"><xs:restriction base="xs:decimal"><xs:totalDigits value="8"/><xs:fractionDigits value="2"/><xs:minInclusive value="0"/></xs:restriction></xs:simpleType>
  <xs:element name="order"><xs:complexType><xs:sequence>
    <xs:element name="id" type="xs:int"/>
    <xs:element name="placed" type="xs:dateTime"/>
    <xs:element name="line" maxOccurs="unbounded"><xs:complexType><xs:sequence>
      <xs:element name="sku" type="Sku"/><xs:element name="price" type="Money"/>
    </xs:sequence><xs:attribute name="qty" type="xs:positiveInteger" use="required"/></xs:complexType></xs:element>
  </xs:sequence>
  <xs:attribute name="currency" use="required"><xs:simpleType><xs:restriction base="xs:string"><xs:enumeration value="EUR"/><xs:enumeration value="USD"/></xs:restriction></xs:simpleType></xs:attribute>
  </xs:complexType>
  <xs:unique name="oneLinePerSku"><xs:selector xpath="line"/><xs:field xpath="sku"/></xs:unique>
  </xs:element>
</xs:schema>`

const line = (sku = 'ABC-1234', price = '12.50', qty = '2'): string =>
  `<line qty="${qty}"><sku>${sku}</sku><price>${price}</price></line>`
const purchase = (
  inner = line(),
  attrs = ' currency="EUR"',
  placed = '2024-05-01T10:00:00Z',
): string => `<order${attrs}><id>7</id><placed>${placed}</placed>${inner}</order>`

/** Prepares (validates asynchronously, as the runtime does), then matches. */
async function matchPrepared(
  m: ReturnType<typeof onPart>,
  req: ReturnType<typeof request>,
): Promise<string | undefined> {
  await preparePredicates(req, m.prepared ?? [])
  return matchName(m, req)
}

describe('matches_xml_schema: libxml2', () => {
  const m = onPart('body', { matcherName: 'matches_xml_schema', matchingValue: xsd })

  it('holds for a body valid against the XSD', async () => {
    expect(m.prepared).toHaveLength(1)
    expect(await matchPrepared(m, request('POST', '/', {}, purchase()))).toBe('it')
    expect(
      await matchPrepared(
        m,
        request('POST', '/', {}, purchase(line() + line('XYZ-0001', '0', '1'))),
      ),
    ).toBe('it')
  })

  it('fails on types, facets, order, enumerations, attributes and identity constraints', async () => {
    const invalid = [
      purchase(line('abc-1234')), // pattern
      purchase(line('ABC-1234', '12.505')), // fractionDigits
      purchase(line('ABC-1234', '-1')), // minInclusive
      purchase(line('ABC-1234', '123456789')), // totalDigits
      purchase(line('ABC-1234', '1', '0')), // positiveInteger attribute
      purchase(line(), ' currency="GBP"'), // enumeration on an attribute
      purchase(line(), ''), // required attribute
      purchase(line(), ' currency="EUR"', 'yesterday'), // dateTime
      purchase(''), // minOccurs of line
      purchase(line() + line()), // xs:unique
      '<order currency="EUR"><placed>2024-05-01T10:00:00Z</placed><id>7</id></order>', // sequence order
      '<other/>',
      'not xml',
      '<order',
    ]
    const results = await Promise.all(
      invalid.map((body) => matchPrepared(m, request('POST', '/', {}, body))),
    )
    results.forEach((r, i) => expect(r, invalid[i]).toBeUndefined())
  })

  it('does not match a request that was not prepared, and says why in the diagnosis', async () => {
    expect(matchName(m, request('POST', '/', {}, purchase()))).toBeUndefined()
    const req = request('POST', '/', {}, purchase(line('ABC-1234', '1', '0')))
    await preparePredicates(req, m.prepared ?? [])
    const words = (m.diagnose(req, 1)[0]?.failed ?? []).map(failureInWords)
    expect(words[0]).toMatch(
      /^Request body does not validate against the XML schema: .*qty.*positiveInteger/,
    )
  })

  it('validates each node an XPath key selects, with namespaces', async () => {
    const wrapped = onPart('body', {
      key: '/e:envelope/e:body/*',
      matcherName: 'matches_xml_schema',
      matchingValue: xsd,
      namespaces: [{ prefix: 'e', uri: 'urn:env' }],
    })
    const env = (inner: string): string =>
      `<s:envelope xmlns:s="urn:env"><s:body>${inner}</s:body></s:envelope>`
    expect(await matchPrepared(wrapped, request('POST', '/', {}, env(purchase())))).toBe('it')
    expect(
      await matchPrepared(wrapped, request('POST', '/', {}, env(purchase(line('bad'))))),
    ).toBeUndefined()
  })

  it('refuses at load a schema libxml2 cannot compile, naming the field', () => {
    for (const bad of [
      '<a/>',
      'not a schema',
      '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="a" type="xs:nope"/></xs:schema>',
      '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="a"><xs:complexType><xs:sequence><xs:element ref="missing"/></xs:sequence></xs:complexType></xs:element></xs:schema>',
    ]) {
      const err = thrown(() =>
        onPart('body', { matcherName: 'matches_xml_schema', matchingValue: bad }),
      )
      expect(err.code, bad).toBe('ERR_DSL_INVALID')
      expect(JSON.stringify(err.details), bad).toContain('/dsl/requestDsl/body/0/matchingValue')
      expect(JSON.stringify(err.details), bad).toContain('is not a usable XML Schema')
    }
  })

  it('never reads an imported or included schema from disk or the network', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'xsd-'))
    writeFileSync(
      join(dir, 'part.xsd'),
      '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="b"/></xs:schema>',
    )
    let hits = 0
    const server = createServer((_req, res) => {
      hits++
      res.end('<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"/>')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const port = (server.address() as AddressInfo).port
      const including = (location: string): string =>
        `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:include schemaLocation="${location}"/><xs:element name="a"/></xs:schema>`
      for (const location of [
        join(dir, 'part.xsd'),
        `file://${join(dir, 'part.xsd')}`,
        `http://127.0.0.1:${port}/part.xsd`,
      ]) {
        const err = thrown(() =>
          onPart('body', { matcherName: 'matches_xml_schema', matchingValue: including(location) }),
        )
        expect(err.code, location).toBe('ERR_DSL_INVALID')
      }
      expect(hits).toBe(0)
    } finally {
      server.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('does not validate a body over the size bound (the matcher fails, quickly)', async () => {
    const big = purchase(line().repeat(Math.ceil((XSD_LIMITS.maxBodyBytes + 1) / line().length)))
    expect(big.length).toBeGreaterThan(XSD_LIMITS.maxBodyBytes)
    const req = request('POST', '/', {}, big)
    const started = Date.now()
    expect(await matchPrepared(m, req)).toBeUndefined()
    // a bound on hanging, far above the usual time, not a speed figure (the test machine is shared); the diagnosis below is what shows the body was not validated
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(m.diagnose(req, 1)[0]?.failed[0]?.actual).toMatch(/not validated: larger than \d+ bytes/)
  })

  it('validates a schema shared by several matchers once per request, and skips bodies that are not XML', async () => {
    const two = matcherOf([
      {
        name: 'a',
        dsl: {
          requestDsl: {
            path: '/a',
            body: [{ matcherName: 'matches_xml_schema', matchingValue: xsd }],
          },
          responseDsl: { text: 'a' },
        },
      },
      {
        name: 'b',
        dsl: {
          requestDsl: {
            path: '/b',
            body: [{ matcherName: 'matches_xml_schema', matchingValue: xsd }],
          },
          responseDsl: { text: 'b' },
        },
      },
    ])
    const req = request('POST', '/b', {}, purchase())
    await preparePredicates(req, two.prepared ?? [])
    expect(matchName(two, req)).toBe('b')
    const json = request('POST', '/b', {}, '{"order": 1}')
    await preparePredicates(json, two.prepared ?? [])
    expect(matchName(two, json)).toBeUndefined()
    expect(two.diagnose(json, 1)[0]?.failed[0]?.actual).toBe('not XML')
  })
})

describe('matches_xml_cdata', () => {
  const m = onPart('body', {
    matcherName: 'matches_xml_cdata',
    cdataXpath: '/envelope/payload',
    matchingValue: "/inner[code='A1']",
  })
  it('applies the XPath to the XML inside the CDATA section', () => {
    expect(
      matchName(
        m,
        request(
          'POST',
          '/',
          {},
          '<envelope><payload><![CDATA[<inner><code>A1</code></inner>]]></payload></envelope>',
        ),
      ),
    ).toBe('it')
    expect(
      matchName(
        m,
        request(
          'POST',
          '/',
          {},
          '<envelope><payload><![CDATA[<inner><code>B2</code></inner>]]></payload></envelope>',
        ),
      ),
    ).toBeUndefined()
    expect(
      matchName(
        m,
        request('POST', '/', {}, '<envelope><payload><![CDATA[not xml]]></payload></envelope>'),
      ),
    ).toBeUndefined()
    expect(matchName(m, request('POST', '/', {}, '<envelope/>'))).toBeUndefined()
  })
})
