import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { onTestFinished } from 'vitest'
import { startServing } from '../../src/cli/lifecycle.js'
import { loadRuntimeOptions, type RuntimeOptions } from '../../src/config/index.js'
import { readDefinition } from '../../src/dsl/index.js'
import { createSilentLogger } from '../../src/log/index.js'
import { startCli, type CliServer } from './cli.js'
import { tempDir } from './temp-dir.js'

/**
 * `understudy serve` on an empty directory (port 0), as a WireMock stand-in: its WireMock admin
 * API starts with no stubs. `extra` adds flags; `files` writes files to serve first.
 *
 * @example
 * const server = await startWireMockStandIn()
 * await new WireMock(server.url).register({ method: 'GET', endpoint: '/a' }, { status: 200 })
 */
export async function startWireMockStandIn(
  extra: string[] = [],
  files: Record<string, string> = {},
): Promise<CliServer> {
  const dir = tempDir('understudy-wiremock-')
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content)
  return await startCli(['serve', dir, '--port', '0', '--log-level', 'warn', ...extra])
}

/**
 * The runtime as `serve` starts it (src/cli/lifecycle.ts, WireMock admin API included), in this
 * process, on port 0 with no transactions; closed when the test finishes. Faster than a child
 * process, and it counts towards coverage.
 *
 * @example
 * const { url } = await startWireMockInProcess()
 */
export async function startWireMockInProcess(
  options: Partial<RuntimeOptions> = {},
): Promise<{ url: string; adminUrl: string | null }> {
  const serving = await startServing({
    document: readDefinition([]),
    options: loadRuntimeOptions({
      host: '127.0.0.1',
      port: 0,
      logLevel: 'silent',
      drainTimeout: 2000,
      ...options,
    }),
    log: createSilentLogger(),
    logRing: null,
    out: new PassThrough(),
  })
  onTestFinished(serving.stop)
  return { url: serving.runtime.urls.http, adminUrl: serving.admin?.url ?? null }
}
