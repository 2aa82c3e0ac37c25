import type { MatcherInput } from '../../src/dsl/index.js'

/*
 * Mockoon route endpoints are Express paths: literal segments, `:name` parameters and, less often,
 * `*` wildcards, optional `?` and `(...)` groups. Plain endpoints become `equals_url` templates
 * (`users/:id` -> `/users/{id}`); anything else a whole-path regex.
 */

const PARAM = /^:([A-Za-z_][\w-]*)$/
const PLAIN_SEGMENT = /^[^*?()+[\]{}\\:]*$/

/** A parsed endpoint: its url matcher and the names of its parameters, in order. */
export interface RoutePath {
  url: MatcherInput
  /** The path as written, with the prefix (`/api/users/:id`), for names and messages. */
  display: string
  /** Parameter names, by segment index (undefined for literal segments). */
  params: Array<string | undefined>
  /** Literal segments, by index (undefined for parameters). */
  literals: Array<string | undefined>
}

/**
 * The url matcher of a route: `endpointPrefix` and `endpoint` joined with one `/`.
 *
 * @example
 * routePath('api', 'users/:id').url // { matcherName: 'equals_url', matchingValue: '/api/users/{id}' }
 */
export function routePath(prefix: string, endpoint: string): RoutePath {
  const joined = [prefix, endpoint]
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter((p) => p !== '')
    .join('/')
  const segments = joined === '' ? [] : joined.split('/')
  const display = `/${joined}`
  const params = segments.map((s) => PARAM.exec(s)?.[1])
  const literals = segments.map((s, i) => (params[i] === undefined ? s : undefined))
  const plain = segments.every((s, i) => params[i] !== undefined || PLAIN_SEGMENT.test(s))
  if (plain) {
    const template = segments
      .map((s, i) => (params[i] === undefined ? s : `{${params[i] ?? ''}}`))
      .join('/')
    return {
      url: { matcherName: 'equals_url', matchingValue: `/${template}` },
      display,
      params,
      literals,
    }
  }
  return {
    url: { matcherName: 'matches_url', matchingValue: expressRegex(segments) },
    display,
    params,
    literals,
  }
}

/**
 * The url matcher of a route whose parameter `name` must satisfy `valuePattern` (a regex of the
 * segment, already whole-value): the parameter's segment takes the pattern.
 *
 * @example
 * paramPath(routePath('', 'rules/:id'), 'id', '1.*') // matches_url ^/rules/(?:1.*)$ (as a whole-path regex)
 */
export function paramPath(
  path: RoutePath,
  name: string,
  valuePattern: string,
): MatcherInput | undefined {
  const at = path.params.indexOf(name)
  if (at < 0) return undefined
  // the other segments keep their Express syntax: a `*` there still matches anything
  const parts = path.params.map((p, i) =>
    i === at
      ? `(?:${valuePattern})`
      : p !== undefined
        ? '[^/]+'
        : segmentRegex(path.literals[i] ?? ''),
  )
  return { matcherName: 'matches_url', matchingValue: `/${parts.join('/')}` }
}

/** Express path syntax (path-to-regexp 0.1, as Mockoon uses) as a whole-path regex. */
function expressRegex(segments: readonly string[]): string {
  return `/${segments.map(segmentRegex).join('/')}`
}

/** One segment of an Express path as a regex: parameters, `*`, optional `?` and groups. */
function segmentRegex(segment: string): string {
  let re = ''
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i] as string
    const param = /^:([A-Za-z_]\w*)/.exec(segment.slice(i))
    if (param !== null) {
      re += '[^/]+'
      i += param[0].length - 1
    } else if (c === '*') {
      re += '.*'
    } else if (c === '?' || c === '+' || c === '(' || c === ')') {
      re += c === '(' ? '(?:' : c
    } else {
      re += escapeRegex(c)
    }
  }
  return re
}

/**
 * A string as a regex that matches exactly it.
 *
 * @example
 * escapeRegex('a.b') // 'a\\.b'
 */
export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}
