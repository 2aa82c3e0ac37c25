import { describe, expect, it } from 'vitest'
import { thrown } from '../../helpers/errors.js'
import { detectFormat } from '../../../importers/shared/detect.js'

// What detection says of files that are not a supported format (the reason is the part after the
// file name), and the shapes it recognizes from a few keys.
const detect = (text: string) => detectFormat({ bytes: Buffer.from(text), fileName: 'f.json' })
const reason = (text: string): string => {
  const err = thrown(() => detect(text))
  expect(err.code).toBe('ERR_IMPORT_FORMAT_UNKNOWN')
  return /f\.json: ([^;]*);/.exec(err.message)?.[1] ?? err.message
}

describe('detectFormat on look-alikes', () => {
  it.each([
    ['[1, 2]', 'it is a JSON/YAML list of something else'],
    ['[{"requestDsl": {}}, 5]', 'it is a JSON/YAML list of something else'],
    ['"just text"', 'it is a plain value, not a document'],
    ['{}', 'it is an empty object'],
    [
      '{"values": [], "_postman_variable_scope": "environment"}',
      'it looks like a Postman environment',
    ],
    [
      '{"data": {}, "meta": {}}',
      'it looks like an API-monitoring response envelope {data, meta, error}, not a mock definition',
    ],
  ])('says of %s: %s', (text, expected) => {
    expect(reason(text)).toBe(expected)
  })

  it.each([
    ['{"requests": [], "order": []}', 'postman'],
    ['{"log": {"version": "1.2"}}', 'har'],
    ['{"apiVersion": 1, "error": "x"}', 'transactions'],
    ['[{"requestDsl": {}}, {"dsl": {"requestDsl": {}}, "id": 3, "serviceId": 1}]', 'transactions'],
  ])('reads %s as %s', (text, format) => {
    expect(detect(text)).toBe(format)
  })
})
