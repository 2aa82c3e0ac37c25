import { execFile, execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { wiremockJarPath } from '../../../bench/wiremock-jar.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { startWireMockInProcess } from '../../helpers/wiremock.js'

// WireMock's own Java client (com.github.tomakehurst.wiremock.client.WireMock, inside the
// standalone jar) drives Understudy: a small program compiled with javac against the jar runs
// stubFor, the stub served, verify, findAll and reset. The jar is not a dependency: it is fetched
// by `npm run bench:wiremock` into bench/.cache (or named by WIREMOCK_JAR); without it, or
// without a JDK, the test is skipped and says why.

const execFileAsync = promisify(execFile)

function missing(): string | null {
  for (const tool of ['javac', 'java']) {
    try {
      execFileSync(tool, ['-version'], { stdio: 'ignore' })
    } catch {
      return `${tool} is not on PATH`
    }
  }
  if (!existsSync(wiremockJarPath())) {
    return `no WireMock jar at ${wiremockJarPath()} (npm run bench:wiremock fetches it, or set WIREMOCK_JAR)`
  }
  return null
}

const reason = missing()
const title =
  reason === null ? "WireMock's Java client" : `WireMock's Java client (skipped: ${reason})`

describe.skipIf(reason !== null)(title, () => {
  it("stubs, is served, verifies, finds and resets through Understudy's /__admin", async () => {
    const jar = wiremockJarPath()
    const classes = tempDir('understudy-wiremock-java-')
    await execFileAsync(
      'javac',
      ['-cp', jar, '-d', classes, join(import.meta.dirname, 'java', 'DriveUnderstudy.java')],
      { timeout: 120_000 },
    )
    const { url } = await startWireMockInProcess()
    const { hostname, port } = new URL(url)
    const run = await execFileAsync(
      'java',
      ['-cp', `${jar}${delimiter}${classes}`, 'DriveUnderstudy', hostname, port],
      { timeout: 120_000 },
    )
    expect(run.stdout.trim()).toBe('OK')
  }, 300_000)
})
