import { describe, expect, it } from 'vitest'
import { generateExample, RefResolver } from '../../../importers/openapi/index.js'

function generate(schema: unknown, components: Record<string, unknown> = {}): unknown {
  const doc = { openapi: '3.1.0', components: { schemas: components } }
  return generateExample(schema, new RefResolver(doc, { fileName: 'api.yaml', warn: () => {} }))
}

describe('generateExample', () => {
  it('uses a sample per string format', () => {
    const formats = ['date-time', 'date', 'email', 'uuid', 'uri', 'ipv4', 'hostname', 'byte']
    const schema = {
      type: 'object',
      properties: Object.fromEntries(formats.map((f) => [f, { type: 'string', format: f }])),
    }
    expect(generate(schema)).toEqual({
      'date-time': '2024-01-01T00:00:00Z',
      date: '2024-01-01',
      email: 'user@example.com',
      uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
      uri: 'https://example.com',
      ipv4: '192.0.2.1',
      hostname: 'example.com',
      byte: 'c3RyaW5n',
    })
  })

  it('prefers const, then example, then examples[0], then default, then the first non-null enum value', () => {
    expect(generate({ type: 'string', const: 'c', example: 'e', default: 'd' })).toBe('c')
    expect(generate({ type: 'string', example: 'e', default: 'd', enum: ['x'] })).toBe('e')
    expect(generate({ type: 'string', examples: ['first', 'second'], default: 'd' })).toBe('first')
    expect(generate({ type: 'integer', default: 7, enum: [1, 7] })).toBe(7)
    expect(generate({ type: ['string', 'null'], enum: [null, 'b', 'c'] })).toBe('b')
  })

  it('moves numbers into their bounds, exclusive ones included, and onto multipleOf', () => {
    expect(generate({ type: 'integer', format: 'int64', minimum: 5 })).toBe(5)
    expect(generate({ type: 'integer', minimum: 5, exclusiveMinimum: true })).toBe(6) // 3.0 boolean form
    expect(generate({ type: 'integer', exclusiveMinimum: 5 })).toBe(6) // 3.1 numeric form
    expect(generate({ type: 'integer', maximum: -3 })).toBe(-3)
    expect(
      generate({
        type: 'number',
        minimum: 0,
        exclusiveMinimum: true,
        maximum: 1,
        exclusiveMaximum: true,
      }),
    ).toBe(0.5)
    expect(generate({ type: 'integer', minimum: 7, multipleOf: 5 })).toBe(10)
    expect(generate({ type: 'number', minimum: 0.011, multipleOf: 0.01 })).toBe(0.02)
  })

  it('respects minLength, maxLength and pattern', () => {
    expect(generate({ type: 'string', minLength: 10 })).toBe('stringxxxx')
    expect(generate({ type: 'string', maxLength: 3 })).toBe('str')
    expect(generate({ type: 'string', pattern: '^[A-Z]{2}-\\d{3}$' })).toBe('AA-000')
    expect(generate({ type: 'string', pattern: '^(foo|bar)+[^a-z]?$' })).toMatch(
      /^(foo|bar)+[^a-z]?$/,
    )
  })

  it('generates minItems items, at least one, and never more than maxItems', () => {
    expect(generate({ type: 'array', items: { type: 'integer' } })).toEqual([0])
    expect(
      generate({ type: 'array', items: { type: 'integer' }, minItems: 3, uniqueItems: true }),
    ).toEqual([0, 1, 2])
    expect(
      generate({
        type: 'array',
        items: { type: 'string', enum: ['a', 'b'] },
        minItems: 2,
        uniqueItems: true,
      }),
    ).toEqual(['a', 'b'])
    expect(generate({ type: 'array', items: { type: 'integer' }, maxItems: 0 })).toEqual([])
    expect(
      generate({
        type: 'array',
        prefixItems: [{ type: 'string' }, { type: 'boolean' }],
        minItems: 2,
      }),
    ).toEqual(['string', true])
  })

  it('includes required and optional properties near the top, only required ones deep down, and never writeOnly ones', () => {
    const leaf = {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'integer' }, note: { type: 'string' } },
    }
    const schema = {
      type: 'object',
      required: ['a'],
      properties: {
        a: { type: 'object', properties: { b: { type: 'object', properties: { c: leaf } } } },
        password: { type: 'string', writeOnly: true },
        optional: { type: 'boolean' },
      },
    }
    // depth 0, 1 and 2 get their optional properties; the leaf at depth 3 only its required id
    expect(generate(schema)).toEqual({ a: { b: { c: { id: 0 } } }, optional: true })
  })

  it('merges allOf members, with the properties and required lists of all', () => {
    const components = {
      NewPet: {
        required: ['name'],
        properties: { name: { type: 'string' }, tag: { type: 'string' } },
      },
    }
    const pet = {
      allOf: [
        { $ref: '#/components/schemas/NewPet' },
        { required: ['id'], properties: { id: { type: 'integer', format: 'int64', minimum: 1 } } },
      ],
    }
    expect(generate(pet, components)).toEqual({ name: 'string', tag: 'string', id: 1 })
  })

  it('takes the first branch of oneOf and anyOf that is not null', () => {
    expect(generate({ oneOf: [{ type: 'null' }, { type: 'integer', minimum: 3 }] })).toBe(3)
    expect(generate({ anyOf: [{ type: 'string', format: 'date' }, { type: 'integer' }] })).toBe(
      '2024-01-01',
    )
    expect(
      generate({
        type: 'object',
        properties: { kind: { type: 'string' } },
        oneOf: [{ properties: { size: { type: 'integer' } } }],
      }),
    ).toEqual({ kind: 'string', size: 0 })
  })

  it('generates a value, not null, for nullable schemas and 3.1 type lists', () => {
    expect(generate({ type: 'string', nullable: true })).toBe('string')
    expect(generate({ type: ['null', 'integer'] })).toBe(0)
    expect(generate({ type: 'null' })).toBeNull()
  })

  it('fills a map with one additionalProp1 entry and meets minProperties', () => {
    expect(generate({ type: 'object', additionalProperties: { type: 'integer' } })).toEqual({
      additionalProp1: 0,
    })
    expect(
      generate({ type: 'object', additionalProperties: { type: 'string' }, minProperties: 2 }),
    ).toEqual({ additionalProp1: 'string', additionalProp2: 'string' })
  })

  it('cuts recursion: an optional self-reference is left out, a required one gets an empty value', () => {
    const components = {
      Node: {
        type: 'object',
        required: ['name', 'parent'],
        properties: {
          name: { type: 'string' },
          parent: { $ref: '#/components/schemas/Node' },
          children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
        },
      },
    }
    expect(generate({ $ref: '#/components/schemas/Node' }, components)).toEqual({
      name: 'string',
      parent: {},
      children: [],
    })
  })

  it('terminates on references that loop without a schema in between', () => {
    const components = {
      A: { $ref: '#/components/schemas/B' },
      B: { $ref: '#/components/schemas/A' },
    }
    expect(generate({ $ref: '#/components/schemas/A' }, components)).toBeUndefined()
  })

  it('returns undefined for a schema that allows anything', () => {
    expect(generate({})).toBeUndefined()
    expect(generate(true)).toBeUndefined()
  })

  it('gives the same value for the same schema every time', () => {
    const schema = {
      type: 'object',
      properties: {
        id: { type: 'string', format: 'uuid' },
        at: { type: 'string', format: 'date-time' },
        n: { type: 'number' },
      },
    }
    expect(generate(schema)).toEqual(generate(schema))
    expect(JSON.stringify(generate(schema))).toBe(
      '{"id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","at":"2024-01-01T00:00:00Z","n":0}',
    )
  })
})

describe('generateExample on hostile schemas', () => {
  it('keeps samples small whatever minLength, minItems, minProperties or a pattern count ask for', () => {
    expect((generate({ type: 'string', minLength: 1e9 }) as string).length).toBe(10_000)
    expect(
      (generate({ type: 'array', items: { type: 'integer' }, minItems: 1e9 }) as unknown[]).length,
    ).toBe(100)
    expect(
      Object.keys(
        generate({
          type: 'object',
          additionalProperties: { type: 'integer' },
          minProperties: 1e9,
        }) as object,
      ),
    ).toHaveLength(100)
    expect(generate({ type: 'string', pattern: '^((a{256}){256}){256}$' })).toBe('string')
  })
})
