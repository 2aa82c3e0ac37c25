import FindMyWay from 'find-my-way'
import { isTemplate, normalizeTemplate, routerKeyOf, routerPatternOf, templateRegex } from './path.js'
import { byPriorityThenNewest, type CompiledTransaction } from './compiled.js'
import type { UrlPredicate } from './predicates/index.js'
import { TemplateTrie } from './template-trie.js'
import { buildDiscriminator, type Discriminator } from './discriminator.js'

/**
 * A transaction as it appears in one candidate list. `url` is the url predicate still to check at
 * request time, or null when the list's route already guarantees it.
 */
export interface Candidate<P> {
  readonly txn: CompiledTransaction<P>
  readonly url: UrlPredicate | null
}

/** The candidates of one route, in the order to try them, with an index when one pays off. */
interface CandidateList<P> {
  readonly candidates: ReadonlyArray<Candidate<P>>
  readonly discriminator: Discriminator | null
}

function listOf<P> (candidates: Array<Candidate<P>>): CandidateList<P> {
  return { candidates, discriminator: buildDiscriminator(candidates.map((c) => c.txn)) }
}

interface TemplateRoute<P> {
  readonly template: string
  readonly pattern: string
  readonly regex: RegExp
  readonly txns: Array<CompiledTransaction<P>>
}

/**
 * The candidates of one method: literal paths in a Map (exact after normalization, and cheaper
 * than any tree), `{name}` templates in find-my-way, and the rest (regex, contains, no url) in a
 * fallback chain. Every list is complete for its route and sorted at compile time (priority, then
 * newest), so that a request costs one lookup plus a short loop, never a scan of all transactions.
 */
export class MethodRoutes<P> {
  private readonly literals = new Map<string, CandidateList<P>>()
  private readonly router: FindMyWay.Instance<FindMyWay.HTTPVersion.V1> | null = null
  private readonly fallback: CandidateList<P>

  constructor (transactions: ReadonlyArray<CompiledTransaction<P>>) {
    const sorted = [...transactions].sort(byPriorityThenNewest)
    const rank = new Map<CompiledTransaction<P>, number>()
    sorted.forEach((t, i) => rank.set(t, i))
    const inOrder = (list: Array<Candidate<P>>) => list.sort((a, b) => (rank.get(a.txn) ?? 0) - (rank.get(b.txn) ?? 0))

    // Group transactions by how their url can be indexed.
    const literalGroups = new Map<string, Array<CompiledTransaction<P>>>()
    const templates = new Map<string, TemplateRoute<P>>()
    const others: Array<CompiledTransaction<P>> = [] // regex / contains / ... and no url at all
    for (const t of sorted) {
      if (t.url === null || t.url.matcherName !== 'equals_url') {
        others.push(t)
        continue
      }
      const template = normalizeTemplate(t.url.expected)
      if (!isTemplate(template)) {
        const group = literalGroups.get(template)
        if (group === undefined) literalGroups.set(template, [t])
        else group.push(t)
        continue
      }
      const pattern = routerPatternOf(template)
      if (pattern === null) {
        others.push(t)
        continue
      }
      const route = templates.get(pattern)
      if (route === undefined) templates.set(pattern, { template, pattern, regex: templateRegex(template), txns: [t] })
      else route.txns.push(t)
    }
    const trie = new TemplateTrie<TemplateRoute<P>>()
    for (const route of templates.values()) trie.add(route.template, route)

    // Literal routes: everything whose url holds on that exact path, decided now.
    for (const [path, group] of literalGroups) {
      const list: Array<Candidate<P>> = group.map((txn) => ({ txn, url: null }))
      for (const route of trie.matchingPath(path)) {
        if (route.regex.test(path)) for (const txn of route.txns) list.push({ txn, url: null })
      }
      for (const txn of others) {
        if (txn.url === null || txn.url.testPath(path)) list.push({ txn, url: null })
      }
      this.literals.set(path, listOf(inOrder(list)))
    }

    // Template routes: the route's own transactions need no url check; overlapping templates and
    // dynamic matchers are checked at request time.
    if (templates.size > 0) {
      const router = FindMyWay({ maxParamLength: 65_535, caseSensitive: true })
      for (const route of templates.values()) {
        // find-my-way lets a parameter inside a segment be empty (`/files/:p0.json` takes
        // `/files/.json`); a `{name}` must not be, so such templates keep their url check.
        const partial = route.template.split('/').some((segment) => segment.includes('{') && !/^\{[^{}]+\}$/.test(segment))
        const list: Array<Candidate<P>> = route.txns.map((txn) => ({ txn, url: partial ? txn.url : null }))
        for (const other of trie.overlapping(route.template)) {
          if (other !== route) for (const txn of other.txns) list.push({ txn, url: txn.url })
        }
        for (const txn of others) list.push({ txn, url: txn.url })
        router.on('GET', route.pattern, noop, listOf(inOrder(list)))
      }
      this.router = router
    }

    this.fallback = listOf(others.map((txn) => ({ txn, url: txn.url })))
  }

  /** The candidates for a normalized path, in the order to try them. */
  // HOT PATH: one Map lookup; find-my-way only when the path is not a literal route.
  candidatesFor (path: string): CandidateList<P> {
    const literal = this.literals.get(path)
    if (literal !== undefined) return literal
    if (this.router !== null) {
      const found = this.router.find('GET', routerKeyOf(path))
      if (found !== null) return found.store as CandidateList<P>
    }
    return this.fallback
  }
}

function noop (): void {}
