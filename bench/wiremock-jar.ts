// WireMock's standalone jar, for the WireMock side-by-side bench and the Java client test only: the
// npm package `wiremock` ships it. It is fetched with `npm pack` into bench/.cache (gitignored),
// never installed as a dependency, so `npm ci` does not download it.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** The WireMock release measured (the npm package's version is WireMock's). */
export const WIREMOCK_VERSION = '3.13.2'

const cacheDir = resolve(import.meta.dirname, '.cache')

/** Where the jar is once fetched (or `WIREMOCK_JAR`, a jar of one's own). */
export function wiremockJarPath(): string {
  return (
    process.env['WIREMOCK_JAR'] ??
    join(cacheDir, 'wiremock', 'package', 'build', `wiremock-standalone-${WIREMOCK_VERSION}.jar`)
  )
}

/**
 * The jar, fetched with `npm pack wiremock@VERSION` and unpacked into bench/.cache on first use.
 *
 * @example
 * const jar = fetchWireMockJar() // bench/.cache/wiremock/package/build/wiremock-standalone-3.13.2.jar
 */
export function fetchWireMockJar(): string {
  const jar = wiremockJarPath()
  if (existsSync(jar)) return jar
  const target = join(cacheDir, 'wiremock')
  mkdirSync(target, { recursive: true })
  console.log(
    `fetching wiremock@${WIREMOCK_VERSION} (the standalone jar, about 18 MB) into ${target}`,
  )
  execFileSync(
    'npm',
    ['pack', `wiremock@${WIREMOCK_VERSION}`, '--pack-destination', target, '--silent'],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  )
  execFileSync('tar', ['-xzf', join(target, `wiremock-${WIREMOCK_VERSION}.tgz`), '-C', target])
  if (!existsSync(jar)) throw new Error(`the wiremock package did not contain ${jar}`)
  return jar
}

/** True when `java -version` runs (WireMock 3 needs Java 11 or later). */
export function hasJava(): boolean {
  try {
    execFileSync('java', ['-version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
