import { describe, expect, it } from 'vitest'
import { importFile } from '../../importers/index.js'
import { startServer } from '../helpers/server.js'

/*
 * A Mockoon route whose endpoint has an Express wildcard (`files/*\/:id`) and a response chosen by
 * a params rule: the rule's url matcher kept the `*` as a literal asterisk, so the response the
 * rule picks was never served.
 */
function environment(): unknown {
  return {
    uuid: 'env',
    lastMigration: 33,
    name: 'wildcard',
    endpointPrefix: '',
    routes: [
      {
        uuid: 'files',
        type: 'http',
        method: 'get',
        endpoint: 'files/*/:id',
        responses: [
          { uuid: 'any', statusCode: 200, body: 'any file', default: true, rules: [] },
          {
            uuid: 'one',
            statusCode: 201,
            body: 'file one',
            rules: [{ target: 'params', modifier: 'id', value: '1', operator: 'equals' }],
          },
        ],
      },
    ],
  }
}

describe('a Mockoon params rule on a route with a wildcard', () => {
  it('picks its response for any path the wildcard takes', async () => {
    const result = importFile({
      bytes: Buffer.from(JSON.stringify(environment())),
      fileName: 'env.json',
    })
    const app = await startServer({ document: result.document })
    const one = await fetch(`${app.url}/files/a/b/1`)
    expect(one.status).toBe(201)
    expect(await one.text()).toBe('file one')
    const other = await fetch(`${app.url}/files/a/2`)
    expect(other.status).toBe(200)
    expect(await other.text()).toBe('any file')
  })
})
