import { describe, expect, it } from 'vitest'
import { startUpstream } from '../helpers/upstream.js'
import { waitFor } from '../helpers/wait.js'
import { startMonitorPlatform, type MonitorPlatform } from '../e2e/monitor/helpers.js'

// Defect: runner variables named like Object.prototype members (`__proto__`, `toString`,
// `valueOf`, `hasOwnProperty`, `__defineGetter__`) broke the step ("is not a function") or
// produced `[object Undefined]`; a set one could be swallowed by the `__proto__` setter. Variables
// live in maps without a prototype: unset names stay as written, set ones work like any other.

const NAMES = ['__proto__', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__'] as const
const TEMPLATE = NAMES.map((n) => `${n}={{${n}}}`).join(';')

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the run document is read loosely
type Loose = any

async function finished(m: MonitorPlatform, url: string): Promise<Loose> {
  let data: Loose
  await waitFor(
    async () => {
      const res = await fetch(url, { headers: { authorization: `Bearer ${m.token}` } })
      data = ((await res.json()) as { data: Loose }).data
      return data.result === 'pass' || data.result === 'fail'
    },
    'the run to finish',
    { timeoutMs: 20_000, intervalMs: 50 },
  )
  return data
}

describe('runner variables named like Object.prototype members', () => {
  it('stay as written when unset and work when set (trigger, extraction, script)', async () => {
    const m = await startMonitorPlatform()
    const upstream = await startUpstream()
    const key = await m.bucket()
    const test = (
      await m.call('POST', `/buckets/${key}/tests`, {
        json: {
          name: 'prototype names',
          steps: [
            {
              step_type: 'request',
              method: 'POST',
              url: '{{base}}/first',
              body: TEMPLATE,
              assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
            },
            {
              step_type: 'request',
              method: 'POST',
              url: '{{base}}/second',
              body: 'x',
              variables: [{ name: 'valueOf', source: 'response_json', property: 'method' }],
              scripts: [
                'variables.set("__proto__", "from-script"); var t = variables.get("toString"); assert.isTrue(t === null || typeof t === "string", "toString is data or nothing")',
              ],
            },
            { step_type: 'request', method: 'POST', url: '{{base}}/third', body: TEMPLATE },
          ],
        },
      })
    ).body.data

    const plain = await fetch(`${test.trigger_url}?base=${encodeURIComponent(upstream.url)}`)
    expect(plain.status).toBe(201)
    const first = await finished(m, ((await plain.json()) as Loose).data.runs[0].url)
    expect(first.result, JSON.stringify(first.requests?.map((r: Loose) => r.error))).toBe('pass')
    const bodies = upstream.requests.map((r) => r.body.toString('utf8'))
    expect(bodies[0]).toBe(TEMPLATE)
    expect(bodies[2]).toBe(
      `__proto__=from-script;toString={{toString}};valueOf=POST;hasOwnProperty={{hasOwnProperty}};__defineGetter__={{__defineGetter__}}`,
    )
    expect(first.variables).toMatchObject({ valueOf: 'POST' })
    expect(Object.hasOwn(first.variables, '__proto__')).toBe(true)

    // Trigger parameters of these names are variables like any other.
    const query = NAMES.map((n) => `${n}=${n.toUpperCase()}`).join('&')
    const named = await fetch(
      `${test.trigger_url}?base=${encodeURIComponent(upstream.url)}&${query}`,
    )
    expect(named.status).toBe(201)
    const second = await finished(m, ((await named.json()) as Loose).data.runs[0].url)
    expect(second.result).toBe('pass')
    expect(upstream.requests[3]?.body.toString('utf8')).toBe(
      NAMES.map((n) => `${n}=${n.toUpperCase()}`).join(';'),
    )
  })
})
