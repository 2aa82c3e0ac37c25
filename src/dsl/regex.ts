import { setFlagsFromString } from 'node:v8'
import safeRegex from 'safe-regex2'

/*
 * User regexes run on V8's own engine, fast, and cannot stall the runtime: V8 falls back from its
 * backtracking engine to its linear-time engine once one match has backtracked too often
 * (`--enable-experimental-regexp-engine-on-excessive-backtracks`, threshold 50,000 backtracks).
 * That engine handles every pattern except lookarounds, back-references, counted repetitions
 * above 16 and the `u` flag. The second flag enables the `l` flag, used here only to ask V8
 * whether a pattern is eligible for the fallback. Patterns that are not eligible are accepted only
 * when safe-regex2 finds no nested quantifier (star height 1); the rest are rejected at compile
 * time with ERR_DSL_REGEX_UNSAFE. See docs/regex.md.
 */
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks')
setFlagsFromString('--enable-experimental-regexp-engine')

/** Why a pattern was refused. */
export class RegexRejection {
  constructor (readonly kind: 'invalid' | 'unsafe', readonly reason: string) {}
}

/** Java-style inline flags that users bring from other tools, such as `(?i)` at the start. */
const leadingInlineFlags = /^\(\?([ims]+)\)/

/**
 * Compiles a user regex once, at load time. With `whole`, the pattern must match the entire value
 * (DESIGN.md section 3: `matches` is a whole-value match). Returns a RegexRejection instead of
 * throwing, so that callers can name the failing field.
 *
 * @example
 * const re = compileUserRegex('/pets/[0-9]+', true) // RegExp /^(?:\/pets\/[0-9]+)$/
 */
export function compileUserRegex (source: string, whole: boolean): RegExp | RegexRejection {
  let pattern = source
  let flags = ''
  const inline = leadingInlineFlags.exec(pattern)
  if (inline?.[1] !== undefined) {
    flags = [...new Set(inline[1])].join('')
    pattern = pattern.slice(inline[0].length)
  }
  // With the `m` flag, `^` and `$` also match at line breaks, so they cannot anchor a whole value:
  // `(?m)abc` must not match "x\nabc". Lookarounds anchor at the true start and end instead.
  const body = !whole ? pattern : flags.includes('m') ? `(?<![\\s\\S])(?:${pattern})(?![\\s\\S])` : `^(?:${pattern})$`
  let compiled: RegExp
  try {
    compiled = new RegExp(body, flags)
  } catch (err) {
    return new RegexRejection('invalid', err instanceof Error ? err.message.replace(/^Invalid regular expression: /, '') : String(err))
  }
  if (linearEligible(body, flags)) return compiled
  if (safeRegex(forStarHeight(body))) return compiled
  return new RegexRejection(
    'unsafe',
    'it nests quantifiers and uses a lookaround, a back-reference or a repetition count above 16, ' +
      'so it could backtrack for minutes; rewrite it without them or use not_matches',
  )
}

function linearEligible (body: string, flags: string): boolean {
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
function forStarHeight (body: string): string {
  return body.replace(/\\[\s\S]|\(\?<([=!])/g, (token, kind: string | undefined) => (kind === undefined ? token : `(?${kind}`))
}
