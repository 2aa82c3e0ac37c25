import { describe, expect, it } from 'vitest'
import { importFile } from '../../importers/index.js'

// A Mockoon response whose statusCode is a text that is no number was reported as `status null`.
describe('a Mockoon response with a status that is not one', () => {
  it('is named in the warning as written, and answers 200', () => {
    const env = {
      uuid: 'e',
      lastMigration: 33,
      name: 'bad status',
      endpointPrefix: '',
      routes: [
        {
          uuid: 'r',
          type: 'http',
          method: 'get',
          endpoint: 'x',
          responses: [{ uuid: 'a', statusCode: 'abc', body: 'x', default: true, rules: [] }],
        },
      ],
    }
    const result = importFile({ bytes: Buffer.from(JSON.stringify(env)), fileName: 'env.json' })
    expect(result.warnings.map((w) => w.message)).toContain(
      'route GET /x: status "abc" is not an HTTP status; 200 is used',
    )
    expect(result.document.transactions[0]?.dsl.responseDsl.status).toBe(200)
  })
})
