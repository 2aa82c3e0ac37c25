import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

/*
 * Code and comments name concepts, not the history that brought them: no "issue N" or "session N",
 * and references point at this repository's docs/, not at documents outside it (the design notes
 * and specifications the project started from).
 */

const root = join(import.meta.dirname, '..', '..')
const HISTORY = /\bissue ?#?\d+\b|\bsession \d+\b|DESIGN\.md|STYLE\.md|spec\/00\d/i

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(ts|tsx)$/.test(name))
    .map((name) => join(root, dir, name))
}

describe('code that explains itself', () => {
  it('has no issue or session numbers and no references to documents outside the repository', () => {
    const found: string[] = []
    for (const file of ['src', 'ui', 'importers', 'scripts'].flatMap(sources)) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (HISTORY.test(line)) found.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`)
        })
    }
    expect(found).toEqual([])
  })

  it('catches what it looks for', () => {
    expect(
      [
        '// issue 12: forward',
        '(DESIGN.md section 3)',
        'spec/002 "Transaction"',
        'session 9',
      ].every((l) => HISTORY.test(l)),
    ).toBe(true)
    expect(HISTORY.test('// product DSL compatibility: see docs/dsl.md#order')).toBe(false)
  })
})
