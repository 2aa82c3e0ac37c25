// npx tsx bench/upload.ts [--entries 61000] [--file x.har] [--convert] [--profile DIR]: the figures for a
// large HAR upload to the platform (built dist/). While the file is uploaded, imported and
// stored (`POST /api/v1/workspaces/1/transactions`, or `/transactions/convert` with --convert), a
// worker thread of this process asks `GET /api/v4/web/version` every 10 ms; reported: the upload's
// time (to the answer's last byte), the worst, p99 and median answer of those pings (target: every one within 100 ms), and the
// platform's resident memory before and at its peak (VmHWM), and its CPU time during the upload.
// The platform is not pinned to a core: its import worker thread must not share its event loop's.
// --profile DIR: the platform runs with `--cpu-prof` (one .cpuprofile for its main thread and one
// for each import worker thread), written to DIR when it stops.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { Worker } from 'node:worker_threads'
import { startChild } from './child.js'
import { generateHar } from './har-generate.js'

const root = resolve(import.meta.dirname, '..')
const cli = join(root, 'dist/src/cli/main.js')
const { values } = parseArgs({
  options: {
    entries: { type: 'string', default: '61000' },
    file: { type: 'string' },
    convert: { type: 'boolean', default: false },
    profile: { type: 'string' },
  },
})
const key = { id: 'bench-key', secret: 'bench-secret-0123456789' }
const auth = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`
const mib = (bytes: number | null): string =>
  bytes === null ? '?' : `${Math.round(bytes / 1024 / 1024)} MiB`

const work = mkdtempSync(join(tmpdir(), 'understudy-bench-upload-'))
let file = values.file
if (file === undefined) {
  file = join(work, 'upload.har')
  writeFileSync(file, generateHar(Number(values.entries)))
}
const bytes = readFileSync(file)

// The pinger: its own event loop, so the upload this thread sends does not delay its pings.
const pingerSource = `
const { parentPort, workerData } = require('node:worker_threads')
const times = []
let running = true
parentPort.on('message', () => { running = false })
;(async () => {
  // one request first, unmeasured: this thread's first fetch loads and compiles its HTTP client
  await (await fetch(workerData.url)).arrayBuffer()
  while (running) {
    const started = performance.now()
    const res = await fetch(workerData.url)
    await res.arrayBuffer()
    times.push(performance.now() - started)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  parentPort.postMessage(times)
})()
`

const profile =
  values.profile === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', resolve(values.profile)]
const platform = await startChild(
  process.execPath,
  [
    ...profile,
    cli,
    'platform',
    '--port',
    '0',
    '--data-dir',
    join(work, 'data'),
    '--log-level',
    'warn',
    '--upload-limit',
    String(256 * 1024 * 1024),
  ],
  { UNDERSTUDY_API_KEY_ID: key.id, UNDERSTUDY_API_KEY_SECRET: key.secret },
  null,
)
try {
  const service = (await (
    await fetch(`${platform.url}/api/v1/workspaces/1/services`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'upload' }),
    })
  ).json()) as { result: { id: number } }
  const rssBefore = platform.rss()
  const pinger = new Worker(pingerSource, {
    eval: true,
    workerData: { url: `${platform.url}/api/v4/web/version` },
  })
  const pings = new Promise<number[]>((resolve) => pinger.once('message', resolve))
  await new Promise((resolve) => setTimeout(resolve, 300))
  // The multipart body written out (undici's FormData streams a large Blob very slowly).
  const boundary = 'bench-boundary-8f3a'
  const form = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\ncontent-disposition: form-data; name="serviceId"\r\n\r\n${service.result.id}\r\n` +
        `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="upload.har"\r\ncontent-type: application/octet-stream\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  const cpuBefore = platform.cpuMicros() ?? 0
  const started = performance.now()
  const path = values.convert ? '/api/v1/transactions/convert' : '/api/v1/workspaces/1/transactions'
  const res = await fetch(platform.url + path, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: form,
  })
  // the server's time ends with the answer's last byte; the client's parse of it is reported apart
  const raw = await res.arrayBuffer()
  const ms = performance.now() - started
  const body = JSON.parse(Buffer.from(raw).toString('utf8')) as {
    result?: unknown[]
    error?: unknown
  }
  const parseMs = performance.now() - started - ms
  const cpu = ((platform.cpuMicros() ?? 0) - cpuBefore) / 1000
  await new Promise((resolve) => setTimeout(resolve, 100))
  pinger.postMessage('stop')
  const times = (await pings).sort((a, b) => a - b)
  await pinger.terminate()
  if (res.status !== 200) {
    throw new Error(`upload answered ${res.status}: ${JSON.stringify(body.error)}`)
  }
  const at = (q: number): number =>
    times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? NaN
  console.log(
    `${path}: ${(bytes.byteLength / 1024 / 1024).toFixed(1)} MiB HAR, ${body.result?.length ?? 0} transactions in ${Math.round(ms)} ms to the answer's last byte (platform CPU ${Math.round(cpu)} ms; the client then parsed the ${(raw.byteLength / 1024 / 1024).toFixed(1)} MiB answer in ${Math.round(parseMs)} ms)`,
  )
  console.log(
    `pings every 10 ms: ${times.length}, worst ${at(1).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, median ${at(0.5).toFixed(1)} ms (target: all < 100 ms)`,
  )
  console.log(`platform RSS: ${mib(rssBefore)} before, peak ${mib(platform.peakRss())}`)
} finally {
  await platform.stop()
  rmSync(work, { recursive: true, force: true })
}
