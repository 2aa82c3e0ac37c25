import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
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
export async function startWireMockStandIn (extra: string[] = [], files: Record<string, string> = {}): Promise<CliServer> {
  const dir = tempDir('understudy-wiremock-')
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content)
  return await startCli(['serve', dir, '--port', '0', '--log-level', 'warn', ...extra])
}
