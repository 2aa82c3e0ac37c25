import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { Ajv } from 'ajv'
import { parse } from 'yaml'
import { describe, expect, it } from 'vitest'
import { publishedSchema, publishedSchemaPath } from '../../../src/dsl/index.js'

const root = resolve(import.meta.dirname, '../../..')

describe('schema/understudy.schema.json', () => {
  it('is the DSL schema of src/dsl (run "npm run schema" after changing it)', () => {
    const onDisk = JSON.parse(readFileSync(resolve(root, publishedSchemaPath), 'utf8')) as unknown
    expect(onDisk).toEqual(publishedSchema())
  })

  it('accepts the shipped example and refuses a misspelt matcher', () => {
    const validate = new Ajv({ strict: false, allErrors: true }).compile(publishedSchema())
    const example = parse(
      readFileSync(resolve(root, 'examples/payments-api.yaml'), 'utf8'),
    ) as unknown
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true)
    expect(
      validate([
        {
          dsl: {
            requestDsl: {
              path: '/a',
              headers: [{ key: 'x', matcherName: 'equal', matchingValue: 'y' }],
            },
            responseDsl: {},
          },
        },
      ]),
    ).toBe(false)
  })
})
