// Bytes allocated per request, by function: a figure that does not move with the machine's load
// (unlike CPU time), for comparing two builds or a build against a bare server.
//
//   npx tsx bench/alloc.ts --protocol h2 --method POST                # this build
//   npx tsx bench/alloc.ts --protocol h2 --method POST --cli ../before # another build's dist/
//   npx tsx bench/alloc.ts --protocol https --method POST --server bare
//
// The server runs with bench/alloc/sampler.mjs preloaded: after a warm-up, V8's sampling heap
// profiler (objects freed by either collection included) runs for `--duration` seconds of load.
import { mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { loadTlsMaterial } from '../src/serve/tls.js'
import { startChild, type ChildServer } from './child.js'
import { load, type LoadRequest } from './suites/measure.js'
import { get, getAndPost, post } from './suites/paths.js'

const { values } = parseArgs({
  options: {
    protocol: { type: 'string', default: 'h2' },
    method: { type: 'string', default: 'POST' },
    server: { type: 'string', default: 'understudy' },
    cli: { type: 'string' },
    duration: { type: 'string', default: '5' },
    top: { type: 'string', default: '20' },
  },
})
const protocol = values.protocol as 'http' | 'https' | 'h2' | 'h2stream'
const root = resolve(import.meta.dirname, '..')
const cli = join(resolve(values.cli ?? root), 'dist/src/cli/main.js')
const sampler = join(root, 'bench/alloc/sampler.mjs')
const work = mkdtempSync(join(tmpdir(), 'understudy-alloc-'))
const out = join(work, 'alloc.heapprofile')
const tls = await loadTlsMaterial(null, null)
const cert = join(work, 'cert.pem')
const key = join(work, 'key.pem')
writeFileSync(cert, tls.cert)
writeFileSync(key, tls.key)
const document = join(work, 'paths.json')
writeFileSync(document, JSON.stringify(getAndPost))
const request: LoadRequest = {
  ...(values.method === 'GET' ? get : post),
  protocol: protocol.startsWith('h2') ? 'h2' : 'http1',
}

async function start(): Promise<ChildServer> {
  const env = { ALLOC_OUT: out }
  if (values.server === 'bare') {
    const file = protocol === 'http' ? 'bench/servers/bare-http.ts' : 'bench/servers/bare-tls.ts'
    return await startChild(
      process.execPath,
      ['--import', 'tsx', '--import', sampler, join(root, file)],
      { ...env, BARE_KIND: protocol, TLS_CERT: cert, TLS_KEY: key },
    )
  }
  const server = await startChild(
    process.execPath,
    [
      '--import',
      sampler,
      cli,
      'run',
      '--mock',
      document,
      '--port',
      '0',
      '--tls-port',
      '0',
      '--tls-cert',
      cert,
      '--tls-key',
      key,
      '--log-level',
      'warn',
    ],
    env,
  )
  if (protocol === 'http') return server
  const url = /https \(h2, http\/1\.1\) on (https:\/\/\S+)/.exec(server.banner)?.[1]
  if (url === undefined) throw new Error(`no https line in: ${server.banner}`)
  return { ...server, url }
}

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number }
  selfSize: number
  children: ProfileNode[]
}

const server = await start()
const settings = { duration: Number(values.duration), connections: 50 }
try {
  await load(server, request, 2, settings)
  process.kill(server.pid, 'SIGUSR2')
  // The load generator's own start-up must not count: give the signal a moment.
  await new Promise((resolve) => setTimeout(resolve, 200))
  const before = Date.now()
  const measured = await load(server, request, settings.duration, settings)
  process.kill(server.pid, 'SIGUSR2')
  while (!existsSync(out) && Date.now() - before < 60_000) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  await new Promise((resolve) => setTimeout(resolve, 300))
  const requests = Math.round(measured.requestsPerSecond * settings.duration)
  const head = (JSON.parse(readFileSync(out, 'utf8')) as { head: ProfileNode }).head
  const byFunction = new Map<string, number>()
  let total = 0
  let own = 0
  const walk = (node: ProfileNode): void => {
    const frame = node.callFrame
    const where = frame.url === '' ? '' : ` ${basename(frame.url)}:${frame.lineNumber + 1}`
    const name = `${frame.functionName || '(anonymous)'}${where}`
    byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize)
    total += node.selfSize
    if (frame.url.includes('/dist/src/')) own += node.selfSize
    node.children.forEach(walk)
  }
  walk(head)
  console.log(
    `${values.server} ${protocol} ${request.method}: ${requests} requests, ` +
      `${Math.round(total / requests)} bytes allocated per request (sampled), ` +
      `${Math.round(own / requests)} of them by Understudy's own functions (dist/src)`,
  )
  const top = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))
  for (const [name, bytes] of top) {
    console.log(`${String(Math.round(bytes / requests)).padStart(7)} B/req  ${name}`)
  }
} finally {
  await server.stop()
}
