// The monitoring schedules' figure: 50 scheduled tests add no measurable latency to the monitoring API. The
// platform (one process, pinned to CPU 1) holds 50 tests, each one request step against a local
// node:http target; autocannon (CPU 0) reads a test's detail view, first with no schedule, then
// with a "1m" schedule on each of the 50 tests. BENCH_SCHEDULE_SCALE divides the interval so that
// the schedules actually fire during a short measurement: with --scale 60 each test runs every
// second (50 runs/s, sixty times the load of 50 one-minute schedules).
//
//   npx tsx bench/monitor-schedules.ts [--duration 5] [--scale 60]
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { startChild } from './child.js'

const root = resolve(import.meta.dirname, '..')
const { values } = parseArgs({
  options: { duration: { type: 'string', default: '5' }, scale: { type: 'string', default: '60' } },
})
const duration = Number(values.duration)
const basic = `Basic ${Buffer.from('bench-key:bench-secret-0123456789').toString('base64')}`

async function call<T>(
  base: string,
  method: string,
  path: string,
  auth: string,
  json?: unknown,
): Promise<T> {
  const res = await fetch(base + path, {
    method,
    headers: {
      authorization: auth,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  })
  const body = (await res.json()) as { data: T; error: unknown }
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(body.error)}`)
  return body.data
}

async function measure(
  url: string,
  token: string,
): Promise<{ rps: number; p50: number; p99: number }> {
  const headers = { authorization: `Bearer ${token}` }
  await autocannon({ url, headers, connections: 10, duration: 2 })
  const r = await autocannon({ url, headers, connections: 10, duration })
  if (r.errors + r.non2xx > 0) throw new Error(`${r.errors} errors, ${r.non2xx} non-2xx`)
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 }
}

const target = await startChild(
  'node',
  ['--import', 'tsx', join(root, 'bench/servers/bare-http.ts')],
  {},
  0,
)
const platform = await startChild(
  'node',
  ['--import', 'tsx', join(root, 'bench/servers/monitor-platform.ts')],
  { BENCH_SCHEDULE_SCALE: values.scale },
  1,
)
try {
  const base = platform.url
  const app = await call<{ access_token: string }>(base, 'POST', '/apps', basic, {
    name: 'bench',
    website_url: 'https://b.example',
    callback_url: 'https://b.example/cb',
  })
  const token = `Bearer ${app.access_token}`
  const account = await call<{ teams: Array<{ id: string }> }>(base, 'GET', '/account', token)
  const bucket = await call<{ key: string }>(
    base,
    'POST',
    `/buckets?name=bench&team_uuid=${account.teams[0]?.id ?? ''}`,
    token,
  )
  const tests = await call<Array<{ id: string; default_environment_id: string }>>(
    base,
    'POST',
    `/buckets/${bucket.key}/tests`,
    token,
    Array.from({ length: 50 }, (_, i) => ({
      name: `t${i}`,
      steps: [
        {
          step_type: 'request',
          method: 'GET',
          url: target.url,
          assertions: [{ source: 'response_status', comparison: 'equal_number', value: 200 }],
        },
      ],
    })),
  )
  const probe = `${base}/buckets/${bucket.key}/tests/${tests[0]?.id ?? ''}`
  // CPU of the idle platform over 10 s, then over one full minute of 50 "1m" schedules (no API load):
  // what the schedules themselves cost, independent of the noise of a shared machine.
  const idle0 = platform.cpuMicros()
  await sleep(10_000)
  const idle1 = platform.cpuMicros()
  const before = await measure(probe, app.access_token)
  for (const t of tests) {
    await call(base, 'POST', `/buckets/${bucket.key}/tests/${t.id}/schedules`, token, {
      environment_id: t.default_environment_id,
      interval: '1m',
    })
  }
  const sched0 = platform.cpuMicros()
  await sleep(Math.max(1, 60 / Number(values.scale)) * 1000 + 2000)
  const sched1 = platform.cpuMicros()
  let runCount = 0
  for (const t of tests) {
    runCount += (
      await call<unknown[]>(
        base,
        'GET',
        `/buckets/${bucket.key}/tests/${t.id}/results?count=50`,
        token,
      )
    ).length
  }
  const after = await measure(probe, app.access_token)
  const runs = await call<unknown[]>(
    base,
    'GET',
    `/buckets/${bucket.key}/tests/${tests[1]?.id ?? ''}/results?count=50`,
    token,
  )
  const row = (name: string, m: { rps: number; p50: number; p99: number }): string =>
    `| ${name} | ${Math.round(m.rps)} | ${m.p50} | ${m.p99} |`
  console.log(`GET test detail, 10 connections, ${duration} s; schedules scaled x${values.scale}`)
  console.log('| phase | req/s | p50 ms | p99 ms |\n|---|---|---|---|')
  console.log(row('50 tests, no schedule', before))
  console.log(row(`50 tests, "1m" schedules firing every ${60 / Number(values.scale)} s`, after))
  console.log(
    `ratio ${(after.rps / before.rps).toFixed(2)}; runs of one test by the end: ${runs.length}`,
  )
  if (idle0 !== null && idle1 !== null && sched0 !== null && sched1 !== null) {
    const windowS = Math.max(1, 60 / Number(values.scale)) + 2
    const idlePerS = (idle1 - idle0) / 10 / 1000
    const schedPerS = (sched1 - sched0) / windowS / 1000
    console.log(
      `platform CPU without API load: idle ${idlePerS.toFixed(1)} ms/s, with the schedules ${schedPerS.toFixed(1)} ms/s over ${windowS} s (${runCount} runs): ${((schedPerS - idlePerS) / 10).toFixed(2)} % of one core`,
    )
  }
} finally {
  await platform.stop()
  await target.stop()
}
