import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadDefinitionText } from '../../../src/dsl/index.js'
import { importOpenApi } from '../../../importers/openapi/index.js'

// Golden files: fixtures/<case>.<yaml|json> in, fixtures/<case>.expected.yaml out. The expected
// file is hand-written DSL (`json:`/`text:` shorthands allowed) normalized by the DSL loader,
// so parsed documents are compared, never strings. Files that descriptions reference live in
// fixtures/shared/ and are read through ImportContext.readFile, relative to fixtures/.
const fixtures = join(import.meta.dirname, 'fixtures')
const cases = readdirSync(fixtures)
  .filter((f) => f.endsWith('.expected.yaml'))
  .map((f) => f.replace(/\.expected\.yaml$/, ''))
  .map((name) => ({
    name,
    input:
      readdirSync(fixtures).find(
        (f) => f.startsWith(`${name}.`) && !f.endsWith('.expected.yaml'),
      ) ?? '',
  }))

const readFile = (path: string): Uint8Array | undefined => {
  const full = join(fixtures, path)
  return existsSync(full) ? readFileSync(full) : undefined
}

describe('importOpenApi golden files', () => {
  it('has golden cases for 2.0, 3.0 and 3.1', () => {
    expect(cases.length).toBeGreaterThanOrEqual(3)
  })

  it.each(cases)('imports fixtures/$input as its expected document', ({ name, input }) => {
    const result = importOpenApi(
      { bytes: readFileSync(join(fixtures, input)), fileName: input },
      { readFile },
    )
    const expected = loadDefinitionText(
      readFileSync(join(fixtures, `${name}.expected.yaml`), 'utf8'),
      `${name}.expected.yaml`,
    )
    expect(result.document).toEqual(expected)
  })
})
