import { templateRegex } from './path.js'

/** A whole segment that is one placeholder: `{id}`. */
const WHOLE_PARAM = /^\{[^{}/]+\}$/
/** Placeholders inside a segment, to key `{a}.json` and `{b}.json` as one. */
const PARAM = /\{[^{}/]+\}/g

class RouteNode<V> {
  literal: Map<string, RouteNode<V>> | null = null
  /** Segments mixing text and placeholders (`{name}.json`), each with its regex. */
  partial: Array<{
    readonly key: string
    readonly segment: RegExp
    readonly node: RouteNode<V>
  }> | null = null
  /** A whole-segment placeholder, whatever its name. */
  param: RouteNode<V> | null = null
  value: V | null = null
}

/**
 * The routes of `{name}` templates by segment, looked up per request: a literal segment first,
 * then a segment with placeholders inside it, then a whole-segment placeholder (which matches any
 * non-empty segment), backtracking when a branch ends without a route. Adding a template is a
 * walk down its segments: no per-route compilation, so that 100,000s of templates load in a
 * fraction of a second (find-my-way built functions for each route). Paths and templates are
 * normalized (path.ts) before they get here.
 *
 * @example
 * const routes = new TemplateRoutes<string>()
 * routes.add('/pets/{id}', 'pet')
 * routes.find('/pets/7') // 'pet'
 */
export class TemplateRoutes<V> {
  readonly #root = new RouteNode<V>()
  /** Segments of the longest template: a longer path matches none. */
  #depth = 0

  /** Adds a route; a template equal to one added before (placeholder names aside) replaces it. */
  add(template: string, value: V): void {
    const segments = template.split('/')
    this.#depth = Math.max(this.#depth, segments.length - 1)
    let node = this.#root
    for (let i = 1; i < segments.length; i++) {
      node = childOf(node, segments[i] as string)
    }
    node.value = value
  }

  /** The route of the first template (in the order above) that matches `path`, or null. */
  // HOT PATH: only for paths that are not literal routes.
  find(path: string): V | null {
    const segments = path.split('/')
    if (segments.length - 1 > this.#depth) return null
    return findFrom(this.#root, segments, 1)
  }
}

function childOf<V>(node: RouteNode<V>, segment: string): RouteNode<V> {
  if (!segment.includes('{')) {
    node.literal ??= new Map()
    let child = node.literal.get(segment)
    if (child === undefined) {
      child = new RouteNode<V>()
      node.literal.set(segment, child)
    }
    return child
  }
  if (WHOLE_PARAM.test(segment)) {
    node.param ??= new RouteNode<V>()
    return node.param
  }
  const key = segment.replace(PARAM, '{}')
  node.partial ??= []
  const known = node.partial.find((p) => p.key === key)
  if (known !== undefined) return known.node
  const child = new RouteNode<V>()
  node.partial.push({ key, segment: templateRegex(segment), node: child })
  return child
}

function findFrom<V>(node: RouteNode<V>, segments: readonly string[], i: number): V | null {
  if (i === segments.length) return node.value
  const segment = segments[i] as string
  const literal = node.literal?.get(segment)
  if (literal !== undefined) {
    const found = findFrom(literal, segments, i + 1)
    if (found !== null) return found
  }
  if (node.partial !== null) {
    for (let p = 0; p < node.partial.length; p++) {
      const partial = node.partial[p] as NonNullable<RouteNode<V>['partial']>[number]
      if (!partial.segment.test(segment)) continue
      const found = findFrom(partial.node, segments, i + 1)
      if (found !== null) return found
    }
  }
  if (node.param !== null && segment !== '') return findFrom(node.param, segments, i + 1)
  return null
}
