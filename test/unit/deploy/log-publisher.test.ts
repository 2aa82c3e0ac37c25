import { describe, expect, it } from 'vitest'
import { LogPublisher } from '../../../src/deploy/log-publisher.js'
import { createSilentLogger, LogRing } from '../../../src/log/index.js'
import { waitFor } from '../../helpers/wait.js'

/** The store's side: every write, with the lines it carried. */
function recorder(): {
  writes: Array<[number, string[]]>
  put: (id: number, lines: readonly string[]) => Promise<void>
} {
  const writes: Array<[number, string[]]> = []
  return {
    writes,
    put: async (id, lines) => {
      writes.push([id, [...lines]])
    },
  }
}

describe('the log publisher of local runtimes', () => {
  it('writes a changed log once per interval, whole and bounded, never once per line', async () => {
    const store = recorder()
    const publisher = new LogPublisher({ lines: store, log: createSilentLogger(), intervalMs: 50 })
    const ring = new LogRing(5)
    for (let i = 1; i <= 7; i++) {
      ring.write(`line ${i}`)
      publisher.changed(7, ring)
    }
    expect(store.writes).toEqual([])
    await waitFor(async () => store.writes.length > 0, 'the flush', {
      timeoutMs: 2000,
      intervalMs: 10,
    })
    expect(store.writes).toEqual([[7, ['line 3', 'line 4', 'line 5', 'line 6', 'line 7']]])
    // Nothing changed: nothing more is written.
    await new Promise((resolve) => setTimeout(resolve, 120))
    expect(store.writes.length).toBe(1)
  })

  it('flushes at once after the batch of lines, and on demand', async () => {
    const store = recorder()
    const publisher = new LogPublisher({
      lines: store,
      log: createSilentLogger(),
      intervalMs: 60_000,
      batchLines: 3,
    })
    const ring = new LogRing(10)
    for (const line of ['a', 'b', 'c']) {
      ring.write(line)
      publisher.changed(1, ring)
    }
    await waitFor(async () => store.writes.length === 1, 'the batch flush', {
      timeoutMs: 2000,
      intervalMs: 10,
    })
    ring.write('d')
    publisher.changed(1, ring)
    publisher.changed(2, new LogRing(2))
    publisher.forget(2)
    await publisher.flush()
    expect(store.writes).toEqual([
      [1, ['a', 'b', 'c']],
      [1, ['a', 'b', 'c', 'd']],
    ])
  })
})
