import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { JsonPathScanner, NOT_FOUND, NOT_JSON } from '../../../src/match/json-scan.js'
import { JsonScanners, MAX_SHARED_SCANNERS } from '../../../src/match/json-scanners.js'
import { jsonValueText, simplePathSegments, walkSegments } from '../../../src/match/json.js'
import { MatchRequest } from '../../../src/match/request.js'
import { seededRandom } from '../../helpers/seeded-random.js'

/** How many comparisons of a generated-body test ended in each outcome. */
interface Outcomes {
  notJson: number
  notFound: number
  found: number
}

const newOutcomes = (): Outcomes => ({ notJson: 0, notFound: 0, found: 0 })

/** Counts the outcome `expected`: a generated-body test must reach each one often. */
function tally(outcomes: Outcomes, expected: string | typeof NOT_JSON | typeof NOT_FOUND): void {
  if (expected === NOT_JSON) outcomes.notJson++
  else if (expected === NOT_FOUND) outcomes.notFound++
  else outcomes.found++
}

describe('JsonScanners', () => {
  it('gives one scanner per expression, and null for paths the scanner cannot read', () => {
    const scanners = new JsonScanners()
    const a = scanners.get('$.shipping.kind')
    expect(a).toBeInstanceOf(JsonPathScanner)
    expect(scanners.get('$.shipping.kind')).toBe(a)
    expect(scanners.get('$.shipping.address')).not.toBe(a)
    expect(scanners.get('$..kind')).toBeNull()
    expect(scanners.get('$..kind')).toBeNull()
    expect(scanners.size).toBe(3)
    expect(MAX_SHARED_SCANNERS).toBe(10_000)
  })

  it('compiles fresh scanners beyond its cap, which read the same', () => {
    const scanners = new JsonScanners(2)
    const a = scanners.get('$.a')
    const b = scanners.get('$.b')
    const c = scanners.get('$.c') as JsonPathScanner
    expect(scanners.size).toBe(2)
    expect(scanners.get('$.a')).toBe(a)
    expect(scanners.get('$.b')).toBe(b)
    expect(scanners.get('$.c')).not.toBe(c)
    expect(c.scan(Buffer.from('{"c":"x"}'))).toBe('x')
  })

  it("lets two readers of one expression share a request's single scan", () => {
    const scanners = new JsonScanners()
    const first = scanners.get('$.order.id') as JsonPathScanner
    const second = scanners.get('$.order.id') as JsonPathScanner
    const req = new MatchRequest('POST', '/', {}, Buffer.from('{"order":{"id":"o-1"}}'))
    let scans = 0
    const scan = first.scan.bind(first)
    first.scan = (body) => {
      scans++
      return scan(body)
    }
    expect(req.jsonText(first)).toBe('o-1')
    expect(req.jsonText(second)).toBe('o-1')
    expect(scans).toBe(1)
  })
})

/** What the scanner must answer: JSON.parse of the decoded body, then the direct walk. */
function reference(body: Buffer, path: string): string | typeof NOT_FOUND | typeof NOT_JSON {
  let json: unknown
  try {
    json = JSON.parse(body.toString('utf8'))
  } catch {
    return NOT_JSON
  }
  const value = walkSegments(json, simplePathSegments(path) ?? [])
  return value === undefined ? NOT_FOUND : (jsonValueText(value) ?? NOT_FOUND)
}

function scan(body: string | Buffer, path: string): string | typeof NOT_FOUND | typeof NOT_JSON {
  const scanner = JsonPathScanner.compile(path)
  if (scanner === null) throw new Error(`not a simple path: ${path}`)
  return scanner.scan(typeof body === 'string' ? Buffer.from(body) : body)
}

describe('JsonPathScanner', () => {
  it.each([
    ['{"shipping":{"kind":"express"}}', '$.shipping.kind', 'express'],
    ['{"a":1,"b":{"c":[1,2,{"d":true}]}}', '$.b.c[2].d', 'true'],
    ['{"a":null}', '$.a', 'null'],
    ['{"a":1.50}', '$.a', '1.5'],
    ['{"a":1E+2}', '$.a', '100'],
    ['{"a":-0}', '$.a', '0'],
    ['{"a":1e400}', '$.a', 'null'],
    ['{"a":{"x" : [ 1 , 2 ] }}', '$.a', '{"x":[1,2]}'],
    ['{"a":[]}', '$.a', '[]'],
    ['{"a":{}}', '$.a', '{}'],
    ['{"a":"tab\\there \\u00e9"}', '$.a', 'tab\there é'],
    ['{"caf\\u00e9":"yes"}', '$["café"]', 'yes'],
    ['{"café":"yes"}', "$['café']", 'yes'],
    ['{"a.b":1}', "$['a.b']", '1'],
    ['[10,20,30]', '$[2]', '30'],
    ['  {"a":"x"}  \n', '$.a', 'x'],
  ])('reads %s at %s', (body, path, expected) => {
    expect(scan(body, path)).toBe(expected)
    expect(reference(Buffer.from(body), path)).toBe(expected)
  })

  it.each([
    ['{"a":1}', '$.b'],
    ['{"a":1}', '$.a.b'],
    ['{"a":[1]}', '$.a[1]'],
    ['{"a":{"0":1}}', '$.a[0]'],
    ['[1,2]', '$.a'],
    ['"text"', '$.a'],
    ['{"toString":1}', '$.valueOf'],
  ])('finds nothing in %s at %s', (body, path) => {
    expect(scan(body, path)).toBe(NOT_FOUND)
  })

  it('lets the last of repeated names win, as JSON.parse does', () => {
    expect(scan('{"a":1,"a":2}', '$.a')).toBe('2')
    expect(scan('{"a":{"b":1},"a":{"c":2}}', '$.a.b')).toBe(NOT_FOUND)
    expect(scan('{"a":{"c":2},"a":{"b":3}}', '$.a.b')).toBe('3')
    expect(scan('{"a":{"b":1,"b":[2]}}', '$.a.b')).toBe('[2]')
  })

  it.each([
    '',
    ' ',
    '{',
    '{"a":1,}',
    '[1,]',
    '{"a" 1}',
    '{a:1}',
    "{'a':1}",
    '{"a":01}',
    '{"a":1.}',
    '{"a":.5}',
    '{"a":-}',
    '{"a":1e}',
    '{"a":tru}',
    '{"a":NaN}',
    '{"a":"x\\q"}',
    '{"a":"\\u12G4"}',
    '{"a":"unterminated}',
    '{"a":1}x',
    '{"a":1}{}',
    '\uFEFF{"a":1}',
    '{"a":1 // c\n}',
    '{"a":"line\nbreak"}',
    '[1 2]',
    '{"a":1]',
    '[}',
  ])('says %j is not JSON', (body) => {
    expect(scan(body, '$.a')).toBe(NOT_JSON)
    expect(reference(Buffer.from(body), '$.a')).toBe(NOT_JSON)
  })

  it('decodes invalid UTF-8 inside strings as JSON.parse of the decoded text does', () => {
    const body = Buffer.concat([
      Buffer.from('{"a":"x'),
      Buffer.from([0xe2, 0x22, 0xff]),
      Buffer.from('","b":"y"}'),
    ])
    expect(scan(body, '$.a')).toBe(reference(body, '$.a'))
    expect(scan(body, '$.b')).toBe(reference(body, '$.b'))
  })

  it('handles nesting far deeper than its initial frame stack', () => {
    const depth = 5000
    const body = `${'['.repeat(depth)}"deep"${']'.repeat(depth)}`
    expect(scan(body, `$${'[0]'.repeat(depth)}`)).toBe('deep')
    expect(scan(`${'['.repeat(depth)}${']'.repeat(depth - 1)}`, '$[0]')).toBe(NOT_JSON)
    // Past its own depth bound it hands the body to JSON.parse, with the same answers.
    const deeper = 50_000
    expect(scan(`{"a":${'['.repeat(deeper)}1${']'.repeat(deeper)},"b":"x"}`, '$.b')).toBe('x')
    expect(scan(`{"a":${'['.repeat(deeper)}1${']'.repeat(deeper)},"b":}`, '$.b')).toBe(NOT_JSON)
  })

  it('reads through MatchRequest the same whether or not another matcher parsed the body first', () => {
    const scanner = JsonPathScanner.compile('$.order.id') as JsonPathScanner
    const body = Buffer.from('{"order":{"id":7}}')
    const scanned = new MatchRequest('POST', '/', {}, body)
    const parsed = new MatchRequest('POST', '/', {}, body)
    parsed.json()
    expect(scanned.jsonText(scanner)).toBe('7')
    expect(parsed.jsonText(scanner)).toBe('7')
    expect(new MatchRequest('POST', '/', {}, null).jsonText(scanner)).toBeUndefined()
    expect(
      new MatchRequest('POST', '/', {}, Buffer.from('{"order":')).jsonText(scanner),
    ).toBeUndefined()
  })

  it('answers each body with its own value when one scanner reads many in turn', () => {
    const scanner = JsonPathScanner.compile('$.kind') as JsonPathScanner
    const values = [
      'express',
      'express',
      'expresS',
      'express',
      '',
      'é',
      'è',
      'x'.repeat(64),
      'x'.repeat(64),
      `${'x'.repeat(63)}y`,
      'x'.repeat(65),
      'x'.repeat(65),
      'express',
    ]
    for (const value of values) {
      expect(scanner.scan(Buffer.from(JSON.stringify({ kind: value, other: 'express' })))).toBe(
        value,
      )
    }
    // A lone byte 0xE9 is invalid UTF-8, not the 'é' (U+00E9) read just before it.
    expect(scanner.scan(Buffer.from('{"kind":"é"}'))).toBe('é')
    const lone = Buffer.concat([Buffer.from('{"kind":"'), Buffer.from([0xe9]), Buffer.from('"}')])
    expect(scanner.scan(lone)).toBe('\uFFFD')
    expect(scanner.scan(Buffer.from('{"kind":"è"}'))).toBe('è')
    expect(scanner.scan(Buffer.from('{"kind":"e"}'))).toBe('e')
    // Invalid UTF-8 decodes as JSON.parse's input does, then the same bytes again.
    const invalid = Buffer.concat([
      Buffer.from('{"kind":"a'),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ])
    expect(scanner.scan(invalid)).toBe(reference(invalid, '$.kind'))
    expect(scanner.scan(invalid)).toBe('a\uFFFD')
    expect(scanner.scan(Buffer.from('{"kind":"a\\u00e9"}'))).toBe('aé')
    expect(scanner.scan(Buffer.from('{"kind":"a"'))).toBe(NOT_JSON)
    expect(scanner.scan(Buffer.from('{"kind":"a"}'))).toBe('a')
  })

  // A load test sends one body again and again: a scan of the same bytes as the last body
  // answers without reading them again (numberOf in json-scan.ts).
  describe('the same body again', () => {
    /** Counts the scans that read a body's bytes (the private one-pass reader). */
    function countReads(): { reads: () => number } {
      // `run` is private to TypeScript, an ordinary method to JavaScript.
      const reader = vi.spyOn(
        JsonPathScanner.prototype as unknown as { run: (body: Buffer) => unknown },
        'run',
      )
      onTestFinished(() => reader.mockRestore())
      return { reads: () => reader.mock.calls.length }
    }
    const order = (kind: string): Buffer =>
      Buffer.from(JSON.stringify({ customer: 'c-1042', shipping: { kind, address: '1 Main St' } }))

    it('reads the bytes once for the same body in new Buffers, by every scanner', () => {
      const kind = JsonPathScanner.compile('$.shipping.kind') as JsonPathScanner
      const customer = JsonPathScanner.compile('$.customer') as JsonPathScanner
      const { reads } = countReads()
      for (let i = 0; i < 5; i++) {
        expect(kind.scan(order('express'))).toBe('express')
        expect(customer.scan(order('express'))).toBe('c-1042')
      }
      expect(reads()).toBe(2)
    })

    it('reads a body of the same length that differs in one byte, and answers for it', () => {
      const kind = JsonPathScanner.compile('$.shipping.kind') as JsonPathScanner
      const { reads } = countReads()
      expect(kind.scan(order('express'))).toBe('express')
      expect(kind.scan(order('expresz'))).toBe('expresz')
      expect(kind.scan(order('express'))).toBe('express')
      expect(reads()).toBe(3)
    })

    it('reads a Buffer again when its bytes changed since its last scan', () => {
      const kind = JsonPathScanner.compile('$.shipping.kind') as JsonPathScanner
      const body = order('express')
      expect(kind.scan(body)).toBe('express')
      body[body.indexOf('express') + 6] = 0x7a
      expect(kind.scan(body)).toBe('expresz')
      body[body.length - 1] = 0x20
      expect(kind.scan(body)).toBe(NOT_JSON)
    })

    it('remembers no body over 64 KiB, and tells the bodies around one apart', () => {
      const kind = JsonPathScanner.compile('$.shipping.kind') as JsonPathScanner
      const long = Buffer.from(
        JSON.stringify({ padding: 'x'.repeat(70_000), shipping: { kind: 'long' } }),
      )
      const { reads } = countReads()
      expect(kind.scan(long)).toBe('long')
      expect(kind.scan(long)).toBe('long')
      expect(reads()).toBe(2)
      expect(kind.scan(Buffer.alloc(0))).toBe(NOT_JSON)
      expect(kind.scan(order('express'))).toBe('express')
      expect(kind.scan(Buffer.alloc(0))).toBe(NOT_JSON)
      expect(reads()).toBe(5)
    })
  })

  it('leaves paths other than member/index chains to the JSONPath engine', () => {
    expect(JsonPathScanner.compile('$..id')).toBeNull()
    expect(JsonPathScanner.compile('$.items[*].sku')).toBeNull()
    expect(JsonPathScanner.compile('$[?(@.a)]')).toBeNull()
  })

  it('agrees with JSON.parse on generated documents, paths and corruptions', () => {
    const random = seededRandom(20261122)
    const paths = [
      '$',
      '$.a',
      '$.b',
      '$.a.b',
      '$.a[0]',
      '$.a[1].c',
      '$[0]',
      '$[1].a',
      '$.c.a',
      '$["a"]["c"]',
    ]
    const outcomes = newOutcomes()
    for (let i = 0; i < 3000; i++) {
      const text = JSON.stringify(generate(random, 4), null, random() < 0.3 ? 1 : undefined)
      const bytes = corrupt(Buffer.from(text), random)
      for (const path of paths) {
        const expected = reference(bytes, path)
        expect(scan(bytes, path), `${bytes.toString('latin1')} at ${path}`).toBe(expected)
        tally(outcomes, expected)
      }
    }
    // The generator must reach every outcome often, or the comparison proves little.
    expect(outcomes.notJson).toBeGreaterThan(2000)
    expect(outcomes.notFound).toBeGreaterThan(2000)
    expect(outcomes.found).toBeGreaterThan(2000)
  })
  it('agrees with JSON.parse on near-miss values, invalid UTF-8, truncations and token soup', () => {
    const paths = ['$', '$.a', '$.a.b', '$.a[1]', '$[0]', '$.c', '$["é"]']
    const outcomes = newOutcomes()
    const check = (bytes: Buffer): void => {
      for (const path of paths) {
        const expected = reference(bytes, path)
        expect(scan(bytes, path), `${JSON.stringify(bytes.toString('latin1'))} at ${path}`).toBe(
          expected,
        )
        tally(outcomes, expected)
      }
    }
    for (const template of TEMPLATES) {
      for (const value of NEAR_MISSES) {
        const [before, after] = template.split('V') as [string, string]
        check(Buffer.concat([Buffer.from(before), value, Buffer.from(after)]))
      }
    }
    // Every prefix and a few suffixes of documents that use every token kind.
    for (const text of [
      '{"a":{"b":[1,-2.5e+3,"x\\u00e9\\n"],"é":true},"c":[null,false,{}],"a":{"b":0}}',
      ' [ {"a" : [ 1 , 2 ] } , "\\ud83d\\ude00" , -0.0E-0 ] ',
    ]) {
      const bytes = Buffer.from(text)
      for (let end = 0; end <= bytes.length; end++) check(bytes.subarray(0, end))
      for (const garbage of ['x', ',', '}', ']', ' ', '\u0000', '\uFEFF', '0', '"']) {
        check(Buffer.concat([bytes, Buffer.from(garbage)]))
        check(Buffer.concat([Buffer.from(garbage), bytes]))
      }
    }
    // Random sequences of tokens and stray bytes: mostly invalid in ways no list above thought of.
    const random = seededRandom(20261127)
    for (let i = 0; i < 6000; i++) {
      const parts: Buffer[] = []
      const wrap = random() < 0.5
      if (wrap) parts.push(Buffer.from('{"a":'))
      for (let n = Math.floor(random() * 10); n > 0; n--) {
        parts.push(SOUP[Math.floor(random() * SOUP.length)] as Buffer)
      }
      if (wrap) parts.push(Buffer.from('}'))
      check(Buffer.concat(parts))
    }
    // Nesting around the frame stack's growth (64) and past the scanner's own bound (4096).
    for (const depth of [63, 64, 65, 4095, 4096, 4097]) {
      const open = '{"a":['.repeat(depth)
      const close = ']}'.repeat(depth)
      check(Buffer.from(`${open}1${close}`))
      check(Buffer.from(`${open}1${close.slice(1)}`))
      check(Buffer.from(`${open}1,${close}`))
    }
    expect(outcomes.notJson).toBeGreaterThan(10_000)
    expect(outcomes.notFound).toBeGreaterThan(2_000)
    expect(outcomes.found).toBeGreaterThan(1_000)
  })

  it('agrees with JSON.parse on generated texts after inserted whitespace, controls, escapes, bit flips and cuts', () => {
    const random = seededRandom(20261127)
    const paths = [
      '$',
      '$.a',
      '$.b',
      '$.ab',
      '$.abcde',
      '$.a.b',
      '$.a[0]',
      '$.a[1]',
      '$.a[2]',
      '$.a[1][0]',
      '$.a[0].b',
      '$[0]',
      '$[1]',
      '$[2]',
      '$[3]',
      '$[1][0]',
      '$[2][1]',
      '$[0][1]',
      '$["é"]',
    ]
    // One scanner per path across all bodies too, as a compiled mock keeps it (its last answer).
    const kept = new Map(paths.map((p) => [p, JsonPathScanner.compile(p) as JsonPathScanner]))
    const outcomes = newOutcomes()
    for (let i = 0; i < 4000; i++) {
      let bytes: Buffer = Buffer.from(generateText(random, 3))
      for (let n = random() < 0.4 ? 0 : 1 + Math.floor(random() * 3); n > 0; n--) {
        bytes = mutate(bytes, random)
      }
      for (const path of paths) {
        const expected = reference(bytes, path)
        const where = `${JSON.stringify(bytes.toString('latin1'))} at ${path}`
        expect(scan(bytes, path), where).toBe(expected)
        expect(kept.get(path)?.scan(bytes), where).toBe(expected)
        tally(outcomes, expected)
      }
    }
    expect(outcomes.notJson).toBeGreaterThan(10_000)
    expect(outcomes.notFound).toBeGreaterThan(10_000)
    expect(outcomes.found).toBeGreaterThan(3_000)
  })

  it('finds the end of strings of every length, with any byte at any place of them', () => {
    const scanner = JsonPathScanner.compile('$.b') as JsonPathScanner
    const specials = ['"', '\\', '\\n', '\\u00e9', '\\q', '\u0001', '\u001f', '\u007f', 'é']
    const check = (bytes: Buffer): void => {
      const expected = reference(bytes, '$.b')
      expect(scanner.scan(bytes), JSON.stringify(bytes.toString('latin1'))).toBe(expected)
    }
    for (let length = 0; length < 12; length++) {
      for (let at = 0; at <= length; at++) {
        for (const special of specials) {
          const inner = `${'x'.repeat(at)}${special}${'y'.repeat(length - at)}`
          const text = `{"a":"${inner}","b":"${inner}"}`
          check(Buffer.from(text))
          check(Buffer.concat([Buffer.from(`{"b":"${'z'.repeat(at)}`), Buffer.from([0xff])]))
          // Cut inside the string, at every place.
          for (let cut = text.length - length - 4; cut < text.length; cut++) {
            check(Buffer.from(text).subarray(0, cut))
          }
        }
      }
    }
  })

  it('counts the elements of arrays on the path past nested arrays', () => {
    expect(scan('[0,[5],7]', '$[1][0]')).toBe('5')
    expect(scan('[0,[5],7]', '$[2]')).toBe('7')
    expect(scan('[[0,1],[2,3],[4]]', '$[1][1]')).toBe('3')
    expect(scan('[[0,1],[2,3],[4]]', '$[2][0]')).toBe('4')
    expect(scan('[[0],[2,3]]', '$[1][0]')).toBe('2')
    expect(scan('{"a":[[1,[2]],[3]],"b":[9]}', '$.a[1][0]')).toBe('3')
    expect(scan('{"a":[[1,[2]],[3]],"b":[9]}', '$.b[0]')).toBe('9')
    expect(scan('[[[1]],[[2]]]', '$[1][0][0]')).toBe('2')
    expect(scan('[[0],[1]]', '$[0][1]')).toBe(NOT_FOUND)
  })
})

/** Templates of the near-miss test; V is where a value goes. */
const TEMPLATES = [
  'V',
  ' V\n',
  '{"a":V}',
  '{"a" : V , "c" : 1}',
  '{"a":{"b":V},"c":[V]}',
  '[V]',
  '[V,V]',
  '{"a":[0,V]}',
  '{"a":V,"a":{"b":V}}',
  '{"é":V}',
  '{"\\u00e9":V}',
  '{"a\\u0000":V,"a":1}',
]

const bytes = (...codes: number[]): Buffer => Buffer.from(codes)
const quoted = (...inner: (string | Buffer)[]): Buffer =>
  Buffer.concat([
    Buffer.from('"'),
    ...inner.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)),
    Buffer.from('"'),
  ])

/** Values at and just past the edge of the grammar, as bytes (some are not UTF-8). */
const NEAR_MISSES: Buffer[] = [
  // numbers
  ...[
    '0',
    '-0',
    '01',
    '-01',
    '00',
    '1.',
    '.5',
    '-',
    '-.5',
    '1e',
    '1e+',
    '1E-2',
    '1e400',
    '-1.5e10',
    '+1',
    '0x1',
    '1.5.5',
    '1..5',
    '1ee2',
    '2.50',
    '123456789012345678901234567890',
    'Infinity',
    '-Infinity',
    'NaN',
    '0.0e0',
    '1 2',
    '- 1',
  ].map((t) => Buffer.from(t)),
  // literals
  ...['true', 'false', 'null', 'tru', 'nul', 'fals', 'falsey', 'True', 'NULL', 'nulll', 'n'].map(
    (t) => Buffer.from(t),
  ),
  // strings: escapes, surrogates, control bytes
  ...[
    '',
    'abc',
    'a\\"b',
    '\\\\',
    '\\/',
    '\\b\\f\\n\\r\\t',
    '\\u0041',
    '\\u00E9',
    '\\uD800',
    '\\uDC00\\uD800',
    '\\ud83d\\ude00',
    '\\u12',
    '\\u12G4',
    '\\u',
    '\\x',
    "\\'",
    '\\a',
    '\\0',
    '\\U0041',
    '\\',
    'a\tb',
    'a\nb',
    '\u007f',
    '\u001f',
    '\u0000',
    'é',
    '😀',
    'x'.repeat(200),
    `${'y'.repeat(100)}\\n${'z'.repeat(100)}`,
  ].map((t) => quoted(t)),
  // invalid UTF-8 and overlong encodings inside strings (decoded to U+FFFD) and outside them
  quoted(bytes(0xff)),
  quoted('a', bytes(0xc0, 0xaf), 'b'),
  quoted(bytes(0xc0, 0xa2)),
  quoted(bytes(0xe0, 0x80, 0xa2)),
  quoted(bytes(0xed, 0xa0, 0x80)),
  quoted(bytes(0xf4, 0x90, 0x80, 0x80)),
  quoted(bytes(0xe2, 0x82)),
  quoted(bytes(0x80)),
  quoted(bytes(0xe2), '\\n'),
  quoted(bytes(0xc3, 0xa9)),
  bytes(0xff),
  bytes(0xc0, 0xa2, 0x61, 0x22),
  bytes(0xc2, 0xa0, 0x31),
  bytes(0xef, 0xbb, 0xbf, 0x31),
  // containers
  ...[
    '[]',
    '{}',
    '[1,]',
    '[,1]',
    '{"x":1,}',
    '{"x"}',
    '{"x":}',
    '{x:1}',
    '[[[[1]]]]',
    '[1 2]',
    '{"b":1,"b":2}',
    '{"b":{"b":"deep"}}',
    '[1]]',
    '{"b":1}}',
    '[',
    '{',
    '{"b":[}]}',
  ].map((t) => Buffer.from(t)),
]

/** Tokens and stray bytes for random sequences. */
const SOUP: Buffer[] = [
  ...['{', '}', '[', ']', ',', ':', '"a"', '"b"', '"é"', '1', '-', '.', 'e', '0', ' ', '\n'].map(
    (t) => Buffer.from(t),
  ),
  ...['"\\u00e9"', '"\\', 'true', 'n', '"', '\\', '"\\uD800"', '12.5', '"x'].map((t) =>
    Buffer.from(t),
  ),
  bytes(0xff),
  bytes(0xc0),
  bytes(0x01),
]

function generate(random: () => number, depth: number): unknown {
  const roll = random()
  if (depth === 0 || roll < 0.35) {
    const scalars = [0, -1.5, 1e21, 'a', 'é"\\\n', '', true, false, null, 42]
    return scalars[Math.floor(random() * scalars.length)]
  }
  const names = ['a', 'b', 'c', '0']
  if (roll < 0.65) {
    return Array.from({ length: Math.floor(random() * 3) }, () => generate(random, depth - 1))
  }
  const out: Record<string, unknown> = {}
  for (let i = Math.floor(random() * 4); i > 0; i--) {
    out[names[Math.floor(random() * names.length)] as string] = generate(random, depth - 1)
  }
  return out
}

/** Half the documents stay valid; the others lose, gain or change one byte, or repeat a member. */
function corrupt(bytes: Buffer, random: () => number): Buffer {
  const roll = random()
  if (roll < 0.5 || bytes.length === 0) return bytes
  const at = Math.floor(random() * bytes.length)
  const noise = Buffer.from([
    [0x22, 0x2c, 0x5c, 0x7d, 0x5d, 0x3a, 0x30, 0x0a, 0x01, 0xff, 0x65][
      Math.floor(random() * 11)
    ] as number,
  ])
  if (roll < 0.65) return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)])
  if (roll < 0.8) return Buffer.concat([bytes.subarray(0, at), noise, bytes.subarray(at)])
  if (roll < 0.9) return Buffer.concat([bytes.subarray(0, at), noise, bytes.subarray(at + 1)])
  const text = bytes.toString('utf8')
  return text.startsWith('{"') ? Buffer.from(`{"a":{"b":7},${text.slice(1)}`) : bytes
}

/** Members' names of generated texts: some share a length with the paths' names, some not. */
const GENERATED_NAMES = ['a', 'b', 'ab', 'abcd', 'abcde', 'é', '0', 'A']
/** Pieces of generated strings, as they stand between the quotes. */
const STRING_PIECES = [
  'x',
  'Q',
  '7',
  ' ',
  'é',
  '☃',
  '😀',
  '\\n',
  '\\"',
  '\\\\',
  '\\/',
  '\\u00e9',
  '\\ud83d\\ude00',
  '\\t',
]
const SPACES = ['', '', '', ' ', '\n  ', '\t', '\r\n']

/** JSON text written directly, for spellings JSON.stringify never writes (`1E+2`, escapes, spaces). */
function generateText(random: () => number, depth: number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T
  const space = (): string => pick(SPACES)
  const roll = random()
  if (depth === 0 || roll < 0.3) {
    const kind = random()
    if (kind < 0.45) {
      let text = ''
      for (let n = Math.floor(random() * 14); n > 0; n--) text += pick(STRING_PIECES)
      return `"${text}"`
    }
    if (kind < 0.85) {
      const digits = (): string =>
        String(Math.floor(random() * 10 ** (1 + Math.floor(random() * 5))))
      const integer = random() < 0.3 ? '0' : String(1 + Math.floor(random() * 99999))
      const fraction = random() < 0.3 ? `.${digits()}` : ''
      const exponent = random() < 0.2 ? `${pick(['e', 'E'])}${pick(['', '+', '-'])}${digits()}` : ''
      return `${random() < 0.3 ? '-' : ''}${integer}${fraction}${exponent}`
    }
    return pick(['true', 'false', 'null'])
  }
  const count = Math.floor(random() * 4)
  const parts: string[] = []
  if (roll < 0.6) {
    for (let n = 0; n < count; n++) {
      parts.push(`${space()}${generateText(random, depth - 1)}${space()}`)
    }
    return `[${parts.join(',')}]`
  }
  for (let n = 0; n < count; n++) {
    const name = pick(GENERATED_NAMES)
    const spelled =
      random() < 0.15
        ? `\\u00${name.charCodeAt(0).toString(16).padStart(2, '0')}${name.slice(1)}`
        : name
    parts.push(
      `${space()}"${spelled}"${space()}:${space()}${generateText(random, depth - 1)}${space()}`,
    )
  }
  return `{${parts.join(',')}}`
}

/** One change that JSON.parse may or may not accept. */
function mutate(bytes: Buffer, random: () => number): Buffer {
  const at = Math.floor(random() * (bytes.length + 1))
  const insert = (inserted: Buffer): Buffer =>
    Buffer.concat([bytes.subarray(0, at), inserted, bytes.subarray(at)])
  const roll = random()
  if (roll < 0.25) {
    // JSON's whitespace, and what is not: form feed, vertical tab, no-break space (alone and in UTF-8)
    const spaces = [[0x20], [0x09], [0x0a], [0x0d], [0x0c], [0x0b], [0xa0], [0xc2, 0xa0]]
    return insert(Buffer.from(spaces[Math.floor(random() * spaces.length)] as number[]))
  }
  if (roll < 0.4) return insert(Buffer.from([Math.floor(random() * 0x20)]))
  if (roll < 0.6) {
    const escapes = ['\\n', '\\u00e9', '\\u12', '\\x', '\\', '\\ud800', '"']
    return insert(Buffer.from(escapes[Math.floor(random() * escapes.length)] as string))
  }
  if (roll < 0.85 && bytes.length > 0) {
    const flipped = Buffer.from(bytes)
    const i = Math.min(at, bytes.length - 1)
    flipped[i] = (flipped[i] as number) ^ (1 << Math.floor(random() * 8))
    return flipped
  }
  return bytes.subarray(0, at)
}
