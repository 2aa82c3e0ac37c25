import { createHash } from 'node:crypto'

/**
 * sha256 (hex) of a JSON value with object keys in sorted order, so that the same document hashes
 * alike whoever serialised it (the driver, a pod's `GET /config`).
 *
 * @example
 * documentHash({ b: 1, a: [2] }) === documentHash({ a: [2], b: 1 }) // true
 */
export function documentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex')
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}
