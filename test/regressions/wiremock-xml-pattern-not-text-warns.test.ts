import { describe, expect, it } from 'vitest'
import { importFile } from '../../importers/index.js'

// A WireMock stub whose equalToXml is not text was imported without that pattern and without a
// word: the stub then answered every body.
describe('a WireMock equalToXml pattern that is not text', () => {
  it('is named in a warning', () => {
    const stub = {
      request: { method: 'POST', url: '/soap', bodyPatterns: [{ equalToXml: 5 }] },
      response: { status: 200, body: 'ok' },
    }
    const result = importFile({ bytes: Buffer.from(JSON.stringify(stub)), fileName: 'stub.json' })
    expect(result.format).toBe('wiremock')
    expect(result.warnings.map((w) => w.message).join('\n')).toContain(
      'equalToXml needs the XML as text; not matched',
    )
  })
})
