import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readDefinition } from '../../../src/dsl/index.js'
import { isUnderstudyError } from '../../../src/errors/index.js'

const exportFile = resolve(import.meta.dirname, '../fixtures/product-export.json')
const exported = (): unknown => JSON.parse(readFileSync(exportFile, 'utf8'))

describe('the DSL as the product exports it', () => {
  it('loads an export with every field of the product DSL', () => {
    const doc = readDefinition(exported())
    expect(doc.transactions).toHaveLength(3)
    const [every, schema, cdata] = doc.transactions
    expect(every?.dsl.type).toBe('HTTP')
    expect(every?.dsl.failoverEnabled).toBe(false)
    expect(every?.dsl.statusCodeConditions).toEqual([
      {
        status: 409,
        statusMessage: 'Conflict',
        matcher: {
          key: '/p:order/p:id',
          matcherName: 'equals',
          matchingValue: '9',
          namespaces: [{ prefix: 'p', uri: 'urn:orders' }],
        },
      },
    ])
    expect(every?.dsl.requestDsl.url?.key).toBe('url')
    expect(every?.dsl.requestDsl.body?.[0]?.sampleBody).toMatch(/^PHA6/)
    expect(every?.dsl.requestDsl.body?.[0]?.namespaces).toEqual([
      { prefix: 'p', uri: 'urn:orders' },
    ])
    expect(every?.dsl.responseDsl.failoverEnabled).toBe(false)
    expect(every?.dsl.responseDsl.proxyUrl).toBeUndefined()
    expect(every?.dsl.responseDsl.responseDelay).toEqual({
      type: 'none',
      chunks: 1,
      dribbled: false,
    })
    expect(schema?.dsl.responseDsl.responseDelay).toEqual({
      type: 'fixed',
      duration: 300,
      chunks: 3,
      dribbled: true,
    })
    expect(cdata?.dsl.requestDsl.body?.[0]).toMatchObject({
      matcherName: 'matches_xml_cdata',
      cdataXpath: '/envelope/payload',
    })
  })

  it('reads back what it gives out unchanged (GET then PUT changes nothing)', () => {
    const once = readDefinition(exported()).transactions
    const twice = readDefinition(JSON.parse(JSON.stringify(once))).transactions
    expect(twice).toEqual(once)
    for (const txn of once) {
      expect(readDefinition(JSON.parse(JSON.stringify(txn.dsl))).transactions[0]?.dsl).toEqual(
        txn.dsl,
      )
    }
  })

  it('still refuses a misspelt field, suggesting the known one', () => {
    const value = { requestDsl: {}, responseDsl: { statusCodeCondition: [] } }
    try {
      readDefinition(value)
      expect.unreachable('accepted a typo')
    } catch (err) {
      expect(isUnderstudyError(err, 'ERR_DSL_INVALID')).toBe(true)
      const details = (err as { details?: Array<{ path: string; message: string }> }).details
      expect(details).toEqual([
        {
          path: '/responseDsl/statusCodeCondition',
          message: 'is not a known property (typo of "statusCodeConditions"?)',
        },
      ])
    }
  })

  it('refuses matches_xml_cdata without cdataXpath, naming it', () => {
    try {
      readDefinition({
        requestDsl: { body: [{ matcherName: 'matches_xml_cdata', matchingValue: '/a' }] },
      })
      expect.unreachable('accepted a cdata matcher without cdataXpath')
    } catch (err) {
      expect((err as { details?: unknown }).details).toEqual([
        {
          path: '/requestDsl/body/0',
          message: 'must have property "cdataXpath" for matcher matches_xml_cdata',
        },
      ])
    }
  })
})
