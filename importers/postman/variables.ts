import { isObject, str } from '../shared/structured.js'

/** A piece of text after variable resolution: literal, or a variable nobody defines. */
export type Piece = { text: string } | { variable: string }

/** Variables in scope: the collection's, overridden by those of enclosing folders. */
export type Scope = ReadonlyMap<string, string>

const VARIABLE = /\{\{\s*([^{}]+?)\s*\}\}/g
// A variable may refer to another; stop following after this many levels (cycles).
const MAX_DEPTH = 5
/**
 * Characters the variables of one text may expand to. Values referring to others several times
 * multiply (`a` = `{{b}}{{b}}...` five levels deep): a few kilobytes of collection could otherwise
 * expand to gigabytes.
 */
const MAX_VARIABLE_EXPANSION = 1_048_576

/**
 * Adds the enabled entries of a Postman `variable` array to a scope.
 *
 * @example
 * scopeWith(new Map(), [{ key: 'host', value: 'api.example.com' }]).get('host') // 'api.example.com'
 */
export function scopeWith(scope: Scope, variables: unknown): Scope {
  if (!Array.isArray(variables) || variables.length === 0) return scope
  const out = new Map(scope)
  for (const v of variables) {
    if (!isObject(v) || v['disabled'] === true) continue
    const key = str(v['key']) ?? str(v['id'])
    const value = v['value']
    if (key === undefined) continue
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      out.set(key, String(value))
    }
  }
  return out
}

/**
 * Splits text into literal pieces and unknown `{{variables}}`, substituting the known ones
 * (recursively). Dynamic variables such as `{{$guid}}` are unknown by definition.
 *
 * @example
 * resolvePieces('/users/{{id}}/{{tab}}', new Map([['tab', 'info']])) // [{ text: '/users/' }, { variable: 'id' }, { text: '/info' }]
 */
export function resolvePieces(
  text: string,
  scope: Scope,
  depth = 0,
  budget = { left: MAX_VARIABLE_EXPANSION },
): Piece[] {
  const out: Piece[] = []
  let last = 0
  for (const m of text.matchAll(VARIABLE)) {
    const index = m.index
    if (index > last) push(out, { text: text.slice(last, index) })
    const name = m[1] ?? ''
    const value = scope.get(name)
    if (value !== undefined && depth < MAX_DEPTH) {
      budget.left -= value.length
      if (budget.left < 0) {
        throw new Error(
          `{{${name}}}: the variables of one value expand to more than ${MAX_VARIABLE_EXPANSION.toLocaleString('en-US')} characters, the limit (docs/limits.md)`,
        )
      }
      for (const piece of resolvePieces(value, scope, depth + 1, budget)) push(out, piece)
    } else {
      out.push({ variable: name })
    }
    last = index + m[0].length
  }
  if (last < text.length) push(out, { text: text.slice(last) })
  return out
}

function push(out: Piece[], piece: Piece): void {
  const prev = out[out.length - 1]
  if ('text' in piece && prev !== undefined && 'text' in prev) prev.text += piece.text
  else if (!('text' in piece) || piece.text !== '') out.push(piece)
}

/**
 * The text with known variables substituted and unknown ones left as written.
 *
 * @example
 * resolveText('Bearer {{token}}', new Map()) // 'Bearer {{token}}'
 */
export function resolveText(text: string, scope: Scope): string {
  return resolvePieces(text, scope)
    .map((p) => ('text' in p ? p.text : `{{${p.variable}}}`))
    .join('')
}

/**
 * True when a piece list is all literal.
 *
 * @example
 * isLiteral([{ text: '/a' }]) // true
 */
export function isLiteral(pieces: readonly Piece[]): boolean {
  return pieces.every((p) => 'text' in p)
}
