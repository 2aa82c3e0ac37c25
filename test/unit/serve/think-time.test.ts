import { describe, expect, it } from 'vitest'
import { compileDelay, type DelaySampler } from '../../../src/serve/think-time.js'

/*
 * compileDelay turns a normalized delay into a sampler. The statistical checks draw 20,000 values
 * from a seeded generator (mulberry32), so they are deterministic; the bounds are still wide
 * enough (many standard errors) to hold for any reasonable seed, and one check repeats them with
 * Math.random to make sure nothing depends on the seed.
 */

const DRAWS = 20_000

/** A small seeded PRNG with output in [0, 1), like Math.random. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function draw(sampler: DelaySampler | null, n = DRAWS): number[] {
  if (sampler === null) throw new Error('expected a sampler')
  return Array.from({ length: n }, () => sampler())
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length
const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b)
const quantile = (xs: number[], q: number): number => {
  const s = sorted(xs)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number
}

describe('compileDelay', () => {
  it('returns no sampler for an absent delay, type none and a fixed delay of 0 ms', () => {
    expect(compileDelay(null)).toBeNull()
    expect(compileDelay(undefined)).toBeNull()
    expect(compileDelay({ type: 'none' })).toBeNull()
    expect(compileDelay({ type: 'fixed', duration: 0 })).toBeNull()
  })

  it('draws exactly the duration of a fixed delay every time', () => {
    const values = draw(compileDelay({ type: 'fixed', duration: 250 }, mulberry32(1)), 1000)
    expect(new Set(values)).toEqual(new Set([250]))
  })

  it('draws a uniform delay within [lower, upper] with its mean near the middle', () => {
    const values = draw(compileDelay({ type: 'uniform', lower: 100, upper: 300 }, mulberry32(2)))
    const s = sorted(values)
    expect(s[0]).toBeGreaterThanOrEqual(100)
    expect(s[s.length - 1]).toBeLessThanOrEqual(300)
    // Standard error of the mean: 57.7 / sqrt(20,000) = 0.41 ms; 5 ms is over ten of them.
    expect(mean(values)).toBeGreaterThan(195)
    expect(mean(values)).toBeLessThan(205)
    // The whole range is used, evenly: each quarter holds about a quarter of the draws.
    expect(s[0]).toBeLessThan(102)
    expect(s[s.length - 1]).toBeGreaterThan(298)
    for (const [q, expected] of [
      [0.25, 150],
      [0.5, 200],
      [0.75, 250],
    ] as const) {
      expect(Math.abs(quantile(values, q) - expected)).toBeLessThan(6)
    }
  })

  it('draws the same uniform statistics from Math.random', () => {
    const values = draw(compileDelay({ type: 'uniform', lower: 10, upper: 20 }))
    expect(Math.min(...values)).toBeGreaterThanOrEqual(10)
    expect(Math.max(...values)).toBeLessThanOrEqual(20)
    expect(Math.abs(mean(values) - 15)).toBeLessThan(0.3)
  })

  it('draws a constant from a uniform delay whose lower equals upper', () => {
    expect(
      new Set(draw(compileDelay({ type: 'uniform', lower: 40, upper: 40 }, mulberry32(3)), 500)),
    ).toEqual(new Set([40]))
  })

  it('draws a lognormal delay with half the draws under the median and log-spread sigma', () => {
    const values = draw(compileDelay({ type: 'lognormal', median: 100, sigma: 0.5 }, mulberry32(4)))
    expect(Math.min(...values)).toBeGreaterThan(0)
    // Median of 20,000 lognormal draws: standard error about 0.44 ms here.
    const median = quantile(values, 0.5)
    expect(median).toBeGreaterThan(95)
    expect(median).toBeLessThan(105)
    const below = values.filter((v) => v < 100).length / values.length
    expect(below).toBeGreaterThan(0.48)
    expect(below).toBeLessThan(0.52)
    const logs = values.map((v) => Math.log(v))
    const logMean = mean(logs)
    const logSd = Math.sqrt(mean(logs.map((l) => (l - logMean) ** 2)))
    expect(Math.abs(logMean - Math.log(100))).toBeLessThan(0.03)
    expect(Math.abs(logSd - 0.5)).toBeLessThan(0.03)
    // A long right tail: the mean exceeds the median (e^(sigma²/2) = 1.13 times it).
    expect(mean(values)).toBeGreaterThan(108)
    expect(mean(values)).toBeLessThan(118)
  })

  it('caps lognormal draws at upper when upper is given', () => {
    const values = draw(
      compileDelay({ type: 'lognormal', median: 100, sigma: 0.5, upper: 150 }, mulberry32(5)),
    )
    expect(Math.max(...values)).toBe(150)
    // P(draw > 150) = P(Z > ln(1.5) / 0.5 = 0.81) = 0.209: those draws become exactly 150.
    const capped = values.filter((v) => v === 150).length / values.length
    expect(capped).toBeGreaterThan(0.18)
    expect(capped).toBeLessThan(0.24)
    const median = quantile(values, 0.5)
    expect(median).toBeGreaterThan(95)
    expect(median).toBeLessThan(105)
  })

  it('draws exactly the median from a lognormal delay with sigma 0', () => {
    expect(
      new Set(draw(compileDelay({ type: 'lognormal', median: 75, sigma: 0 }, mulberry32(6)), 500)),
    ).toEqual(new Set([75]))
  })

  it('stays finite at the extremes of the random source', () => {
    for (const r of [0, 0.5, 0.999_999_999]) {
      const value = compileDelay({ type: 'lognormal', median: 100, sigma: 1 }, () => r)?.()
      expect(Number.isFinite(value)).toBe(true)
      expect(value).toBeGreaterThanOrEqual(0)
    }
  })
})
