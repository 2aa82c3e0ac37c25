// npm run bench:post-serve: does a postServe webhook on every answer slow the answers? One
// `understudy run` answering GET /api/hello plainly and one calling a local webhook receiver after
// every answer, loaded alike by autocannon at a fixed rate (default 5,000 req/s) and then
// unthrottled, in alternating rounds. Options: --rate N, --duration S (default 10), --rounds R
// (default 2), --connections N (default 50), --pin false (runtimes not pinned to CPU 1, so that the
// webhook sender thread may use the other core). See bench/README.md.
import { mkdtempSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { startChild, type ChildServer } from './child.js'

const root = resolve(import.meta.dirname, '..')
const cli = join(root, 'dist/src/cli/main.js')
const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '5000' },
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    pin: { type: 'string', default: 'true' },
  },
})
const cpu = values.pin === 'false' ? null : 1
const rate = Number(values.rate)
const duration = Number(values.duration)
const rounds = Number(values.rounds)
const connections = Number(values.connections)

interface Measured {
  requestsPerSecond: number
  p50: number
  p99: number
  mean: number
  errors: number
  non2xx: number
  cpuMicrosPerRequest: number | null
}

function mockFile(dir: string, hookUrl: string | null): string {
  const response: Record<string, unknown> = { status: 200, json: { hello: 'world' } }
  if (hookUrl !== null) {
    response['postServe'] = [
      {
        url: `${hookUrl}/hook`,
        method: 'POST',
        body: '{"path": "{{request.path}}", "status": {{response.status}} }',
      },
    ]
  }
  const file = join(dir, hookUrl === null ? 'plain.json' : 'hooked.json')
  writeFileSync(
    file,
    JSON.stringify({
      transactions: [
        { dsl: { requestDsl: { method: 'GET', path: '/api/hello' }, responseDsl: response } },
      ],
    }),
  )
  return file
}

async function load(server: ChildServer, overallRate: number | null): Promise<Measured> {
  const cpuBefore = server.cpuMicros()
  const result = await autocannon({
    url: `${server.url}/api/hello`,
    connections,
    pipelining: 1,
    duration,
    ...(overallRate === null ? {} : { overallRate }),
  })
  const cpuAfter = server.cpuMicros()
  const served = result['2xx']
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.average,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    cpuMicrosPerRequest:
      cpuBefore === null || cpuAfter === null || served === 0
        ? null
        : (cpuAfter - cpuBefore) / served,
  }
}

interface HookStats {
  sent: number
  failed: number
  dropped: number
  queued: number
}

async function hookStats(adminUrl: string): Promise<HookStats> {
  const body = (await (await fetch(`${adminUrl}/scenarios`)).json()) as {
    result: { postServe: HookStats | null }
  }
  return body.result.postServe ?? { sent: 0, failed: 0, dropped: 0, queued: 0 }
}

async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function received(receiverUrl: string): Promise<number> {
  return Number(await (await fetch(`${receiverUrl}/count`)).text())
}

const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-bench-hooks-'))
  // the receiver shares the load generator's core; the runtimes get the other one
  const receiver = await startChild(
    process.execPath,
    ['--import', 'tsx', join(root, 'bench/servers/webhook-receiver.ts')],
    {},
    0,
  )
  const plainFile = mockFile(dir, null)
  const hookedFile = mockFile(dir, receiver.url)
  const results: Record<string, Measured[]> = {}
  const webhookChecks: string[] = []
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const [mode, limit] of [
        [`${rate} req/s`, rate],
        ['unthrottled', null],
      ] as const) {
        for (const kind of ['without webhook', 'with webhook'] as const) {
          const adminPort = await freePort()
          const adminUrl = `http://127.0.0.1:${adminPort}`
          const server = await startChild(
            process.execPath,
            [
              cli,
              'run',
              '--mock',
              kind === 'with webhook' ? hookedFile : plainFile,
              '--port',
              '0',
              '--admin-port',
              String(adminPort),
              '--log-level',
              'warn',
            ],
            {},
            cpu,
          )
          try {
            await autocannon({ url: `${server.url}/api/hello`, connections, duration: 2 }) // warm-up
            // the warm-up's webhooks first
            if (kind === 'with webhook') {
              for (let i = 0; i < 150 && (await hookStats(adminUrl)).queued > 0; i++) {
                await new Promise((resolve) => setTimeout(resolve, 200))
              }
            }
            const before = await received(receiver.url)
            const statsBefore = kind === 'with webhook' ? await hookStats(adminUrl) : null
            const measured = await load(server, limit)
            ;(results[`${mode} ${kind}`] ??= []).push(measured)
            process.stdout.write(
              `round ${round} ${mode} ${kind}: ${Math.round(measured.requestsPerSecond)} req/s, p50 ${measured.p50} ms, p99 ${measured.p99} ms\n`,
            )
            if (statsBefore !== null) {
              // every answer's webhook arrives: wait for the queue to drain, then compare
              const deadline = Date.now() + 60_000
              let stats = await hookStats(adminUrl)
              while (stats.queued > 0 && Date.now() < deadline) {
                await new Promise((resolve) => setTimeout(resolve, 200))
                stats = await hookStats(adminUrl)
              }
              const fired =
                stats.sent +
                stats.failed +
                stats.dropped -
                statsBefore.sent -
                statsBefore.failed -
                statsBefore.dropped
              const got = (await received(receiver.url)) - before
              webhookChecks.push(
                `round ${round} ${mode}: ${fired} answers fired a webhook, ${got} received, ${stats.failed - statsBefore.failed} failed, ${stats.dropped - statsBefore.dropped} dropped, ${stats.queued} still queued`,
              )
            }
          } finally {
            await server.stop()
          }
        }
      }
    }
  } finally {
    await receiver.stop()
  }
  process.stdout.write(
    '\n| load | webhook | req/s | p50 ms | p99 ms | mean ms | CPU/req | errors |\n|---|---|---|---|---|---|---|---|\n',
  )
  for (const [name, runs] of Object.entries(results)) {
    const [mode, kind] = name.includes('unthrottled')
      ? ['unthrottled', name.replace('unthrottled ', '')]
      : [`${rate} req/s`, name.replace(`${rate} req/s `, '')]
    const cpu = runs.map((r) => r.cpuMicrosPerRequest).filter((c): c is number => c !== null)
    process.stdout.write(
      `| ${mode} | ${kind === 'with webhook' ? 'yes' : 'no'} | ${Math.round(median(runs.map((r) => r.requestsPerSecond))).toLocaleString('en')} | ${median(runs.map((r) => r.p50))} | ${median(runs.map((r) => r.p99))} | ${median(runs.map((r) => r.mean)).toFixed(2)} | ${cpu.length === 0 ? 'n/a' : `${median(cpu).toFixed(1)} us`} | ${runs.reduce((n, r) => n + r.errors + r.non2xx, 0)} |\n`,
    )
  }
  process.stdout.write(`\n${webhookChecks.join('\n')}\n`)
}

await main()
