/** Per-test exclusion: a test never runs twice at once (a schedule tick finding it busy skips). */
interface RunLock {
  /** Takes the lock of a test; returns its release, or null when the test is already running. */
  tryAcquire: (testId: string) => (() => void) | null
  busy: (testId: string) => boolean
  /** Tests running now. */
  readonly size: number
}

export function createRunLock(): RunLock {
  const running = new Set<string>()
  return {
    tryAcquire(testId) {
      if (running.has(testId)) return null
      running.add(testId)
      let released = false
      return () => {
        if (released) return
        released = true
        running.delete(testId)
      }
    },
    busy: (testId) => running.has(testId),
    get size() {
      return running.size
    },
  }
}
