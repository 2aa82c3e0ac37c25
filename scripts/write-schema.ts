// `npm run schema`: writes the DSL's JSON Schema for editors (test/unit/dsl/published-schema.test.ts
// fails when the file and src/dsl/schema differ).
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { publishedSchema, publishedSchemaPath } from '../src/dsl/index.js'

writeFileSync(
  resolve(import.meta.dirname, '..', publishedSchemaPath),
  `${JSON.stringify(publishedSchema(), null, 2)}\n`,
)
