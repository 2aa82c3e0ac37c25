// The HTTP/2 compatibility API against answering on the 'stream' event, both bare: what the
// compat layer's request and response objects cost per request (CPU and bytes allocated).
//   npx tsx bench/h2-api.ts [--duration 4] [--rounds 3] [--method POST]
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { loadTlsMaterial } from '../src/serve/tls.js'
import { startChild } from './child.js'
import { measureRounds, summarize, type Contender } from './suites/measure.js'
import { get, post } from './suites/paths.js'

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    method: { type: 'string', default: 'POST' },
  },
})
const root = resolve(import.meta.dirname, '..')
const work = mkdtempSync(join(tmpdir(), 'understudy-h2api-'))
const tls = await loadTlsMaterial(null, null)
writeFileSync(join(work, 'cert.pem'), tls.cert)
writeFileSync(join(work, 'key.pem'), tls.key)
const bare = (kind: 'h2' | 'h2stream'): Contender => ({
  name: kind === 'h2' ? 'compat API' : "'stream' event",
  start: async () =>
    await startChild(
      process.execPath,
      ['--import', 'tsx', join(root, 'bench/servers/bare-tls.ts')],
      {
        BARE_KIND: kind,
        TLS_CERT: join(work, 'cert.pem'),
        TLS_KEY: join(work, 'key.pem'),
      },
    ),
})
const contenders = [bare('h2'), bare('h2stream')]
const request = { ...(values.method === 'GET' ? get : post), protocol: 'h2' as const }
const runs = await measureRounds(
  contenders,
  request,
  { duration: Number(values.duration), connections: 50 },
  Number(values.rounds),
)
const [compat, stream] = runs.map(summarize) as [
  ReturnType<typeof summarize>,
  ReturnType<typeof summarize>,
]
const each = (i: number): string =>
  (runs[i] ?? []).map((r) => (r.cpuMicrosPerRequest ?? Number.NaN).toFixed(1)).join(', ')
console.log(
  `h2 ${request.method}: compat ${compat.cpu.toFixed(1)} us/req (runs ${each(0)}), ` +
    `'stream' ${stream.cpu.toFixed(1)} us/req (runs ${each(1)}): ` +
    `stream / compat ${(stream.cpu / compat.cpu).toFixed(3)}`,
)
