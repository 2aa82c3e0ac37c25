/**
 * A deterministic string for a regular expression: enough of a regex parser to build one string
 * the pattern accepts, taking the first alternative, the first character of a class and one
 * repetition of `*`, `+` and `?` (the lower bound of `{n,m}`, at least one unless the bound is 0).
 * Lookarounds and back-references produce nothing. The caller checks the result against the
 * pattern and falls back when it does not match.
 */

interface Cursor {
  src: string
  pos: number
}

const classFallbacks = ['a', 'A', '0', 'x', '_', '-', ' ', '.']

/** Largest repetition count honoured; `{1000000}` is not worth a megabyte of sample. */
const MAX_REPEAT = 256
/** Longest sample built; nested counts (`((a{256}){256}){256}`) give up instead of filling memory. */
const MAX_LENGTH = 10_000

/**
 * Builds a string that `pattern` should match, or undefined when the pattern is not a valid
 * JavaScript regex or the result does not match it.
 *
 * @example
 * stringForPattern('^[A-Z]{2}-\\d{3}$') // 'AA-000'
 */
export function stringForPattern(pattern: string): string | undefined {
  let re: RegExp
  try {
    re = new RegExp(pattern, 'u')
  } catch {
    try {
      re = new RegExp(pattern)
    } catch {
      return undefined
    }
  }
  let out: string
  try {
    out = alternation({ src: pattern, pos: 0 })
  } catch {
    return undefined
  }
  return re.test(out) ? out : undefined
}

function alternation(c: Cursor): string {
  const first = sequence(c)
  // Later alternatives are parsed only to move past them.
  while (c.src[c.pos] === '|') {
    c.pos++
    sequence(c)
  }
  return first
}

function sequence(c: Cursor): string {
  let out = ''
  while (c.pos < c.src.length && c.src[c.pos] !== '|' && c.src[c.pos] !== ')') {
    const atom = readAtom(c)
    const times = quantifier(c)
    if (out.length + atom.length * times > MAX_LENGTH) throw new Error('sample too long')
    out += atom.repeat(times)
  }
  return out
}

function readAtom(c: Cursor): string {
  const ch = c.src[c.pos++] ?? ''
  switch (ch) {
    case '^':
    case '$':
      return ''
    case '.':
      return 'a'
    case '(':
      return group(c)
    case '[':
      return charClass(c)
    case '\\':
      return escape(c, false)
    default:
      return ch
  }
}

function group(c: Cursor): string {
  let lookaround = false
  if (c.src[c.pos] === '?') {
    const next = c.src[c.pos + 1]
    if (next === ':') c.pos += 2
    else if (next === '=' || next === '!') {
      lookaround = true
      c.pos += 2
    } else if (next === '<' && (c.src[c.pos + 2] === '=' || c.src[c.pos + 2] === '!')) {
      lookaround = true
      c.pos += 3
    } else if (next === '<') {
      c.pos = c.src.indexOf('>', c.pos) + 1
    }
  }
  const inner = alternation(c)
  if (c.src[c.pos] !== ')') throw new Error('unbalanced group')
  c.pos++
  return lookaround ? '' : inner
}

function charClass(c: Cursor): string {
  const negated = c.src[c.pos] === '^'
  if (negated) c.pos++
  const members: Array<[string, string]> = []
  let first = true
  while (c.pos < c.src.length && (c.src[c.pos] !== ']' || first)) {
    first = false
    let lo = c.src[c.pos++] ?? ''
    if (lo === '\\') lo = escape(c, true)
    let hi = lo
    if (c.src[c.pos] === '-' && c.src[c.pos + 1] !== ']' && c.pos + 1 < c.src.length) {
      c.pos++
      hi = c.src[c.pos++] ?? ''
      if (hi === '\\') hi = escape(c, true)
    }
    members.push([lo, hi])
  }
  if (c.src[c.pos] !== ']') throw new Error('unterminated class')
  c.pos++
  const inClass = (ch: string): boolean => members.some(([lo, hi]) => ch >= lo && ch <= hi)
  if (!negated) {
    // Prefer a letter or digit from the class when it has one: friendlier than punctuation.
    return classFallbacks.find(inClass) ?? members[0]?.[0] ?? ''
  }
  return classFallbacks.find((ch) => !inClass(ch)) ?? '~'
}

/** The character an escape stands for (for classes, `\d` is its first member). */
function escape(c: Cursor, inClass: boolean): string {
  const ch = c.src[c.pos++] ?? ''
  switch (ch) {
    case 'd':
      return '0'
    case 'w':
      return 'a'
    case 's':
      return ' '
    case 'D':
    case 'W':
    case 'S':
      return ch === 'D' ? 'a' : ch === 'W' ? '-' : 'a'
    case 'b':
      return inClass ? '\b' : ''
    case 'B':
      return ''
    case 'n':
      return '\n'
    case 't':
      return '\t'
    case 'r':
      return '\r'
    case 'x': {
      const hex = c.src.slice(c.pos, c.pos + 2)
      c.pos += 2
      return String.fromCharCode(parseInt(hex, 16))
    }
    case 'u': {
      if (c.src[c.pos] === '{') {
        const end = c.src.indexOf('}', c.pos)
        const code = parseInt(c.src.slice(c.pos + 1, end), 16)
        c.pos = end + 1
        return String.fromCodePoint(code)
      }
      const hex = c.src.slice(c.pos, c.pos + 4)
      c.pos += 4
      return String.fromCharCode(parseInt(hex, 16))
    }
    case 'p':
    case 'P':
      // \p{L} and the like: skip the property name; a letter satisfies the common ones.
      if (c.src[c.pos] === '{') c.pos = c.src.indexOf('}', c.pos) + 1
      return ch === 'p' ? 'a' : '0'
    default:
      if (/[1-9]/.test(ch)) return '' // back-reference
      return ch
  }
}

/** How many times to repeat the atom just read. */
function quantifier(c: Cursor): number {
  const ch = c.src[c.pos]
  let times = 1
  if (ch === '*' || ch === '+' || ch === '?') {
    c.pos++
  } else if (ch === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(c.src.slice(c.pos))
    if (m === null) return 1
    c.pos += m[0].length
    const min = Number(m[1])
    const max =
      m[3] === undefined || m[3] === '' ? (m[2] === undefined ? min : Infinity) : Number(m[3])
    // A count beyond MAX_REPEAT gives a string that fails the final check, so the caller falls back.
    times = Math.min(min > 0 ? min : Math.min(1, max), MAX_REPEAT)
  } else {
    return 1
  }
  if (c.src[c.pos] === '?') c.pos++ // lazy
  return times
}
