import { pino } from 'pino'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  youngGenerationPlan,
  type settleYoungGeneration,
} from '../../../src/cli/young-generation.js'
import type { Logger } from '../../../src/log/index.js'

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

/** A logger at debug level whose lines are kept, to count what settling said. */
function recordingLogger(): { log: Logger; messages: () => string[] } {
  const lines: string[] = []
  const log = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) })
  return { log, messages: () => lines.map((l) => (JSON.parse(l) as { msg: string }).msg) }
}

/** The module as a fresh process has it: no check started yet. */
async function freshSettle(): Promise<typeof settleYoungGeneration> {
  vi.resetModules()
  return (await import('../../../src/cli/young-generation.js')).settleYoungGeneration
}

// settleYoungGeneration runs once a runtime listens and again after every swap of its
// configuration (PUT /config, --watch, the WireMock stubs): one check per process, started by the
// first large document, whichever way it came.
describe('settleYoungGeneration', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('starts one check however many large documents are served or swapped in', async () => {
    const settle = await freshSettle()
    const { log, messages } = recordingLogger()
    settle(6_000, log, [])
    settle(6_000, log, [])
    settle(100_000, log, [])
    expect(vi.getTimerCount()).toBe(1)
    expect(messages()).toEqual(['young generation settling started'])
  })

  it('starts the check when a large document is swapped into a runtime that started small', async () => {
    const settle = await freshSettle()
    const { log, messages } = recordingLogger()
    settle(100, log, [])
    expect(vi.getTimerCount()).toBe(0)
    settle(6_000, log, [])
    expect(vi.getTimerCount()).toBe(1)
    expect(messages()).toEqual(['young generation settling started'])
  })

  it('keeps the check when a small document replaces a large one', async () => {
    const settle = await freshSettle()
    const { log } = recordingLogger()
    settle(6_000, log, [])
    settle(100, log, [])
    expect(vi.getTimerCount()).toBe(1)
  })

  it('starts nothing after any swap when a semi-space flag was passed at launch', async () => {
    const settle = await freshSettle()
    const { log, messages } = recordingLogger()
    settle(6_000, log, ['--max-semi-space-size=4'])
    settle(100_000, log, ['--max-semi-space-size=4'])
    expect(vi.getTimerCount()).toBe(0)
    expect(messages()).toEqual([])
  })
})
