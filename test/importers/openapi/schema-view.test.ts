import { describe, expect, it } from 'vitest'
import { RefResolver } from '../../../importers/openapi/index.js'
import { pickType, viewSchema } from '../../../importers/openapi/schema-view.js'

// The flattened view examples are generated from: references followed, allOf members merged (the
// stricter of two bounds, the common enum values, the common types), one oneOf/anyOf branch chosen.
const resolver = new RefResolver(
  {
    openapi: '3.1.0',
    components: { schemas: { Anything: true, NotASchema: 'text', Null: { type: 'null' } } },
  },
  { fileName: 'api.yaml', warn: () => {} },
)
const view = (node: unknown) => viewSchema(node, resolver, new Set())

describe('viewSchema', () => {
  it('reads a reference to true as the empty schema, and one to nothing usable as no schema', () => {
    expect(view({ $ref: '#/components/schemas/Anything' })).toEqual({
      schema: {},
      refs: ['#/components/schemas/Anything'],
    })
    expect(view({ $ref: '#/components/schemas/NotASchema' })).toBeUndefined()
    expect(view({ $ref: '#/components/schemas/Missing' })).toBeUndefined()
  })

  it('merges allOf members: common type, stricter bounds, common enum values, both item schemas, closed objects', () => {
    expect(
      view({
        allOf: [
          {
            type: 'number',
            minimum: 1,
            maximum: 9,
            enum: [1, 2, 3],
            items: { type: 'a' },
            nullable: true,
          },
          {
            type: 'integer',
            minimum: 3,
            maximum: 5,
            enum: [2, 3, 4],
            items: { type: 'b' },
            additionalProperties: false,
          },
        ],
      }),
    ).toEqual({
      schema: {
        type: 'integer',
        minimum: 3,
        maximum: 5,
        enum: [2, 3],
        items: { allOf: [{ type: 'a' }, { type: 'b' }] },
        additionalProperties: false,
      },
      refs: [],
    })
  })

  it('intersects type lists, reading number and integer together as integer', () => {
    expect(
      view({ type: ['integer', 'string', 'number'], allOf: [{ type: ['number', 'string'] }] }),
    ).toEqual({
      schema: { type: ['integer', 'string'] },
      refs: [],
    })
  })

  it('keeps the first enum when two have no value in common', () => {
    expect(view({ allOf: [{ enum: [1] }, { enum: [2] }] })).toEqual({
      schema: { enum: [1] },
      refs: [],
    })
  })

  it('allows null only when every member does', () => {
    expect(view({ type: 'string', nullable: true, allOf: [{ type: 'string' }] })).toEqual({
      schema: { type: 'string' },
      refs: [],
    })
  })

  it('chooses the first branch that is not null, else the first', () => {
    expect(view({ anyOf: [{ enum: [null] }, { type: 'integer' }] })).toEqual({
      schema: { type: 'integer' },
      refs: [],
    })
    expect(view({ oneOf: [{ $ref: '#/components/schemas/Null' }, { enum: [null] }] })).toEqual({
      schema: { type: 'null' },
      refs: ['#/components/schemas/Null'],
    })
  })

  it('stops following allOf nested deeper than 32 levels', () => {
    let deep: unknown = { type: 'integer' }
    for (let i = 0; i < 40; i++) deep = { allOf: [deep] }
    expect(view(deep)).toEqual({ schema: {}, refs: [] })
  })
})

describe('pickType', () => {
  it.each([
    [{ type: [] }, undefined],
    [{ type: ['null'] }, 'null'],
    [{ additionalProperties: false }, 'object'],
    [{ required: [] }, 'object'],
    [{ prefixItems: [] }, 'array'],
    [{ pattern: 'x' }, 'string'],
    [{ minLength: 1 }, 'string'],
    [{ format: 'date' }, 'string'],
    [{ maximum: 3 }, 'number'],
    [{ multipleOf: 2 }, 'number'],
    [{ description: 'x' }, undefined],
  ])('reads %j as %s', (schema, type) => {
    expect(pickType(schema)).toBe(type)
  })
})
