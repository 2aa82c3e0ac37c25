import { describe, expect, it } from 'vitest'
import { h2loadArgs, p99OfLog, readH2loadSummary } from '../../../bench/h2-load.js'

// As nghttp2 1.52's h2load prints it (abridged).
const summary = `starting benchmark...
finished in 3.00s, 16258.33 req/s, 827.29KB/s
requests: 48775 total, 48825 started, 48775 done, 48770 succeeded, 3 failed, 1 errored, 1 timeout
status codes: 48700 2xx, 2 3xx, 60 4xx, 8 5xx
traffic: 2.42MB (2541553) total, 525.03KB (537627) headers (space savings 89.19%), 810.14KB (829580) data
`

describe('h2load output', () => {
  it('reads requests done, their rate, failures and answers outside 2xx from the summary', () => {
    expect(readH2loadSummary(summary)).toEqual({
      requests: 48775,
      requestsPerSecond: 16258.33,
      errors: 5,
      non2xx: 70,
    })
  })

  it('refuses output without a summary rather than reading zero requests', () => {
    expect(() => readH2loadSummary('no protocol negotiated\n')).toThrow(/no summary/)
  })

  it('takes the 99th percentile latency, in milliseconds, from the per-request log', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `1795820901466651\t200\t${(i + 1) * 1000}`)
    expect(p99OfLog(lines.join('\n') + '\n')).toBe(100)
    expect(p99OfLog('')).toBe(0)
  })

  const options = {
    url: 'https://127.0.0.1:8443',
    method: 'POST',
    path: '/api/orders',
    headers: { 'content-type': 'application/json' },
    sessions: 10,
    streams: 5,
    seconds: 4,
  }

  it('loads as fast as h2load goes unless a rate is given, which it shares out over the sessions', () => {
    expect(h2loadArgs(options, 'log.tsv', 'body')).not.toContain('--rps')
    const args = h2loadArgs({ ...options, rate: 15_005 }, 'log.tsv', 'body')
    expect(args.slice(args.indexOf('--rps'), args.indexOf('--rps') + 2)).toEqual(['--rps', '1501'])
    expect(args[0]).toBe('https://127.0.0.1:8443/api/orders')
    expect(args).toContain('--data')
  })

  it('refuses a body on anything but POST, and names another method as a pseudo-header', () => {
    expect(() => h2loadArgs({ ...options, method: 'PUT' }, 'log.tsv', 'body')).toThrow(/POST only/)
    expect(h2loadArgs({ ...options, method: 'DELETE' }, 'log.tsv')).toContain(':method: DELETE')
  })
})
