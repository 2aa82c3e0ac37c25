import { describe, expect, it } from 'vitest'
import { createRunLock, createScheduler, intervalMs } from '../../../src/monitor/index.js'

describe('intervalMs', () => {
  it('reads the product intervals', () => {
    expect(intervalMs('1m')).toBe(60_000)
    expect(intervalMs('15m')).toBe(900_000)
    expect(intervalMs('1h')).toBe(3_600_000)
    expect(intervalMs('1d')).toBe(86_400_000)
    expect(intervalMs('nonsense')).toBe(60_000)
  })
})

describe('createScheduler', () => {
  it('fires a (scaled) 1-minute schedule on its interval, and stops when removed', async () => {
    const scheduler = createScheduler({ scale: 60 })
    try {
      const fired: number[] = []
      let release: () => void = () => {}
      const twice = new Promise<void>((resolve) => {
        release = resolve
      })
      scheduler.add({ id: 's1', interval: '1m' }, () => {
        fired.push(Date.now())
        if (fired.length === 2) release()
      })
      expect(scheduler.has('s1')).toBe(true)
      expect(scheduler.nextRun('s1')).toBeInstanceOf(Date)
      await twice
      expect((fired[1] ?? 0) - (fired[0] ?? 0)).toBeGreaterThanOrEqual(900)
      scheduler.remove('s1')
      expect(scheduler.size).toBe(0)
      expect(scheduler.nextRun('s1')).toBeNull()
    } finally {
      scheduler.stop()
    }
  })

  it('never overlaps two ticks of one schedule and reports errors', async () => {
    const errors: unknown[] = []
    const scheduler = createScheduler({ scale: 60, onError: (err) => errors.push(err) })
    let running = 0
    let maxRunning = 0
    let ticks = 0
    let done: () => void = () => {}
    const finished = new Promise<void>((resolve) => {
      done = resolve
    })
    scheduler.add({ id: 'slow', interval: '1m' }, async () => {
      running++
      maxRunning = Math.max(maxRunning, running)
      ticks++
      await new Promise((resolve) => setTimeout(resolve, 2200))
      running--
      if (ticks >= 2) done()
      throw new Error('tick failed')
    })
    try {
      await finished
      expect(maxRunning).toBe(1)
      expect(errors.length).toBeGreaterThanOrEqual(1)
    } finally {
      scheduler.stop()
    }
  }, 20_000)
})

describe('createRunLock', () => {
  it('lets one run of a test at a time', () => {
    const lock = createRunLock()
    const release = lock.tryAcquire('t1')
    expect(release).not.toBeNull()
    expect(lock.busy('t1')).toBe(true)
    expect(lock.tryAcquire('t1')).toBeNull()
    expect(lock.tryAcquire('t2')).not.toBeNull()
    release?.()
    release?.()
    expect(lock.busy('t1')).toBe(false)
    expect(lock.size).toBe(1)
  })
})
