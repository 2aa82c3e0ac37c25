import { afterEach, describe, expect, it, vi } from 'vitest'
import { RestartSupervisor } from '../../../src/config/index.js'

/* The one restart-with-backoff of the deployer's runtimes and a cluster's replicas. */

afterEach(() => {
  vi.useRealTimers()
})

describe('RestartSupervisor', () => {
  it('doubles the delay from the first restart that waits, up to the maximum, then gives up', () => {
    vi.useFakeTimers()
    const restarts = new RestartSupervisor({
      attempts: 5,
      immediate: 0,
      initialDelayMs: 500,
      maxDelayMs: 3000,
      healthyAfterMs: 60_000,
    })
    const delays = Array.from({ length: 6 }, () => restarts.schedule(() => {})?.delayMs ?? null)
    expect(delays).toEqual([500, 1000, 2000, 3000, 3000, null])
    expect(restarts.count).toBe(5)
  })

  it('restarts at once `immediate` times, and starts a fresh count after a healthy life or a reset', () => {
    vi.useFakeTimers()
    const restarts = new RestartSupervisor({
      attempts: Infinity,
      immediate: 1,
      initialDelayMs: 250,
      maxDelayMs: 5000,
      healthyAfterMs: 10_000,
    })
    expect([0, 1, 2].map(() => restarts.schedule(() => {})?.delayMs)).toEqual([0, 250, 500])
    restarts.ended(9_999)
    expect(restarts.schedule(() => {})?.delayMs).toBe(1000)
    restarts.ended(10_000)
    expect(restarts.schedule(() => {})).toEqual({ attempt: 1, delayMs: 0 })
    restarts.reset()
    expect(restarts.count).toBe(0)
  })

  it('runs the restart after its delay, and not once cancelled', () => {
    vi.useFakeTimers()
    const restarts = new RestartSupervisor({
      attempts: 3,
      immediate: 0,
      initialDelayMs: 100,
      maxDelayMs: 1000,
      healthyAfterMs: 1000,
    })
    const restart = vi.fn()
    restarts.schedule(restart)
    vi.advanceTimersByTime(99)
    expect(restart).not.toHaveBeenCalled()
    vi.advanceTimersByTime(1)
    expect(restart).toHaveBeenCalledTimes(1)
    restarts.schedule(restart)
    restarts.cancel()
    vi.advanceTimersByTime(10_000)
    expect(restart).toHaveBeenCalledTimes(1)
  })
})
