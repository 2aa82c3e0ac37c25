/**
 * Path templates by segment, to find without a full scan which templates can match a literal path
 * and which templates may overlap another. A segment that is wholly or partly a `{name}` is
 * "wild": it may match any segment (a regex confirms later).
 *
 * @example
 * const trie = new TemplateTrie<string>()
 * trie.add('/pets/{id}', 'a')
 * trie.matchingPath('/pets/7') // ['a'] (candidates; confirm with the template's regex)
 */
export class TemplateTrie<V> {
  private readonly root = new TrieNode<V>()
  /** Segment counts of the templates added: a literal path of another length matches none. */
  private readonly depths = new Set<number>()

  add(template: string, value: V): void {
    let node = this.root
    const segments = segmentsOf(template)
    this.depths.add(segments.length)
    for (const segment of segments) {
      const wild = segment.includes('{')
      const children = wild ? node.wild : node.literal
      let child = children.get(segment)
      if (child === undefined) {
        child = new TrieNode<V>()
        children.set(segment, child)
      }
      node = child
    }
    node.values.push(value)
  }

  /** Values of templates whose literal segments agree with `path` (wild segments unchecked). */
  matchingPath(path: string): V[] {
    const out: V[] = []
    if (!this.depths.has(slashes(path))) return out
    walk(this.root, segmentsOf(path), 0, false, out)
    return out
  }

  /** Values of templates that may match some path `template` also matches. */
  overlapping(template: string): V[] {
    const out: V[] = []
    walk(this.root, segmentsOf(template), 0, true, out)
    return out
  }
}

class TrieNode<V> {
  readonly literal = new Map<string, TrieNode<V>>()
  readonly wild = new Map<string, TrieNode<V>>()
  readonly values: V[] = []
}

/** The number of segments of a path: its `/`s, counted without splitting it. */
function slashes(path: string): number {
  let n = 0
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) n++
  return n
}

function segmentsOf(path: string): string[] {
  return path.split('/').slice(1)
}

function walk<V>(
  node: TrieNode<V>,
  segments: string[],
  depth: number,
  queryIsTemplate: boolean,
  out: V[],
): void {
  if (depth === segments.length) {
    for (const v of node.values) out.push(v)
    return
  }
  const segment = segments[depth] as string
  if (queryIsTemplate && segment.includes('{')) {
    for (const child of node.literal.values()) {
      walk(child, segments, depth + 1, queryIsTemplate, out)
    }
  } else {
    const child = node.literal.get(segment)
    if (child !== undefined) walk(child, segments, depth + 1, queryIsTemplate, out)
  }
  for (const child of node.wild.values()) walk(child, segments, depth + 1, queryIsTemplate, out)
}
