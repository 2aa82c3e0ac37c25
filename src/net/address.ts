import { isIP } from 'node:net'

/**
 * What kind of destination an IP address is, for the egress policy (docs/security.md "Egress"):
 * - `unspecified`: 0.0.0.0/8 and `::` (a connection to them reaches this machine);
 * - `loopback`: 127.0.0.0/8 and `::1`;
 * - `link-local`: 169.254.0.0/16 (cloud metadata at 169.254.169.254) and fe80::/10;
 * - `private`: 10/8, 172.16/12, 192.168/16, 100.64/10 (carrier-grade NAT), 198.18/15, fc00::/7, fec0::/10;
 * - `reserved`: multicast, 240.0.0.0/4 and broadcast, ff00::/8, and anything else no host answers on;
 * - `public`: everything else.
 */
export type AddressClass =
  'unspecified' | 'loopback' | 'link-local' | 'private' | 'reserved' | 'public'

/**
 * The class of an IP address in any form the URL parser or the resolver gives: dotted IPv4,
 * IPv6 with or without brackets, and IPv6 forms that carry an IPv4 address (`::ffff:127.0.0.1`,
 * `::ffff:7f00:1`, `::127.0.0.1`, `64:ff9b::7f00:1`), which are classed as that IPv4 address.
 * Null when the text is not an IP address (a name, which must be resolved first).
 *
 * @example
 * classifyAddress('169.254.169.254') // 'link-local'
 * classifyAddress('[::ffff:7f00:1]') // 'loopback'
 * classifyAddress('example.com') // null
 */
export function classifyAddress(address: string): AddressClass | null {
  const bytes = addressBytes(address)
  if (bytes === null) return null
  return bytes.length === 4 ? classifyV4(bytes) : classifyV6(bytes)
}

/**
 * The bytes of an IP address (4 or 16), the IPv4 address carried by an IPv6 one when it carries
 * one; null when the text is not an IP address.
 *
 * @example
 * addressBytes('::ffff:10.0.0.1') // [10, 0, 0, 1]
 */
function addressBytes(address: string): number[] | null {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address
  const family = isIP(text)
  if (family === 4) return text.split('.').map(Number)
  if (family !== 6) return null
  const v6 = parseV6(text.replace(/%.*$/, ''))
  return embeddedV4(v6) ?? v6
}

/**
 * True when `address` is inside `cidr` (`10.0.0.0/8`, `fd00::/8`, or one address); both in any
 * form classifyAddress reads.
 *
 * @example
 * inCidr('10.1.2.3', '10.0.0.0/8') // true
 */
export function inCidr(address: string, cidr: CompiledCidr): boolean {
  const bytes = addressBytes(address)
  if (bytes === null || bytes.length !== cidr.bytes.length) return false
  let bits = cidr.prefix
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff
    if (((bytes[i] as number) & mask) !== ((cidr.bytes[i] as number) & mask)) return false
  }
  return true
}

/** A network as inCidr reads it. */
export interface CompiledCidr {
  readonly text: string
  readonly bytes: readonly number[]
  readonly prefix: number
}

/**
 * Reads `a.b.c.d/n`, `x::/n` or one address; null when it is not one.
 *
 * @example
 * compileCidr('10.0.0.0/8')?.prefix // 8
 */
export function compileCidr(text: string): CompiledCidr | null {
  const [base = '', prefixText, extra] = text.trim().split('/')
  if (extra !== undefined) return null
  const bytes = addressBytes(base)
  if (bytes === null) return null
  // A prefix written against an IPv6 form of an IPv4 network counts from the IPv4 address.
  const width = bytes.length * 8
  const offset = bytes.length === 4 && isIP(base.replace(/^\[|\]$/g, '')) === 6 ? 96 : 0
  const prefix =
    prefixText === undefined
      ? width
      : /^\d{1,3}$/.test(prefixText)
        ? Number(prefixText) - offset
        : NaN
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > width) return null
  return { text: text.trim(), bytes, prefix }
}

function classifyV4([a = 0, b = 0]: number[]): AddressClass {
  if (a === 0) return 'unspecified'
  if (a === 127) return 'loopback'
  if (a === 169 && b === 254) return 'link-local'
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private'
  if ((a === 100 && b >= 64 && b <= 127) || (a === 198 && (b === 18 || b === 19))) return 'private'
  if (a >= 224) return 'reserved'
  return 'public'
}

function classifyV6(bytes: number[]): AddressClass {
  const [b0 = 0, b1 = 0] = bytes
  if (bytes.every((b) => b === 0)) return 'unspecified'
  if (bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1) return 'loopback'
  if (b0 === 0xfe && (b1 & 0xc0) === 0x80) return 'link-local'
  if (b0 === 0xfe && (b1 & 0xc0) === 0xc0) return 'private'
  if ((b0 & 0xfe) === 0xfc) return 'private'
  if (b0 === 0xff) return 'reserved'
  // Only 2000::/3 is handed out for global unicast; the rest (discard 100::/64...) reaches nothing public.
  if ((b0 & 0xe0) !== 0x20) return 'reserved'
  return 'public'
}

/** The IPv4 address in an IPv4-mapped (::ffff:0:0/96), -compatible (::/96) or NAT64 (64:ff9b::/96) address. */
function embeddedV4(bytes: number[]): number[] | null {
  const head = bytes.slice(0, 12)
  const tail = bytes.slice(12)
  const zeros = (from: number, to: number): boolean => head.slice(from, to).every((b) => b === 0)
  const mapped = zeros(0, 10) && head[10] === 0xff && head[11] === 0xff
  // `::` and `::1` are IPv6's own unspecified and loopback addresses, not IPv4-compatible ones.
  const compatible =
    zeros(0, 12) && (tail[0] !== 0 || tail[1] !== 0 || tail[2] !== 0 || (tail[3] ?? 0) > 1)
  const nat64 =
    head[0] === 0x00 && head[1] === 0x64 && head[2] === 0xff && head[3] === 0x9b && zeros(4, 12)
  return mapped || compatible || nat64 ? tail : null
}

/** The 16 bytes of a valid IPv6 text (isIP said so), `::` and a dotted IPv4 tail included. */
function parseV6(text: string): number[] {
  let groups: string[]
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  let body = text
  const tail: number[] = []
  if (dotted !== null) {
    tail.push(...(dotted[1] as string).split('.').map(Number))
    body = text.slice(0, -(dotted[1] as string).length)
    if (body.endsWith(':') && !body.endsWith('::')) body = body.slice(0, -1)
  }
  const want = dotted === null ? 8 : 6
  if (body.includes('::')) {
    const [left = '', right = ''] = body.split('::')
    const l = left === '' ? [] : left.split(':')
    const r = right === '' ? [] : right.split(':')
    groups = [...l, ...new Array<string>(want - l.length - r.length).fill('0'), ...r]
  } else {
    groups = body === '' ? [] : body.split(':')
  }
  const bytes: number[] = []
  for (const group of groups) {
    const value = parseInt(group, 16)
    bytes.push(value >> 8, value & 0xff)
  }
  return [...bytes, ...tail]
}
