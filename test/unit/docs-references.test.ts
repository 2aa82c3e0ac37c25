import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

/*
 * Comments of the code, tests and benches point at docs/ by file and section
 * (`docs/decisions.md#capacity`), and ESLint's boundary messages at docs/architecture.md: every
 * such reference names a page and a heading that exist, so that a renamed heading cannot leave
 * the code pointing nowhere.
 */

const root = resolve(import.meta.dirname, '../..')

function filesUnder(dir: string, pattern: RegExp): string[] {
  const out: string[] = []
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...filesUnder(path, pattern))
    else if (pattern.test(entry.name)) out.push(path)
  }
  return out
}

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as dashes. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

function anchorsOf(page: string): Set<string> {
  const text = readFileSync(join(root, page), 'utf8').replace(/```[\s\S]*?```/g, '')
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1] ?? '')))
}

const sources = [
  ...filesUnder('src', /\.ts$/),
  ...filesUnder('ui/src', /\.tsx?$/),
  ...filesUnder('test', /\.ts$/),
  ...filesUnder('bench', /\.ts$/),
  'eslint.config.js',
]
const references = sources.flatMap((file) =>
  [...readFileSync(join(root, file), 'utf8').matchAll(/docs\/([\w/-]+\.md)(?:#([\w-]+))?/g)].map(
    (m) => ({ file, page: `docs/${m[1] ?? ''}`, anchor: m[2] }),
  ),
)

describe('references from the code to docs/', () => {
  it('are found (the scan works)', () => {
    expect(references.some((r) => r.page === 'docs/decisions.md' && r.anchor !== undefined)).toBe(
      true,
    )
  })

  it('name pages that exist', () => {
    const missing = references
      .filter((r) => !existsSync(join(root, r.page)))
      .map((r) => `${relative(root, join(root, r.file))}: ${r.page}`)
    expect(missing).toEqual([])
  })

  it('name sections that exist', () => {
    const anchors = new Map<string, Set<string>>()
    const missing = references
      .filter((r) => r.anchor !== undefined && existsSync(join(root, r.page)))
      .filter((r) => {
        if (!anchors.has(r.page)) anchors.set(r.page, anchorsOf(r.page))
        return !(anchors.get(r.page)?.has(r.anchor ?? '') ?? false)
      })
      .map((r) => `${r.file}: ${r.page}#${r.anchor ?? ''}`)
    expect(missing).toEqual([])
  })
})
