import { describe, expect, it } from 'vitest'
import { startUpstream } from '../helpers/upstream.js'
import { waitFor } from '../helpers/wait.js'
import { startMonitorPlatform } from '../e2e/monitor/helpers.js'

// Defect: one account's 33 paused runs held all 32 run slots, and another account's one-request
// test had not started after 20 s. Slots are shared fairly: an account executes at most half of
// them, and a freed slot goes to the waiting account with the fewest runs executing.

const FLOOD = 33

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read loosely
type Loose = any

describe('run slots are shared fairly between accounts', () => {
  it("runs another account's test at once while one account's paused runs fill the runner", async () => {
    // Pause steps wait on a gate the test opens at the end, so the flood holds its slots meanwhile.
    let open = false
    const gate: Array<() => void> = []
    let paused = 0
    const m = await startMonitorPlatform({
      run: {
        sleep: async () => {
          if (open) return
          paused++
          await new Promise<void>((resolve) => gate.push(resolve))
        },
      },
    })
    const release = (): void => {
      open = true
      for (const resume of gate.splice(0)) resume()
    }
    try {
      // Account A (the bootstrap account): a bucket of 33 tests that pause, all triggered at once.
      const flood = await m.bucket('flood')
      for (let i = 0; i < FLOOD; i++) {
        const res = await m.call('POST', `/buckets/${flood}/tests`, {
          json: { name: `pause ${i}`, steps: [{ step_type: 'pause', duration: 60 }] },
        })
        expect(res.status).toBe(201)
      }
      const floodBucket = (await m.call('GET', `/buckets/${flood}`)).body.data
      const triggered = await fetch(floodBucket.trigger_url)
      expect(triggered.status).toBe(201)
      expect(((await triggered.json()) as Loose).data.runs_started).toBe(FLOOD)
      await waitFor(() => paused >= 16, 'the flood to hold its share of the slots', {
        timeoutMs: 20_000,
        intervalMs: 20,
      })

      // Account B: its own owner, token, bucket and a one-request test.
      const made = await fetch(`${m.url}/api/v4/accounts`, {
        method: 'POST',
        headers: { authorization: m.basic, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Other', ownerEmail: 'owner@other.test' }),
      })
      expect(made.status).toBe(201)
      const key = ((await made.json()) as Loose).result.apiKey as { id: string; secret: string }
      const basicB = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`
      const app = await m.call('POST', '/apps', {
        token: null,
        headers: { authorization: basicB },
        json: { name: 'B', website_url: 'https://b.example', callback_url: 'https://b.example/cb' },
      })
      expect(app.status).toBe(201)
      const tokenB = app.body.data.access_token as string
      const teamB = (await m.call('GET', '/account', { token: tokenB })).body.data.teams[0]
        .id as string
      const bucketB = (
        await m.call('POST', `/buckets?name=b&team_uuid=${teamB}`, { token: tokenB })
      ).body.data.key as string
      const upstream = await startUpstream()
      const testB = (
        await m.call('POST', `/buckets/${bucketB}/tests`, {
          token: tokenB,
          json: {
            name: 'one request',
            steps: [{ step_type: 'request', method: 'GET', url: `${upstream.url}/ping` }],
          },
        })
      ).body.data
      const started = await fetch(testB.trigger_url)
      expect(started.status).toBe(201)
      const runUrl = ((await started.json()) as Loose).data.runs[0].url as string

      let result = ''
      await waitFor(
        async () => {
          result = (
            (await (
              await fetch(runUrl, { headers: { authorization: `Bearer ${tokenB}` } })
            ).json()) as Loose
          ).data.result
          return result === 'pass' || result === 'fail'
        },
        "account B's run to finish while account A's runs are paused",
        { timeoutMs: 15_000, intervalMs: 50 },
      )
      expect(result).toBe('pass')
      expect(upstream.requests).toHaveLength(1)
      // The flood is still paused: B did not wait for it.
      expect(open).toBe(false)
      expect(gate.length).toBeGreaterThanOrEqual(16)
    } finally {
      release()
    }
  })
})
