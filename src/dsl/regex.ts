import { setFlagsFromString } from 'node:v8'
import safeRegex from 'safe-regex2'

/*
 * User regexes run on V8's own engine, fast, and cannot stall the runtime: V8 falls back from its
 * backtracking engine to its linear-time engine once one match has backtracked too often
 * (`--enable-experimental-regexp-engine-on-excessive-backtracks`, threshold 50,000 backtracks).
 * That engine handles every pattern except lookarounds, back-references, counted repetitions
 * above 16 and the `u` flag. The second flag enables the `l` flag, used here only to ask V8
 * whether a pattern is eligible for the fallback. Patterns that are not eligible are accepted only
 * when safe-regex2 finds no nested quantifier (star height 1), no repeated group of alternatives
 * and at most one unbounded repetition; the rest are refused at compile time (a detail of
 * ERR_DSL_INVALID). See docs/regex.md.
 *
 * The flags change the whole process, so importing this module does not set them: the command's
 * entry point and `createMockServer` call `enableRegexFallback` before loading any pattern. Without
 * them (a library user who loads documents some other way) no pattern counts as eligible for the
 * fallback, and every pattern must pass the stricter checks: safer, never laxer.
 */
let fallbackEnabled = false

/**
 * Turns on V8's linear-time fallback for regexes that backtrack too often (and the `l` flag that
 * asks whether a pattern can use it), for the whole process. Idempotent.
 *
 * @example
 * enableRegexFallback() // then compileUserRegex('.*a.*b', true) is accepted
 */
export function enableRegexFallback(): void {
  if (fallbackEnabled) return
  setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks')
  setFlagsFromString('--enable-experimental-regexp-engine')
  fallbackEnabled = true
}

/**
 * The longest value (in UTF-16 code units, 64 Ki) a user regex is run on. The linear-time engine
 * bounds the growth of a match, not the size of its input: `^(\w+\s?)*$` on a 2 MB body still held
 * the event loop for seconds, and the backtracking engine overflows its stack on megabytes. A
 * longer value makes `matches` and `not_matches` fail (the transaction does not match) and is
 * counted (see docs/regex.md).
 */
export const MAX_REGEX_INPUT = 65_536

/** Why a pattern was refused. */
export class RegexRejection {
  constructor(
    readonly kind: 'invalid' | 'unsafe',
    readonly reason: string,
  ) {}
}

/** Java-style inline flags that users bring from other tools, such as `(?i)` at the start. */
const leadingInlineFlags = /^\(\?([ims]+)\)/

/**
 * Compiles a user regex once, at load time. With `whole`, the pattern must match the entire value
 * (docs/decisions.md#whole-value-regex). Returns a RegexRejection instead of
 * throwing, so that callers can name the failing field.
 *
 * @example
 * const re = compileUserRegex('/pets/[0-9]+', true) // RegExp /^(?:\/pets\/[0-9]+)$/
 */
export function compileUserRegex(source: string, whole: boolean): RegExp | RegexRejection {
  let pattern = source
  let flags = ''
  const inline = leadingInlineFlags.exec(pattern)
  if (inline?.[1] !== undefined) {
    flags = [...new Set(inline[1])].join('')
    pattern = pattern.slice(inline[0].length)
  }
  // A whole-value match has one start and one end: the `m` flag, which would let `^` and `$` match
  // at line breaks (so that `(?m)abc` matched "x\nabc"), is accepted and dropped.
  if (whole) flags = flags.replace('m', '')
  const body = whole ? `^(?:${pattern})$` : pattern
  let compiled: RegExp
  try {
    compiled = new RegExp(body, flags)
  } catch (err) {
    return new RegexRejection(
      'invalid',
      err instanceof Error ? err.message.replace(/^Invalid regular expression: /, '') : String(err),
    )
  }
  if (linearEligible(body, flags)) return compiled
  const risk = safeRegex(forStarHeight(body)) ? backtrackingRisk(body) : 'it nests quantifiers'
  if (risk === null) return compiled
  return new RegexRejection(
    'unsafe',
    `${risk} and ${linearObstacles(pattern, flags)}, so it could backtrack for minutes; rewrite it without them`,
  )
}

/**
 * What keeps a pattern off the linear-time engine, named as the user wrote it: the `(?i)` flag,
 * lookarounds, back-references, repetition counts above 16 (V8's limit for that engine).
 */
function linearObstacles(pattern: string, flags: string): string {
  const found: string[] = []
  if (flags.includes('i')) {
    found.push('uses (?i) (case-insensitive matching; spell the cases out, e.g. [Aa])')
  }
  const plain = pattern.replace(/\\[^1-9k]|\[(?:\\.|[^\]\\])*\]/g, '')
  if (/\(\?<?[=!]/.test(plain)) found.push('uses a lookaround')
  if (/\\[1-9]|\\k</.test(plain)) found.push('uses a back-reference')
  for (const m of plain.matchAll(/\{(\d+)(?:,(\d*))?\}/g)) {
    if (Number(m[2] === undefined || m[2] === '' ? m[1] : m[2]) > 16) {
      found.push(`uses the count ${m[0]} (above 16)`)
      break
    }
  }
  if (found.length === 0) found.push('uses a construct the linear-time engine cannot run')
  return found.join(', ')
}

/**
 * The backtracking risks that star height misses, for patterns the linear engine cannot take: a
 * repeated group with alternatives (`(a|a)*`, exponential) and more than one unbounded repetition
 * outside lookarounds (`.*a.*b`, polynomial on a 16 KiB header). Conservative by design; such
 * patterns are rare.
 * Returns why the pattern is risky, or null.
 */
function backtrackingRisk(body: string): string | null {
  // Per open group: does it hold a `|` at its own level, and is it a lookaround?
  const groups: Array<{ alternation: boolean; lookaround: boolean }> = []
  let lookarounds = 0
  let unbounded = 0
  for (let i = 0; i < body.length; i++) {
    const c = body[i]
    if (c === '\\') {
      i++
    } else if (c === '[') {
      // Skip a character class; `]` right after `[` or `[^` is a literal.
      i += body[i + 1] === '^' ? 2 : 1
      if (body[i] === ']') i++
      while (i < body.length && body[i] !== ']') i += body[i] === '\\' ? 2 : 1
    } else if (c === '(') {
      const lookaround = /^\(\?<?[=!]/.test(body.slice(i, i + 4))
      if (lookaround) lookarounds++
      groups.push({ alternation: false, lookaround })
    } else if (c === '|') {
      const top = groups[groups.length - 1]
      if (top !== undefined) top.alternation = true
    } else if (c === ')') {
      const group = groups.pop()
      if (group?.lookaround === true) lookarounds--
      const quantifier = quantifierAt(body, i + 1)
      if (group?.alternation === true && quantifier !== 'none' && quantifier !== 'optional') {
        return 'it repeats a group of alternatives'
      }
    } else if (
      lookarounds === 0 &&
      (c === '*' || c === '+' || (c === '{' && quantifierAt(body, i) === 'unbounded'))
    ) {
      // A lookaround of a whole-value match runs once, at the start: its repetitions do not
      // multiply with the others.
      unbounded++
    }
  }
  return unbounded > 1 ? 'it has more than one unbounded repetition' : null
}

/** The kind of quantifier starting at `i`, if any. */
function quantifierAt(body: string, i: number): 'none' | 'optional' | 'bounded' | 'unbounded' {
  const c = body[i]
  if (c === '*' || c === '+') return 'unbounded'
  if (c === '?') return 'optional'
  if (c !== '{') return 'none'
  const counted = /^\{(\d+)(,(\d*))?\}/.exec(body.slice(i))
  if (counted === null) return 'none'
  if (counted[2] !== undefined && counted[3] === '') return 'unbounded'
  return Number(counted[3] ?? counted[1]) > 1 ? 'bounded' : 'optional'
}

function linearEligible(body: string, flags: string): boolean {
  try {
    // Compiled only to ask the question; never used for matching.
    RegExp(body, flags + 'l')
    return true
  } catch {
    return false
  }
}

/**
 * The pattern as safe-regex2 can read it: its parser (ret) fails on lookbehinds, which would count
 * as unsafe whatever their quantifiers. A lookahead has the same star height, so `(?<=` and `(?<!`
 * become `(?=` and `(?!` for the analysis only (escaped characters are left alone).
 */
function forStarHeight(body: string): string {
  return body.replace(/\\[\s\S]|\(\?<([=!])/g, (token, kind: string | undefined) =>
    kind === undefined ? token : `(?${kind}`,
  )
}
