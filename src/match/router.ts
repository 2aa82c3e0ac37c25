import { isTemplate, normalizeTemplate, routerPatternOf, templateRegex } from './path.js'
import { byPriorityThenNewest, type CompiledTransaction } from './compiled.js'
import type { UrlPredicate } from './predicates/index.js'
import { TemplateTrie } from './template-trie.js'
import { TemplateRoutes } from './template-routes.js'
import { prepareUrl } from './predicates/url.js'
import { buildDiscriminator, MIN_INDEXED, type Discriminator } from './discriminator.js'

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

function listOf<P>(candidates: Array<Candidate<P>>): CandidateList<P> {
  // Url checks left for request time are readied now (a template's regex), never per request.
  for (const c of candidates) prepareUrl(c.url)
  // Most routes of a large document hold one candidate: no list of its transactions built for them.
  const discriminator =
    candidates.length < MIN_INDEXED ? null : buildDiscriminator(candidates.map((c) => c.txn))
  return { candidates, discriminator }
}

interface TemplateRoute<P> {
  readonly template: string
  readonly pattern: string
  readonly txns: Array<CompiledTransaction<P>>
  /** The template as a regex, compiled when a literal path first needs it (most templates never do). */
  regex: RegExp | null
}

/** Candidates in the order to try them: the order of byPriorityThenNewest, which is total. */
function inOrder<P>(list: Array<Candidate<P>>): Array<Candidate<P>> {
  return list.sort((a, b) => byPriorityThenNewest(a.txn, b.txn))
}

/**
 * The candidates of one method: literal paths in a Map (exact after normalization, and cheaper
 * than any tree), `{name}` templates in a segment tree (TemplateRoutes), and the rest (regex, contains, no url) in a
 * fallback chain. Every list is complete for its route and sorted at compile time (priority, then
 * newest), so that a request costs one lookup plus a short loop, never a scan of all transactions.
 * Built by methodRoutesSteps.
 */
export class MethodRoutes<P> {
  /**
   * The path of the last lookup and its candidates. Requests come in runs to one path (a client's
   * loop, a load test), and comparing the path with the last one costs a fifth of hashing a fresh
   * string for the Map. Both are replaced, never grown: one short string per method.
   */
  private lastPath = ''
  private lastFound: CandidateList<P>

  constructor(
    private readonly literals: ReadonlyMap<string, CandidateList<P>>,
    private readonly templates: TemplateRoutes<CandidateList<P>> | null,
    private readonly fallback: CandidateList<P>,
  ) {
    this.lastFound = this.lookup('')
  }

  /** The candidates for a normalized path, in the order to try them. */
  // HOT PATH: a comparison with the last path, or one Map lookup; the template tree only when the
  // path is not a literal route.
  candidatesFor(path: string): CandidateList<P> {
    if (path === this.lastPath) return this.lastFound
    const found = this.lookup(path)
    this.lastPath = path
    this.lastFound = found
    return found
  }

  private lookup(path: string): CandidateList<P> {
    const literal = this.literals.get(path)
    if (literal !== undefined) return literal
    if (this.templates !== null) {
      const found = this.templates.find(path)
      if (found !== null) return found
    }
    return this.fallback
  }
}

/**
 * Builds the MethodRoutes of `transactions` (given in the order to try them, byPriorityThenNewest),
 * yielding after each route or transaction, so that a caller can build 100,000s of routes in time
 * slices (compileMatcherSliced) or at once.
 */
export function* methodRoutesSteps<P>(
  transactions: ReadonlyArray<CompiledTransaction<P>>,
): Generator<void, MethodRoutes<P>, void> {
  // Group transactions by how their url can be indexed.
  const literalGroups = new Map<string, Array<CompiledTransaction<P>>>()
  const templates = new Map<string, TemplateRoute<P>>()
  const others: Array<CompiledTransaction<P>> = [] // regex / contains / ... and no url at all
  for (const t of transactions) {
    if (t.url === null || t.url.matcherName !== 'equals_url') {
      others.push(t)
      yield
      continue
    }
    const template = normalizeTemplate(t.url.expected)
    if (!isTemplate(template)) {
      const group = literalGroups.get(template)
      if (group === undefined) literalGroups.set(template, [t])
      else group.push(t)
      yield
      continue
    }
    const pattern = routerPatternOf(template)
    if (pattern === null) {
      others.push(t)
      yield
      continue
    }
    const route = templates.get(pattern)
    if (route === undefined) templates.set(pattern, { template, pattern, txns: [t], regex: null })
    else route.txns.push(t)
    yield
  }
  const trie = new TemplateTrie<TemplateRoute<P>>()
  for (const route of templates.values()) {
    trie.add(route.template, route)
    yield
  }

  // Literal routes: everything whose url holds on that exact path, decided now. A group alone
  // (no template or dynamic url holds there) is already in order.
  const literals = new Map<string, CandidateList<P>>()
  for (const [path, group] of literalGroups) {
    const list: Array<Candidate<P>> = group.map((txn) => ({ txn, url: null }))
    for (const route of trie.matchingPath(path)) {
      route.regex ??= templateRegex(route.template)
      if (route.regex.test(path)) for (const txn of route.txns) list.push({ txn, url: null })
    }
    for (const txn of others) {
      if (txn.url === null || txn.url.testPath(path)) list.push({ txn, url: null })
    }
    literals.set(path, listOf(list.length === group.length ? list : inOrder(list)))
    yield
  }

  // Template routes: the route's own transactions need no url check; overlapping templates and
  // dynamic matchers are checked at request time.
  let templateRoutes: TemplateRoutes<CandidateList<P>> | null = null
  if (templates.size > 0) {
    templateRoutes = new TemplateRoutes()
    for (const route of templates.values()) {
      // Placeholders inside a segment (`{name}.json`) keep their url check, as a safeguard
      // beside the tree's own segment regex.
      const partial = route.template
        .split('/')
        .some((segment) => segment.includes('{') && !/^\{[^{}]+\}$/.test(segment))
      const list: Array<Candidate<P>> = route.txns.map((txn) => ({
        txn,
        url: partial ? txn.url : null,
      }))
      for (const other of trie.overlapping(route.template)) {
        if (other !== route) for (const txn of other.txns) list.push({ txn, url: txn.url })
      }
      for (const txn of others) list.push({ txn, url: txn.url })
      templateRoutes.add(
        route.template,
        listOf(list.length === route.txns.length ? list : inOrder(list)),
      )
      yield
    }
  }

  return new MethodRoutes(
    literals,
    templateRoutes,
    listOf(others.map((txn) => ({ txn, url: txn.url }))),
  )
}
