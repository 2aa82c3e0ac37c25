// npx tsx bench/startup.ts: start-up and memory at listening, without a load.
// Options: --sizes 10000,100000 (default), --scenario S1 (whose grown document: bench/suites/scale.ts),
// --cli PATH[,PATH...] (default dist/src/cli/main.js of this checkout; several alternate, one
// process at a time), --runs N (default 3), --later S (default 3: RSS read S seconds after the line).
//
// For each size and run, each CLI starts `understudy run --mock` on the grown document, not pinned;
// printed: wall time from spawn to the `listening on` line, the process's CPU to that line, RSS at
// the line and --later seconds after it. See bench/README.md, "Start-up and memory at listening".
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { startChild } from './child.js'
import { scenarios } from './scenarios/index.js'
import { grown } from './suites/scale.js'

const root = resolve(import.meta.dirname, '..')
const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    scenario: { type: 'string', default: 'S1' },
    cli: { type: 'string', default: join(root, 'dist/src/cli/main.js') },
    runs: { type: 'string', default: '3' },
    later: { type: 'string', default: '3' },
  },
})
const scenario = scenarios.find((s) => s.id === values.scenario)
if (scenario === undefined) throw new Error(`--scenario: no scenario ${values.scenario}`)
const clis = values.cli.split(',')
const work = mkdtempSync(join(tmpdir(), 'understudy-startup-'))
const mib = (bytes: number | null): string => ((bytes ?? 0) / 1048576).toFixed(1)

try {
  for (const size of values.sizes.split(',').map(Number)) {
    const file = join(work, `${scenario.id}-${size}.json`)
    writeFileSync(
      file,
      JSON.stringify({ ...scenario.document, transactions: grown(scenario, size) }),
    )
    for (let run = 0; run < Number(values.runs); run++) {
      for (const cli of clis) {
        const args = [cli, 'run', '--mock', file, '--port', '0', '--log-level', 'warn']
        const server = await startChild(process.execPath, args, {}, null)
        const cpu = server.cpuMicros() ?? 0
        const rssAtLine = server.rss()
        await new Promise((resolve) => setTimeout(resolve, Number(values.later) * 1000))
        const rssLater = server.rss()
        await server.stop()
        console.log(
          `${size}\t${cli}\twall ${(server.startupMs / 1000).toFixed(2)} s\tcpu ${(cpu / 1e6).toFixed(2)} s` +
            `\trss at line ${mib(rssAtLine)} MiB\t${values.later} s later ${mib(rssLater)} MiB`,
        )
      }
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}
