import { describe, expect, it } from 'vitest'
import { fitDelay, MAX_RECORDED_REQUESTS, Recording } from '../../../src/serve/record/recording.js'
import { liveExchange as exchange } from '../../helpers/live-exchange.js'

describe('Recording', () => {
  it('keeps one entry per distinct request (method, url with query, body): a repeat replaces it and adds a latency sample', () => {
    const recording = new Recording()
    recording.add(exchange('/a?x=1'), 'http://live')
    recording.add(
      exchange('/a?x=1', { durationMs: 30, responseBody: Buffer.from('{"ok":false}') }),
      'http://live',
    )
    recording.add(exchange('/a?x=2'), 'http://live')
    recording.add(exchange('/a', { method: 'POST', requestBody: Buffer.from('1') }), 'http://live')
    recording.add(exchange('/a', { method: 'POST', requestBody: Buffer.from('2') }), 'http://live')
    expect(recording.size).toBe(0)
    expect(recording.merge()).toEqual({ merged: 5, skipped: [] })
    recording.stop()
    expect(recording.size).toBe(4)
    const first = recording.list()[0]
    expect(first?.latencies).toEqual([12, 30])
    expect(JSON.stringify(first?.entry)).toContain(Buffer.from('{"ok":false}').toString('base64'))
  })

  it('skips truncated bodies and new requests past its bound, and says why', () => {
    const skipped: string[] = []
    const recording = new Recording({
      onSkipped: (url, reason) => skipped.push(`${url}: ${reason}`),
    })
    recording.add(exchange('/big', { truncated: true }), 'http://live')
    for (let i = 0; i <= MAX_RECORDED_REQUESTS; i++) {
      recording.add(exchange(`/r/${i}`), 'http://live')
    }
    recording.add(exchange('/r/0', { durationMs: 5 }), 'http://live')
    const result = recording.merge()
    recording.stop()
    expect(result.merged).toBe(MAX_RECORDED_REQUESTS + 1)
    expect(result.skipped).toEqual(['/big', `/r/${MAX_RECORDED_REQUESTS}`])
    expect(skipped[0]).toMatch(/^\/big: response body larger/)
    expect(skipped[1]).toMatch(/distinct requests already/)
    expect(recording.size).toBe(MAX_RECORDED_REQUESTS)
    expect(recording.clear()).toBe(MAX_RECORDED_REQUESTS)
    expect(recording.size).toBe(0)
  })

  it('fits a fixed delay to one sample and a lognormal to repeats', () => {
    expect(fitDelay([42.4])).toEqual({ type: 'fixed', duration: 42 })
    const fitted = fitDelay([10, 20, 40])
    expect(fitted.type).toBe('lognormal')
    expect(fitted.median).toBe(20)
    expect(fitted.sigma).toBeCloseTo(0.693, 2)
  })
})
