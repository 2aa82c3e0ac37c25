import { describe, expect, it } from 'vitest'
import { importFile } from '../../importers/index.js'
import { startServer } from '../helpers/server.js'

/*
 * A Mockoon route whose endpoint has an Express wildcard (`files/*\/:id`) and a response chosen by
 * a params rule: the rule's url matcher kept the `*` as a literal asterisk, so the response the
 * rule picks was never served.
 */
function environment(): unknown {
  const response = (uuid: string, statusCode: number, body: string, rules: unknown[] = []) => ({
    uuid,
    body,
    latency: 0,
    statusCode,
    label: '',
    headers: [],
    bodyType: 'INLINE',
    filePath: '',
    databucketID: '',
    sendFileAsBody: false,
    rules,
    rulesOperator: 'OR',
    disableTemplating: false,
    fallbackTo404: false,
    default: uuid === 'default',
    crudKey: 'id',
    callbacks: [],
  })
  return {
    uuid: 'env',
    lastMigration: 33,
    name: 'wildcard',
    endpointPrefix: '',
    latency: 0,
    port: 3000,
    hostname: '',
    folders: [],
    rootChildren: [],
    proxyMode: false,
    proxyHost: '',
    proxyRemovePrefix: false,
    tlsOptions: { enabled: false },
    cors: false,
    headers: [],
    proxyReqHeaders: [],
    proxyResHeaders: [],
    data: [],
    callbacks: [],
    routes: [
      {
        uuid: 'files',
        type: 'http',
        documentation: '',
        method: 'get',
        endpoint: 'files/*/:id',
        responses: [
          response('default', 200, 'any file'),
          response('one', 201, 'file one', [
            { target: 'params', modifier: 'id', value: '1', operator: 'equals', invert: false },
          ]),
        ],
        responseMode: null,
        streamingMode: null,
        streamingInterval: 0,
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
