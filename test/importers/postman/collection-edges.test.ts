import { describe, expect, it } from 'vitest'
import { decodeContent } from '../../../src/dsl/index.js'
import { thrown } from '../../helpers/errors.js'
import { importPostman } from '../../../importers/postman/index.js'

// Postman collections that are not quite what Postman exports today: the wrong shape or version,
// folders nested without end, items and examples that are not objects, v1-style header text,
// `variables` instead of `variable`, and request bodies that give no sample.
const importValue = (value: unknown) =>
  importPostman({ bytes: Buffer.from(JSON.stringify(value)), fileName: 'c.json' })

describe('Postman collections at the edges', () => {
  it('refuses what is not a collection, a v1 collection, and an item that is not a list, saying why', () => {
    expect(thrown(() => importValue([1])).message).toContain(
      'expected a Postman collection (an object with "info" and "item")',
    )
    expect(thrown(() => importValue({ info: {}, requests: [] })).message).toContain(
      'is a Postman Collection v1, which is not supported: open it in Postman and export it as Collection v2.1',
    )
    const notList = thrown(() => importValue({ info: {}, item: {} }))
    expect(notList.code).toBe('ERR_IMPORT_INVALID')
    expect(notList.details).toMatchObject([{ path: '/item', message: 'must be an array' }])
  })

  it('warns about a collection without requests', () => {
    const result = importValue({ info: {}, item: [] })
    expect(result.warnings.map((w) => w.message)).toEqual(['contains no requests'])
    expect(result.document.transactions).toEqual([])
  })

  it('refuses folders nested more than 64 levels deep', () => {
    let items: unknown[] = [{ name: 'leaf', request: 'http://x/a' }]
    for (let i = 0; i < 70; i++) items = [{ item: items }]
    const err = thrown(() => importValue({ info: {}, item: items }))
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toContain('folders are nested more than 64 levels deep')
  })

  const collection = {
    info: {},
    // some exporters wrote `variables`; a variable needs a key (or id) and a scalar value
    variables: [
      { id: 'h', value: 'api.test' },
      { value: 'no key' },
      { key: 'b', value: true },
      { key: 'o', value: {} },
    ],
    item: [
      'not an item',
      { name: 'odd' },
      {
        request: {
          method: 'post',
          url: 'http://{{h}}/f?on={{b}}',
          body: {
            mode: 'urlencoded',
            urlencoded: [
              { key: 'a', value: '{{b}}' },
              { key: 'off', value: '1', disabled: true },
              { key: 'n' },
              { value: 'no key' },
            ],
          },
        },
        response: [
          'not an example',
          {
            code: '201',
            status: 'Made',
            header: [
              { key: 'X-A', value: '{{h}}' },
              { key: 'X-Off', value: '1', disabled: true },
              { key: '' },
              'not a header',
            ],
            body: '{"u":"{{nope}}"}',
          },
          {
            name: 'plain',
            code: 200,
            status: 'OK',
            header: 'X-B: 2\nnot a header line\n',
            body: 'hi',
          },
        ],
      },
      {
        name: 'raw',
        request: { method: 'put', url: 'http://x/r', body: { mode: 'raw', raw: '' } },
      },
      {
        name: 'form',
        request: { method: 'put', url: 'http://x/u', body: { mode: 'urlencoded', urlencoded: [] } },
      },
    ],
  }

  it('skips items and examples that are not objects, and items that are neither request nor folder', () => {
    const messages = importValue(collection).warnings.map((w) => `${w.at ?? ''} ${w.message}`)
    expect(messages).toContain('/item/0 is not an item object; skipped')
    expect(messages).toContain('/item/1 item "odd" has neither "request" nor "item"; skipped')
    expect(messages).toContain(
      '/item/2/response/1 example "item 3 / example 2": response body contains {{variables}} that the collection does not define; they are served verbatim',
    )
  })

  it('names unnamed items and examples by position, and reads a status code given as text', () => {
    const { transactions } = importValue(collection).document
    const made = transactions.find((t) => t.name === 'item 3 / example 2')
    expect(made?.dsl.responseDsl).toMatchObject({
      status: 201,
      statusMessage: 'Made',
      headers: [{ name: 'X-A', value: 'api.test' }],
    })
    expect(made?.dsl.requestDsl).toMatchObject({
      method: 'POST',
      host: 'api.test',
      queryParams: [{ key: 'on', matcherName: 'equals', matchingValue: 'true' }],
      // enabled fields with a key; a field without a value is sent empty
      sampleBody: 'a=true&n=',
    })
  })

  it('reads v1-style header text, and keeps the standard reason phrase out', () => {
    const plain = importValue(collection).document.transactions.find(
      (t) => t.name === 'item 3 / plain',
    )
    expect(plain?.dsl.responseDsl.headers).toEqual([{ name: 'X-B', value: '2' }])
    expect(plain?.dsl.responseDsl.statusMessage).toBeUndefined()
    expect(decodeContent(plain?.dsl.responseDsl.content ?? '').toString()).toBe('hi')
  })

  it('gives no sample body for an empty raw body or an empty form', () => {
    const { transactions } = importValue(collection).document
    for (const name of ['raw', 'form']) {
      expect(transactions.find((t) => t.name === name)?.dsl.requestDsl.sampleBody).toBeUndefined()
    }
  })
})
