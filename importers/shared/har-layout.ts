import type { ImportInput } from '../types.js'
import { locateArray } from './array-layout.js'

/**
 * Inputs at least this large that look like a HAR are read an entry at a time: parsed
 * whole, a 100,000-entry capture's objects all lived until the end of its import, and collecting
 * them took a quarter of it. Smaller inputs are parsed whole, as every other format is.
 */
export const LAYOUT_MIN_BYTES = 1024 * 1024

/** A HAR found without parsing it whole: its entries' byte offsets and everything else, parsed. */
interface HarLayout {
  /** The document with `log.entries` emptied, parsed. */
  skeleton: unknown
  /** Start and end (exclusive) byte offsets of each entry, two numbers per entry (array-layout.ts). */
  bounds: number[]
}

// Detection finds the layout; the importer it dispatches to reads the same one. Keyed by the byte
// array, so that it lives exactly as long as the input (like structured.ts's cache).
const cache = new WeakMap<Uint8Array, HarLayout | null>()

/**
 * The layout of a large input whose `log.entries` is an array, once per byte array; null for a
 * small input, one shaped otherwise, or one whose text around the entries is not valid JSON (it
 * is then read whole, for the usual answer).
 *
 * @example
 * const layout = harLayoutOf({ bytes: readFileSync('big.har'), fileName: 'big.har' })
 * layout?.bounds.length // twice the entries
 */
export function harLayoutOf(input: ImportInput): HarLayout | null {
  if (input.bytes.byteLength < LAYOUT_MIN_BYTES) return null
  const cached = cache.get(input.bytes)
  if (cached !== undefined) return cached
  const layout = find(input.bytes)
  cache.set(input.bytes, layout)
  return layout
}

function find(bytes: Uint8Array): HarLayout | null {
  const found = locateArray(bytes, ['log', 'entries'])
  if (found === null) return null
  try {
    return { skeleton: JSON.parse(found.skeleton), bounds: found.bounds }
  } catch {
    return null
  }
}
