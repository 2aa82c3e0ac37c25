import { describe, expect, it } from 'vitest'
import { generateExample, RefResolver } from '../../../importers/openapi/index.js'

// Example values for schemas at the edges of what OpenAPI descriptions write: required names
// without a schema, property counts, tuples, bounds given twice, recursion and deep nesting.
function generate(schema: unknown, components: Record<string, unknown> = {}): unknown {
  const doc = { openapi: '3.1.0', components: { schemas: components } }
  return generateExample(schema, new RefResolver(doc, { fileName: 'api.yaml', warn: () => {} }))
}

function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf))
  if (value !== null && typeof value === 'object') {
    return 1 + Math.max(0, ...Object.values(value).map(depthOf))
  }
  return 0
}

describe('generateExample at the edges', () => {
  it('gives every required name a value: null for a schema that allows anything, else from additionalProperties or a string', () => {
    expect(
      generate({
        type: 'object',
        required: ['x', 'y'],
        properties: { x: {} },
        additionalProperties: { type: 'integer' },
      }),
    ).toEqual({ x: null, y: 0 })
    expect(generate({ type: 'object', required: ['y'] })).toEqual({ y: 'string' })
  })

  it('meets minProperties with any additional properties, and drops optional ones down to maxProperties', () => {
    expect(generate({ type: 'object', additionalProperties: true, minProperties: 2 })).toEqual({
      additionalProp1: 'string',
      additionalProp2: 'string',
    })
    expect(
      generate({
        type: 'object',
        properties: { a: { type: 'integer' }, b: { type: 'integer' }, c: { type: 'integer' } },
        required: ['c'],
        maxProperties: 1,
      }),
    ).toEqual({ c: 0 })
  })

  it('stops a tuple where no more items are allowed, and reads the draft-4 tuple form', () => {
    expect(
      generate({ type: 'array', prefixItems: [{ type: 'integer' }], items: false, minItems: 3 }),
    ).toEqual([0])
    expect(
      generate({ type: 'array', items: [{ type: 'string' }, { type: 'boolean' }], minItems: 2 }),
    ).toEqual(['string', true])
    expect(generate({ type: 'array', items: {}, minItems: 2 })).toEqual([])
  })

  it('makes unique strings distinct', () => {
    expect(
      generate({ type: 'array', items: { type: 'string' }, minItems: 3, uniqueItems: true }),
    ).toEqual(['string', 'string1', 'string2'])
  })

  it('takes the tighter of a bound given both as a number and by the 3.1 keyword', () => {
    expect(generate({ type: 'integer', exclusiveMinimum: 3, minimum: 5 })).toBe(5)
    expect(generate({ type: 'number', exclusiveMaximum: -1, maximum: 0 })).toBeLessThan(-1)
    expect(generate({ type: 'number', maximum: -1, exclusiveMaximum: true })).toBeLessThan(-1)
  })

  it('lands on a multiple inside the bounds, and ignores a multipleOf that is not positive', () => {
    const value = generate({ type: 'number', minimum: 1, maximum: 2, multipleOf: 0.75 }) as number
    expect(value).toBe(1.5)
    expect(generate({ type: 'number', multipleOf: -1, minimum: 2 })).toBe(2)
  })

  it('gives a required recursive array an empty array', () => {
    const components = {
      L: { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/L' } },
    }
    expect(generate({ $ref: '#/components/schemas/L' }, components)).toEqual([[]])
  })

  it('cuts nesting at depth 10, the last value empty, however deep required objects and arrays nest', () => {
    let object: Record<string, unknown> = { type: 'integer' }
    let array: Record<string, unknown> = { type: 'integer' }
    for (let i = 0; i < 40; i++) {
      object = { type: 'object', required: ['d'], properties: { d: object } }
      array = { type: 'array', minItems: 1, items: array }
    }
    expect(depthOf(generate(object))).toBe(11)
    expect(depthOf(generate(array))).toBe(11)
  })
})
