import type { SchemaObject } from 'ajv'
import { dslSchemas } from './transaction.js'

/** Where the published schema lives in the repository and the package. */
export const publishedSchemaPath = 'schema/understudy.schema.json'

/**
 * The DSL's JSON Schema as one self-contained draft-07 document for editors (VS Code, JetBrains,
 * yaml-language-server): the internal `understudy:*` schemas become `definitions`, and the root
 * accepts every shape a DSL file may hold (a mock-service document, a list of transactions or
 * bare dsls, one transaction, one dsl). `npm run schema` writes it; a test keeps the file in sync.
 *
 * @example
 * JSON.stringify(publishedSchema(), null, 2)
 */
export function publishedSchema(): SchemaObject {
  const definitions: Record<string, unknown> = {}
  for (const schema of dslSchemas) {
    const { $id, ...rest } = schema as SchemaObject & { $id: string }
    definitions[nameOf($id)] = rewriteRefs(rest)
  }
  // the document schema leaves its items open (they are validated one by one); editors want them
  const document = definitions['mock-service'] as { properties: Record<string, unknown> }
  document.properties['transactions'] = {
    type: 'array',
    items: { $ref: '#/definitions/transaction-or-dsl' },
  }
  definitions['transaction-or-dsl'] = {
    anyOf: [{ $ref: '#/definitions/transaction' }, { $ref: '#/definitions/dsl' }],
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://unpkg.com/@understudy-mock/understudy/schema/understudy.schema.json',
    title: 'Understudy mock definition',
    description:
      'A file Understudy serves: a mock-service document, a list of transactions, one transaction, or one dsl (docs/dsl.md).',
    anyOf: [
      { $ref: '#/definitions/mock-service' },
      { type: 'array', items: { $ref: '#/definitions/transaction-or-dsl' } },
      { $ref: '#/definitions/transaction-or-dsl' },
    ],
    definitions,
  }
}

function nameOf(id: string): string {
  return id.replace(/^understudy:/, '')
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs)
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof inner === 'string' && inner.startsWith('understudy:')
        ? `#/definitions/${nameOf(inner)}`
        : rewriteRefs(inner)
  }
  return out
}
