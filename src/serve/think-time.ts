import type { ResponseDelay } from '../dsl/index.js'

/** Draws one think time, in milliseconds. */
export type DelaySampler = () => number

/**
 * Compiles a delay (docs/decisions.md#think-time) into a sampler, or null when it never delays:
 * `fixed` = duration; `uniform` = lower..upper; `lognormal` = median · e^(sigma·Z) with Z standard
 * normal, so that half the draws fall under the median; capped at `upper` when given.
 *
 * @example
 * compileDelay({ type: 'uniform', lower: 10, upper: 20 })?.() // a number in [10, 20]
 */
export function compileDelay(
  delay: ResponseDelay | null | undefined,
  random: () => number = Math.random,
): DelaySampler | null {
  if (delay === null || delay === undefined) return null
  switch (delay.type) {
    case 'none':
      return null
    case 'fixed': {
      const duration = delay.duration ?? 0
      return duration > 0 ? () => duration : null
    }
    case 'uniform': {
      const lower = delay.lower ?? 0
      const span = (delay.upper ?? lower) - lower
      return () => lower + random() * span
    }
    case 'lognormal': {
      const median = delay.median ?? 0
      const sigma = delay.sigma ?? 0
      const cap = delay.upper ?? Infinity
      return () => Math.min(cap, median * Math.exp(sigma * standardNormal(random)))
    }
  }
}

/** A standard normal draw (Box-Muller). */
function standardNormal(random: () => number): number {
  // 1 - random() lies in (0, 1], so the logarithm is finite.
  const u = 1 - random()
  const v = random()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
}
