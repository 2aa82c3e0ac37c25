import { describe, expect, it } from 'vitest'
import { youngGenerationPlan } from '../../../src/cli/young-generation.js'

// What a runtime does about V8's young generation once it listens: mocks of 5,000 transactions and
// more give back what start-up grew, unless the user sized the young generation at launch.
describe('youngGenerationPlan', () => {
  it("leaves V8's normal growth to mocks under 5,000 transactions", () => {
    expect(youngGenerationPlan(0, [])).toBe('v8-default')
    expect(youngGenerationPlan(100, [])).toBe('v8-default')
    expect(youngGenerationPlan(4_999, [])).toBe('v8-default')
  })

  it('gives back the young generation of mocks from 5,000 transactions', () => {
    expect(youngGenerationPlan(5_000, [])).toBe('shrink-when-idle')
    expect(youngGenerationPlan(100_000, ['--enable-source-maps', '--max-old-space-size=512'])).toBe(
      'shrink-when-idle',
    )
  })

  it('does nothing when a semi-space flag was passed at launch, in either spelling', () => {
    for (const flag of [
      '--max-semi-space-size=4',
      '--max_semi_space_size=4',
      '--min-semi-space-size=2',
      '--semi-space-growth-factor=1',
      '--semi_space_growth_factor=4',
    ]) {
      expect(youngGenerationPlan(10_000, ['--enable-source-maps', flag]), flag).toBe('launch-flags')
    }
    // Small mocks: nothing to decide either way.
    expect(youngGenerationPlan(100, ['--max-semi-space-size=4'])).toBe('v8-default')
  })
})
