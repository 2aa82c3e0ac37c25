import { Cron } from 'croner'

/** A schedule as the runner needs it: its id and the product's interval (`1m`, `5m`, `1h`, `1d`...). */
interface ScheduleEntry {
  id: string
  interval: string
}

interface SchedulerOptions {
  /**
   * Divides every interval (tests run a `1m` schedule every second with 60). Croner works in whole
   * seconds, so a scaled interval is at least 1 s.
   */
  scale?: number
  /** Called when a tick's callback throws or rejects (the schedule keeps running). */
  onError?: (err: unknown, scheduleId: string) => void
}

/** One croner timer per schedule; `fire` is called on each tick (never twice at once for one schedule). */
interface Scheduler {
  add: (schedule: ScheduleEntry, fire: () => void | Promise<void>) => void
  /** Re-arms a schedule with a new interval (same as remove + add). */
  update: (schedule: ScheduleEntry, fire: () => void | Promise<void>) => void
  remove: (scheduleId: string) => void
  /** When the schedule fires next (null when unknown or stopped). */
  nextRun: (scheduleId: string) => Date | null
  has: (scheduleId: string) => boolean
  stop: () => void
  readonly size: number
}

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const

/** The product's schedule intervals in milliseconds (`1m` = 60 000); an unknown interval counts as 1 minute. */
export function intervalMs(interval: string): number {
  const m = /^(\d+)\s*([smhd])$/.exec(interval.trim())
  if (m === null || Number(m[1]) <= 0) return 60_000
  return Number(m[1]) * UNIT_SECONDS[m[2] as keyof typeof UNIT_SECONDS] * 1000
}

/**
 * The time between two ticks of a schedule, in ms: its interval divided by `scale` (tests), in
 * whole seconds and at least one (croner's resolution). A tick's slot is `floor(now / tickMs)`.
 */
export function tickMs(interval: string, scale = 1): number {
  return Math.max(1, Math.round(intervalMs(interval) / 1000 / scale)) * 1000
}

/**
 * Creates the schedules' timers. Each schedule is a croner job with a 1-second pattern and a
 * minimum `interval`: croner computes the next run directly (one timer armed per schedule, no
 * polling), `protect` skips a tick while the previous one is still running, and `unref` never
 * keeps the process alive.
 */
export function createScheduler(options: SchedulerOptions = {}): Scheduler {
  const scale = options.scale ?? 1
  const jobs = new Map<string, Cron>()

  function remove(id: string): void {
    jobs.get(id)?.stop()
    jobs.delete(id)
  }

  function add(schedule: ScheduleEntry, fire: () => void | Promise<void>): void {
    remove(schedule.id)
    const seconds = tickMs(schedule.interval, scale) / 1000
    const job = new Cron(
      '* * * * * *',
      { interval: seconds, protect: true, unref: true, name: `schedule-${schedule.id}` },
      async () => {
        try {
          await fire()
        } catch (err) {
          options.onError?.(err, schedule.id)
        }
      },
    )
    jobs.set(schedule.id, job)
  }

  return {
    add,
    update: add,
    remove,
    nextRun: (id) => jobs.get(id)?.nextRun() ?? null,
    has: (id) => jobs.has(id),
    stop() {
      for (const job of jobs.values()) job.stop()
      jobs.clear()
    },
    get size() {
      return jobs.size
    },
  }
}
