/**
 * A small deterministic generator (mulberry32) with output in [0, 1), like Math.random: a test
 * that draws its cases from it replays a failure from the seed.
 *
 * @example
 * const next = seededRandom(1); next() === seededRandom(1)() // true
 */
export function seededRandom(seed: number): () => number {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
