/*
 * Size bounds of response templates (docs/limits.md#response-templates). The runtime checks them
 * on every call of a helper; template-check.ts checks the literal arguments of a template once, at
 * load, so that `{{faker 'string.alpha' 20000000}}` is refused before it is ever served.
 */
import { formatCount } from '../errors/index.js'

/**
 * Characters one helper call may generate (`faker 'string.alpha' n`, `randomValue length=n`,
 * `faker 'string.numeric' n`...). 64 Ki: about 25 ms of faker's work; 20,000,000 took 3.2 s and
 * 747 MiB while every other request of the process waited.
 */
const MAX_TEMPLATE_LENGTH = 65_536

/**
 * Items one helper call may generate: words, sentences, paragraphs, lines, dates, list elements.
 * 1,000 paragraphs are about 150 KB of text and 45 ms of faker's work.
 */
export const MAX_TEMPLATE_COUNT = 1_000

/**
 * Characters of a text argument of a generating helper (a faker name or pattern, a separator, a
 * date format or offset): each of them can be repeated up to MAX_TEMPLATE_COUNT times.
 */
const MAX_TEMPLATE_TEXT_ARGUMENT = 1_000

/**
 * Characters the generating helpers (faker and the random helpers) may produce in one render,
 * together: a loop over the request (`{{#each request.pathSegments}}`) multiplies their calls.
 */
export const MAX_TEMPLATE_GENERATED = 1_048_576

/**
 * Characters of one rendered template (a body, a header value, a webhook body), counted while it
 * renders, so that a loop is stopped at the limit rather than after building gigabytes.
 */
export const MAX_TEMPLATE_OUTPUT = 10_485_760

/** A template stopped at one of the bounds above; the message names the bound and its value. */
export class TemplateBoundError extends Error {}

/**
 * A count or length given to a helper, as a number: numeric text (`request.query.n`) counts as its
 * number. Throws TemplateBoundError above the bound of its kind, an Error when it is not a number.
 *
 * @example
 * checkSize('20', 'length', 'string.alpha') // 20
 * checkSize(20_000_000, 'length', 'string.alpha') // throws: length 20000000 is above the limit of 65,536
 */
export function checkSize(value: unknown, kind: 'length' | 'count', where: string): number {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && value.trim() !== ''
        ? Number(value)
        : Number.NaN
  if (!Number.isFinite(n)) {
    throw new Error(
      `${where}: the ${kind} must be a number, not ${JSON.stringify(String(value)).slice(0, 40)}`,
    )
  }
  const max = kind === 'length' ? MAX_TEMPLATE_LENGTH : MAX_TEMPLATE_COUNT
  if (n > max) {
    throw new TemplateBoundError(
      `${where}: ${kind} ${n} is above the limit of ${formatCount(max)} (docs/limits.md)`,
    )
  }
  return n
}

/** Throws TemplateBoundError when a text argument of a generating helper is too long. */
export function checkTextArgument(value: string, where: string): void {
  if (value.length > MAX_TEMPLATE_TEXT_ARGUMENT) {
    throw new TemplateBoundError(
      `${where}: a text argument of ${formatCount(value.length)} characters is above the limit of ${formatCount(MAX_TEMPLATE_TEXT_ARGUMENT)} (docs/limits.md)`,
    )
  }
}

/** Counted repetitions of a faker pattern: `#{5}`, `[a-z]{2,8}`. */
const repetition = /\{\s*(\d+)\s*(?:,\s*(\d*)\s*)?\}/g

/**
 * A pattern faker expands (`helpers.fromRegExp`, `finance.creditCardNumber`): its counted
 * repetitions together may not ask for more than MAX_TEMPLATE_LENGTH characters.
 *
 * @example
 * checkPattern('[A-Z]{3}-#{4}', 'helpers.fromRegExp') // passes
 * checkPattern('a{5000000}', 'helpers.fromRegExp') // throws
 */
export function checkPattern(value: string, where: string): void {
  checkTextArgument(value, where)
  let total = 0
  for (const m of value.matchAll(repetition)) {
    total += Number(m[2] !== undefined && m[2] !== '' ? m[2] : m[1])
  }
  if (total > MAX_TEMPLATE_LENGTH) {
    throw new TemplateBoundError(
      `${where}: the pattern repeats ${total} characters, above the limit of ${formatCount(MAX_TEMPLATE_LENGTH)} (docs/limits.md)`,
    )
  }
}

/**
 * Names a template never reaches, whatever object it reads: JavaScript's prototype machinery. A
 * path or `lookup` that names one is refused at load; at run time they resolve to nothing.
 */
export const unreachableNames: ReadonlySet<string> = new Set([
  'constructor',
  '__proto__',
  'prototype',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
])
