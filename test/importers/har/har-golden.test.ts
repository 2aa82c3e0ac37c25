import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadDefinitionText } from '../../../src/dsl/index.js'
import { importHar } from '../../../importers/har/index.js'

// Golden files: fixtures/<case>.har in, fixtures/<case>.expected.yaml out. The expected file is
// hand-written DSL (`text:` shorthands allowed) and is normalized by the DSL loader itself, so the
// comparison is between parsed, normalized documents, never between strings.
const fixtures = join(import.meta.dirname, 'fixtures')
const cases = readdirSync(fixtures)
  .filter((f) => f.endsWith('.expected.yaml'))
  .map((f) => f.replace(/\.expected\.yaml$/, ''))

describe('importHar golden files', () => {
  it('has golden cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(2)
  })

  it.each(cases)('imports fixtures/%s.har as its expected document', (name) => {
    const input = `${name}.har`
    const result = importHar({ bytes: readFileSync(join(fixtures, input)), fileName: input })
    const expected = loadDefinitionText(
      readFileSync(join(fixtures, `${name}.expected.yaml`), 'utf8'),
      `${name}.expected.yaml`,
    )
    expect(result.document).toEqual(expected)
  })
})
