import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

// Defect: docs/dsl.md linked to `#cors`, a heading that does not exist (GitHub names it
// `#cors-cors`), and docs/regex.md said the `(?i)` rule twice in two paragraphs.

const root = resolve(import.meta.dirname, '../..')
const documents = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const line of text.replace(/```[\s\S]*?```/g, '').split('\n')) {
    const m = /^#{1,6}\s+(.*)$/.exec(line)
    if (m === null) continue
    const base = anchorOf(m[1] ?? '')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  return out
}

describe('the documentation', () => {
  it('links only to headings that exist in the same document', () => {
    const broken: string[] = []
    for (const doc of documents) {
      const text = readFileSync(join(root, doc), 'utf8')
      const anchors = anchorsOf(text)
      for (const m of text.matchAll(/\]\(#([^)\s]+)\)/g)) {
        if (!anchors.has(m[1] ?? '')) broken.push(`${doc}: #${m[1] ?? ''}`)
      }
    }
    expect(broken).toEqual([])
  })

  it('says the (?i) rule of regexes once', () => {
    const regex = readFileSync(join(root, 'docs/regex.md'), 'utf8')
    expect(regex.split('A leading Java-style `(?i)`')).toHaveLength(2)
  })
})
