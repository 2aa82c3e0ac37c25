// npm run bench:import: imports GitHub's REST API description (@octokit/openapi, 13 MB, fetched
// once into node_modules/.cache: scripts/github-description.ts) in this
// fresh process, reports time and peak RSS, then serves the result with the runtime and calls
// every operation once, reporting how many were answered. Targets: < 10 s, < 1 GiB.
import { readFileSync } from 'node:fs'
import { importOpenApi } from '../importers/openapi/index.js'
import { matchPath, serverBase } from '../importers/openapi/paths.js'
import { loadRuntimeOptions } from '../src/config/index.js'
import { createSilentLogger } from '../src/log/index.js'
import { startRuntime } from '../src/serve/index.js'
import { fetchGithubDescription } from '../scripts/github-description.js'

const file = fetchGithubDescription()
const bytes = readFileSync(file)
let peak = process.memoryUsage().rss
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss)
}, 10)
const started = performance.now()
const { document, warnings } = importOpenApi({ bytes, fileName: 'api.github.com.json' })
const importMs = performance.now() - started
peak = Math.max(peak, process.memoryUsage().rss)
clearInterval(sampler)
console.log(
  `import: ${document.transactions.length} transactions from ${(bytes.length / 1048576).toFixed(1)} MB in ${(importMs / 1000).toFixed(2)} s, peak RSS ${(peak / 1048576).toFixed(0)} MiB, ${warnings.length} warnings`,
)

const compileStarted = performance.now()
const runtime = await startRuntime({
  document,
  options: loadRuntimeOptions({ port: 0, inspection: { enabled: false } }),
  log: createSilentLogger(),
})
console.log(
  `compile and listen: ${((performance.now() - compileStarted) / 1000).toFixed(2)} s, RSS ${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB`,
)

const doc = JSON.parse(bytes.toString('utf8')) as {
  servers?: unknown
  paths: Record<string, Record<string, unknown>>
}
const base = serverBase(doc.servers)
let operations = 0
let answered = 0
const callsStarted = performance.now()
for (const [key, item] of Object.entries(doc.paths)) {
  for (const method of ['get', 'put', 'post', 'delete', 'patch', 'head', 'options']) {
    if (item[method] === undefined) continue
    operations++
    const url = matchPath(base.prefix, key).path.replace(/\{[^{}]+\}/g, 'sample1')
    const res = await fetch(runtime.urls.http + url, {
      method: method.toUpperCase(),
      redirect: 'manual',
    })
    await res.arrayBuffer()
    if (res.headers.get('content-type') !== 'application/problem+json') answered++
  }
}
console.log(
  `serve: ${answered} of ${operations} operations answered (${((performance.now() - callsStarted) / 1000).toFixed(1)} s for the calls)`,
)
await runtime.close()
