import { createHash, createHmac, randomInt, randomUUID, randomBytes } from 'node:crypto'

/** The variables of a run: name to string value. */
export type Variables = Map<string, string>

type BuiltIn = (args: string[], now: () => number) => string

const RANDOM_STRING_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

function hash(algorithm: string): BuiltIn {
  return ([value = '']) => createHash(algorithm).update(value).digest('hex')
}

function hmac(algorithm: string): BuiltIn {
  // The product's argument order: the value, then the key.
  return ([value = '', key = '']) => createHmac(algorithm, key).update(value).digest('hex')
}

function hmacBase64(algorithm: string): BuiltIn {
  return ([value = '', key = '']) => createHmac(algorithm, key).update(value).digest('base64')
}

function intArg(value: string | undefined, fallback: number): number {
  const n = Number(value)
  return value === undefined || value.trim() === '' || !Number.isFinite(n)
    ? fallback
    : Math.trunc(n)
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0')

/**
 * Formats an epoch-seconds timestamp with strftime-like directives (UTC): %Y %m %d %H %I %M %S %y
 * %j %a %A %b %B %p %s %f %z %Z %%; the product's `format_timestamp(value, format)`.
 */
export function formatTimestamp(epochSeconds: number, format: string): string {
  const d = new Date(epochSeconds * 1000)
  if (Number.isNaN(d.getTime())) return ''
  const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
  const months = [
    'January',
    'February',
    'March',
    'April',
    'May',
    'June',
    'July',
    'August',
    'September',
    'October',
    'November',
    'December',
  ]
  const startOfYear = Date.UTC(d.getUTCFullYear(), 0, 1)
  const dayOfYear = Math.floor((d.getTime() - startOfYear) / 86_400_000) + 1
  return format.replace(/%([YmdHIMSyjaAbBpsfzZ%])/g, (_, c: string) => {
    switch (c) {
      case 'Y':
        return String(d.getUTCFullYear())
      case 'y':
        return pad(d.getUTCFullYear() % 100)
      case 'm':
        return pad(d.getUTCMonth() + 1)
      case 'd':
        return pad(d.getUTCDate())
      case 'H':
        return pad(d.getUTCHours())
      case 'I':
        return pad(d.getUTCHours() % 12 === 0 ? 12 : d.getUTCHours() % 12)
      case 'M':
        return pad(d.getUTCMinutes())
      case 'S':
        return pad(d.getUTCSeconds())
      case 'j':
        return pad(dayOfYear, 3)
      case 'a':
        return (days[d.getUTCDay()] ?? '').slice(0, 3)
      case 'A':
        return days[d.getUTCDay()] ?? ''
      case 'b':
        return (months[d.getUTCMonth()] ?? '').slice(0, 3)
      case 'B':
        return months[d.getUTCMonth()] ?? ''
      case 'p':
        return d.getUTCHours() < 12 ? 'AM' : 'PM'
      case 's':
        return String(Math.floor(epochSeconds))
      case 'f':
        return pad(d.getUTCMilliseconds() * 1000, 6)
      case 'z':
        return '+0000'
      case 'Z':
        return 'UTC'
      default:
        return '%'
    }
  })
}

/**
 * The built-in functions, callable as `{{name}}` (no arguments) or `{{name(arg, ...)}}`. A map
 * without a prototype: `{{toString}}`, `{{__proto__}}` or `{{valueOf}}` must find nothing here
 * (and stay as written), never a member of Object.prototype.
 */
export const BUILT_INS: Readonly<Record<string, BuiltIn>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, BuiltIn>, {
    timestamp: (_args, now) => String(Math.floor(now() / 1000)),
    timestamp_ms: (_args, now) => String(now()),
    utc_datetime: (_args, now) => new Date(now()).toISOString(),
    format_timestamp: ([value, format = '%Y-%m-%dT%H:%M:%SZ'], now) =>
      formatTimestamp(value === undefined || value === '' ? now() / 1000 : Number(value), format),
    random_int: ([a, b]) => {
      if (a === undefined) return String(randomInt(0, 2 ** 31 - 1))
      const lo = intArg(a, 0)
      const hi = intArg(b, lo)
      return String(hi <= lo ? lo : randomInt(lo, hi + 1))
    },
    random_string: ([length]) => {
      const n = Math.min(Math.max(intArg(length, 16), 0), 4096)
      const bytes = randomBytes(n)
      let out = ''
      for (let i = 0; i < n; i++) {
        out += RANDOM_STRING_ALPHABET[(bytes[i] ?? 0) % RANDOM_STRING_ALPHABET.length]
      }
      return out
    },
    random_uuid: () => randomUUID(),
    uuid: () => randomUUID(),
    md5: hash('md5'),
    sha1: hash('sha1'),
    sha256: hash('sha256'),
    sha512: hash('sha512'),
    hmac_sha1: hmac('sha1'),
    hmac_sha256: hmac('sha256'),
    hmac_sha1_base64: hmacBase64('sha1'),
    hmac_sha256_base64: hmacBase64('sha256'),
    encode_base64: ([value = '']) => Buffer.from(value, 'utf8').toString('base64'),
    base64_encode: ([value = '']) => Buffer.from(value, 'utf8').toString('base64'),
    decode_base64: ([value = '']) => Buffer.from(value, 'base64').toString('utf8'),
    base64_decode: ([value = '']) => Buffer.from(value, 'base64').toString('utf8'),
    url_encode: ([value = '']) => encodeURIComponent(value),
    encode_url: ([value = '']) => encodeURIComponent(value),
    url_decode: ([value = '']) => {
      try {
        return decodeURIComponent(value)
      } catch {
        return value
      }
    },
    decode_url: ([value = '']) => {
      try {
        return decodeURIComponent(value)
      } catch {
        return value
      }
    },
    lower: ([value = '']) => value.toLowerCase(),
    upper: ([value = '']) => value.toUpperCase(),
  } satisfies Record<string, BuiltIn>),
)

/** `{{ name }}` or `{{ name(args) }}`; names are letters, digits, `_`, `.` and `-`. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*(?:\(([^)]*)\))?\s*\}\}/g

/** Splits `a, "b, c", 'd'` into arguments, honouring quotes. */
function splitArgs(text: string): Array<{ raw: string; quoted: boolean }> {
  const out: Array<{ raw: string; quoted: boolean }> = []
  let current = ''
  let quote: string | null = null
  let quoted = false
  for (const c of text) {
    if (quote !== null) {
      if (c === quote) quote = null
      else current += c
    } else if (c === '"' || c === "'") {
      // Whitespace before an opening quote is not part of the argument.
      if (current.trim() === '') current = ''
      quote = c
      quoted = true
    } else if (quoted && /\s/.test(c)) {
      // Nor is whitespace after its closing quote: `"v" , key` passes `v`, not `v `.
    } else if (c === ',') {
      out.push({ raw: quoted ? current : current.trim(), quoted })
      current = ''
      quoted = false
    } else current += c
  }
  if (text.trim() !== '' || out.length > 0) {
    out.push({ raw: quoted ? current : current.trim(), quoted })
  }
  return out
}

/**
 * Substitutes `{{variable}}` and `{{function(args)}}` in a string. Variables win over built-ins of
 * the same name; an unquoted argument naming a variable is that variable's value; an unknown name
 * is left as written (so that a typo shows in the result). `unresolved` collects those names.
 */
export function substitute(
  text: string,
  variables: Variables,
  now: () => number = Date.now,
  unresolved?: Set<string>,
): string {
  if (!text.includes('{{')) return text
  return text.replace(PLACEHOLDER, (whole, name: string, argText: string | undefined) => {
    if (argText === undefined) {
      const value = variables.get(name)
      if (value !== undefined) return value
    }
    // Own entries only: `{{constructor}}` or `{{hasOwnProperty}}` name Object.prototype's members, not built-ins.
    const fn = Object.hasOwn(BUILT_INS, name) ? BUILT_INS[name] : undefined
    if (fn === undefined) {
      unresolved?.add(name)
      return whole
    }
    const args =
      argText === undefined
        ? []
        : splitArgs(argText).map((a) => (a.quoted ? a.raw : (variables.get(a.raw) ?? a.raw)))
    return fn(args, now)
  })
}
