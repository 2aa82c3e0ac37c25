import { describe, expect, it } from 'vitest'
import { importHar, readHarPending } from '../../../importers/har/index.js'
import { importFile, type ImportResult } from '../../../importers/index.js'
import { elementText, locateArray } from '../../../importers/shared/array-layout.js'
import { LAYOUT_MIN_BYTES } from '../../../importers/shared/har-layout.js'
import { isUnderstudyError } from '../../../src/errors/index.js'
import { describeRealworld, readRealworld, realworldFiles } from '../../helpers/realworld.js'
import { harDocument, harEntry } from './har-builder.js'

/*
 * A large HAR is read an entry at a time, and may be converted in two parts. Whitespace
 * after the document makes any HAR large enough for that path without changing its meaning, so
 * each case compares the two readings of the same document: they must agree exactly, warnings
 * and errors included.
 */

const padding = Buffer.alloc(LAYOUT_MIN_BYTES, 0x20)

function padded(bytes: Uint8Array): Buffer {
  return Buffer.concat([bytes, padding])
}

/** What an import gave, comparable: the result's JSON, or the error's code, message and details. */
function outcomeOf(run: () => ImportResult): unknown {
  try {
    const result = run()
    return JSON.parse(JSON.stringify({ document: result.document, warnings: result.warnings }))
  } catch (err) {
    if (!isUnderstudyError(err)) throw err
    return { code: err.code, message: err.message, details: err.details }
  }
}

function expectSameReadings(doc: unknown, fileName = 'case.har'): void {
  const bytes = Buffer.from(JSON.stringify(doc))
  expect(outcomeOf(() => importHar({ bytes: padded(bytes), fileName }))).toEqual(
    outcomeOf(() => importHar({ bytes, fileName })),
  )
}

/** Whether the padded document is read an entry at a time (rather than declined and read whole). */
function readEntrywise(doc: unknown): boolean {
  return (
    readHarPending({ bytes: padded(Buffer.from(JSON.stringify(doc))), fileName: 'case.har' }) !==
    null
  )
}

describe('locateArray', () => {
  const find = (text: string): ReturnType<typeof locateArray> =>
    locateArray(Buffer.from(text), ['log', 'entries'])

  it('finds the elements and empties the array in the skeleton', () => {
    const text =
      '{"a": "x]}\\"", "log": {"v": [1, {"b": "}"}], "entries": [ {"a": 1} , "s\\"]" ,null, [2, [3]], -1.5e3 ], "z": {}}}'
    const layout = find(text)
    expect(layout?.skeleton).toBe(
      '{"a": "x]}\\"", "log": {"v": [1, {"b": "}"}], "entries": [], "z": {}}}',
    )
    const bytes = Buffer.from(text)
    const elements = Array.from(
      { length: (layout?.bounds.length ?? 0) / 2 },
      (_, i) => JSON.parse(elementText(bytes, layout?.bounds ?? [], i)) as unknown,
    )
    expect(elements).toEqual([{ a: 1 }, 's"]', null, [2, [3]], -1500])
  })

  it('reads UTF-8 text after a byte order mark, with characters of several bytes', () => {
    const bytes = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('{"log":{"entries":[{"t":"é€😀"},{"t":"]"}]}}'),
    ])
    const layout = locateArray(bytes, ['log', 'entries'])
    expect(layout?.skeleton).toBe('{"log":{"entries":[]}}')
    expect(JSON.parse(elementText(bytes, layout?.bounds ?? [], 0))).toEqual({ t: 'é€😀' })
  })

  it('declines what it cannot read as JSON.parse would: the caller then parses the text whole', () => {
    expect(find('{"log": {"entries": []}}')).toEqual({
      skeleton: '{"log": {"entries": []}}',
      bounds: [],
    })
    expect(find('[{"log": {"entries": []}}]')).toBeNull() // not an object
    expect(find('{"log": {"entries": {}}}')).toBeNull() // not an array
    expect(find('{"log": {"other": []}}')).toBeNull() // no such member
    expect(find('{"log": {"entries": [], "entries": [1]}}')).toBeNull() // JSON.parse keeps the last
    expect(find('{"log": {"entries": [1]}, "log": {"entries": [2]}}')).toBeNull()
    expect(find('{"log": {"entr\\u0069es": [1]}}')).toBeNull() // an escaped name
    expect(find('{"log": {"entries": [1,]}}')).toBeNull() // a trailing comma
    expect(find('{"log": {"entries": [1 2]}}')).toBeNull() // a missing comma
    expect(find('{"log": {"entries": [{"a": "unterminated}]}}')).toBeNull()
    expect(find('{"log": {"entries": [{"a": 1}')).toBeNull() // cut short
    expect(locateArray(Buffer.from([0xff, 0xfe, 0x7b, 0x00]), ['log', 'entries'])).toBeNull() // UTF-16
  })
})

describe('a large HAR read an entry at a time', () => {
  it('gives what the whole reading gives: repeats across the parts, skips, notes and schema deviations', () => {
    const entries = [
      harEntry({ url: 'https://api.example.com/a' }),
      harEntry({
        url: 'https://api.example.com/b?x=1',
        headers: [{ name: 'Bad Name', value: 'v' }],
      }),
      harEntry({ url: 'wss://api.example.com/socket' }),
      harEntry({ url: 'https://api.example.com/a', status: 404 }), // a repeat of the first
      harEntry({
        url: 'https://other.example.com/b?x=1',
        status: 500,
        extra: { serverIPAddress: '[::1]' },
      }), // a repeat, another host
      harEntry({ url: 'https://api.example.com/c', status: 0 }),
      harEntry({ url: 'https://api.example.com/d', extra: { response: undefined } }),
      harEntry({
        url: 'https://api.example.com/e',
        method: 'POST',
        postData: { mimeType: 'application/json', text: '{"q": 1}' },
      }),
      harEntry({ url: 'https://api.example.com/a', status: 201 }), // a third time
      harEntry({ url: 'https://api.example.com/b?x=2', extra: { serverIPAddress: '[::1]' } }),
      harEntry({
        url: 'https://api.example.com/e',
        method: 'POST',
        postData: { mimeType: 'application/json', text: '{"q": 1}' },
      }),
      harEntry({
        url: 'https://api.example.com/a?y=1',
        text: 'é€😀',
        mimeType: 'text/plain; charset=utf-8',
      }),
    ]
    const doc = harDocument(entries)
    ;(doc['log'] as Record<string, unknown>)['pages'] = 'not an array' // a deviation outside the entries
    expect(readEntrywise(doc)).toBe(true)
    expectSameReadings(doc)
  })

  it("gives the whole reading's error, with its line, for a fatal schema violation in any entry", () => {
    const entries = [
      harEntry(),
      harEntry({ url: 'https://api.example.com/x' }),
      harEntry({ status: 'x' as unknown as number }),
    ]
    expect(readEntrywise(harDocument(entries))).toBe(false) // declined: read whole, for the line
    expectSameReadings(harDocument(entries))
    const bytes = padded(Buffer.from(JSON.stringify(harDocument(entries), null, 2)))
    expect(() => importHar({ bytes, fileName: 'bad.har' })).toThrow(
      /bad\.har.*\/log\/entries\/2\/response\/status.*line \d+/,
    )
  })

  it("gives the whole reading's error for broken JSON inside an entry or around the entries", () => {
    const good = JSON.stringify(
      harDocument([harEntry(), harEntry({ url: 'https://api.example.com/x' })]),
    )
    for (const broken of [
      good.replace('"status":200', '"status":200,'),
      good.replace('"version":"1.2"', '"version":1.2.3'),
      `${good}x`,
    ]) {
      const bytes = Buffer.from(broken)
      const whole = outcomeOf(() => importHar({ bytes, fileName: 'broken.har' }))
      expect(whole).toMatchObject({
        code: 'ERR_IMPORT_INVALID',
        message: expect.stringMatching(/not valid JSON: .*\(line 1, column \d+\)/),
      })
      expect(outcomeOf(() => importHar({ bytes: padded(bytes), fileName: 'broken.har' }))).toEqual(
        whole,
      )
      // through detection too: a file whose structure is a HAR's is "not valid JSON" (not "JSON or YAML")
      expect(
        outcomeOf(() => importFile({ bytes: padded(bytes), fileName: 'broken.har' })),
      ).toMatchObject({
        code: 'ERR_IMPORT_INVALID',
        details: (whole as { details: unknown }).details,
      })
    }
  })

  it('is found by detection without parsing the file whole, and imported the same through importFile', () => {
    const doc = harDocument([harEntry(), harEntry({ url: 'https://api.example.com/x' })])
    const bytes = Buffer.from(JSON.stringify(doc))
    const whole = outcomeOf(() => importFile({ bytes, fileName: 'capture.json' }))
    expect(outcomeOf(() => importFile({ bytes: padded(bytes), fileName: 'capture.json' }))).toEqual(
      whole,
    )
  })

  it('reads many entries, with repeats far apart, as the whole reading does', () => {
    const entries = Array.from({ length: 40 }, (_, i) =>
      harEntry({
        url: `https://api.example.com/items/${i % 7}?page=${i % 3}`,
        status: 200 + (i % 2),
      }),
    )
    expect(readEntrywise(harDocument(entries))).toBe(true)
    expectSameReadings(harDocument(entries))
  })
})

describeRealworld('real-world captures read an entry at a time', () => {
  for (const name of realworldFiles('har')) {
    it(name, () => {
      const bytes = readRealworld('har', name)
      expect(outcomeOf(() => importHar({ bytes: padded(bytes), fileName: name }))).toEqual(
        outcomeOf(() => importHar({ bytes, fileName: name })),
      )
    })
  }
})
