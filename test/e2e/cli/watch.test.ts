import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { waitFor } from '../../helpers/wait.js'

async function textOf(url: string): Promise<string> {
  return (await fetch(url)).text()
}

/** Polls until `url` answers `expected` (hot reload is asynchronous). */
async function eventually(url: string, expected: string, timeoutMs = 10_000): Promise<void> {
  let last = ''
  await waitFor(
    async () => {
      last = await textOf(url)
      return last === expected
    },
    `"${expected}" (still "${last}")`,
    { timeoutMs, intervalMs: 100 },
  )
}

describe('understudy serve --watch', () => {
  it('reloads a changed file, keeps the last good set when a file breaks, and recovers', async () => {
    const dir = tempDir()
    const file = join(dir, 'pets.yaml')
    const version = (text: string): string =>
      `- dsl: { requestDsl: { path: /pets }, responseDsl: { text: ${text} } }\n`
    writeFileSync(file, version('v1'))
    const server = await startCli(['serve', dir, '--port', '0', '--watch'])
    await server.waitFor('stderr', '"msg":"watching"')
    expect(await textOf(`${server.url}/pets`)).toBe('v1')

    writeFileSync(file, version('v2'))
    await eventually(`${server.url}/pets`, 'v2')

    writeFileSync(file, '- dsl: { requestDsl: { path: /pets }, responseDsl: { status: 9999 } }\n')
    await server.waitFor('stderr', 'reload failed')
    expect(server.stderr()).toContain('/0/dsl/responseDsl/status')
    expect(await textOf(`${server.url}/pets`)).toBe('v2')

    writeFileSync(file, version('v3'))
    await eventually(`${server.url}/pets`, 'v3')

    writeFileSync(
      join(dir, 'more.yaml'),
      '- dsl: { requestDsl: { path: /more }, responseDsl: { text: added } }\n',
    )
    await eventually(`${server.url}/more`, 'added')
  })
})
