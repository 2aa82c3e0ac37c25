import { describe, expect, it } from 'vitest'
import { pairedCpuRatio, roundCpuRatios, type Measured } from '../../../bench/suites/measure.js'

const run = (cpuMicrosPerRequest: number | null): Measured => ({
  requestsPerSecond: 1000,
  p99: 1,
  errors: 0,
  non2xx: 0,
  cpuMicrosPerRequest,
  rssIdle: null,
  rss: null,
  startupMs: 0,
})

describe('per-round CPU ratios', () => {
  it('pairs each round of one contender with the same round of the other', () => {
    // The machine slows down over the rounds: the reference's median round is not ours.
    const ours = [22, 26, 18].map(run)
    const reference = [20, 25, 17].map(run)
    expect(roundCpuRatios(ours, reference).map((r) => r.toFixed(3))).toEqual([
      '1.100',
      '1.040',
      '1.059',
    ])
    expect(pairedCpuRatio(ours, reference)).toBeCloseTo(18 / 17, 6)
  })

  it('gives NaN for a round without a CPU figure rather than a made-up ratio', () => {
    expect(roundCpuRatios([run(null)], [run(10)])).toEqual([Number.NaN])
    expect(roundCpuRatios([run(10)], [])).toEqual([Number.NaN])
  })
})
