import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

// Defect: `serve` of a real Postman collection printed 235 WARN lines before `listening on`, one
// per request, and never said what it served. Warnings are now grouped by kind (one example and a
// count; all of them with --verbose), and a terminal gets the routes served.

/** 25 routes, then 3 copies that can never be reached (the later definition is tried first). */
function mocks(): string {
  const dir = tempDir('understudy-startup-')
  const items = Array.from(
    { length: 25 },
    (_, i) =>
      `  - name: route ${i}\n    dsl: { requestDsl: { method: GET, path: /r${i} }, responseDsl: { text: r${i} } }`,
  )
  const copies = Array.from(
    { length: 3 },
    (_, i) =>
      `  - name: copy ${i}\n    dsl: { requestDsl: { method: GET, path: /r${i} }, responseDsl: { text: copy } }`,
  )
  writeFileSync(join(dir, 'mocks.yaml'), `transactions:\n${[...items, ...copies].join('\n')}\n`)
  return dir
}

function warnings(stderr: string): Array<{ msg: string; count?: number }> {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string; count?: number })
    .filter((l) => l.level === 40)
}

describe('what serve says at start-up', () => {
  it('groups warnings of one kind into one line with a count, naming both transactions by index and file:line', async () => {
    const dir = mocks()
    const server = await startCli(['serve', 'mocks.yaml', '--port', '0', '--log-format', 'json'], {
      cwd: dir,
    })
    await server.waitFor('stderr', '"msg":"loaded"')
    const shown = warnings(server.stderr())
    expect(shown).toHaveLength(1)
    expect(shown[0]?.count).toBe(3)
    expect(shown[0]?.msg).toMatch(
      /^transaction 0 "route 0" \(mocks\.yaml:2\) can never be reached: transaction 25 "copy 0" \(mocks\.yaml:52\) matches every request it matches and is tried first \(and 2 more like it; --verbose lists them\)$/,
    )
    await server.stop()
  })

  it('lists every warning with --verbose', async () => {
    const dir = mocks()
    const server = await startCli(
      ['serve', 'mocks.yaml', '--port', '0', '--log-format', 'json', '--verbose'],
      { cwd: dir },
    )
    await server.waitFor('stderr', '"msg":"loaded"')
    expect(warnings(server.stderr()).map((w) => w.msg.replace(/ \(mocks.*/, ''))).toEqual([
      'transaction 0 "route 0"',
      'transaction 1 "route 1"',
      'transaction 2 "route 2"',
    ])
    await server.stop()
  })

  it('prints the routes served (method, path, name) at a terminal, the first 20 and how many more', async () => {
    const dir = mocks()
    const server = await startCli(
      ['serve', 'mocks.yaml', '--port', '0', '--log-format', 'pretty'],
      { cwd: dir },
    )
    await server.waitFor('stderr', 'and 8 more')
    const lines = server.stderr().split('\n')
    const first = lines.findIndex((l) => /^\s+GET\s+\/r0\s+route 0$/.test(l))
    expect(first).toBeGreaterThan(-1)
    expect(
      lines.slice(first, first + 21).map((l) => l.trim().split(/\s+/).slice(0, 2).join(' ')),
    ).toEqual([...Array.from({ length: 20 }, (_, i) => `GET /r${i}`), 'and 8'])
    await server.stop()
  })

  it('does not list routes in JSON logs, which go to collectors', async () => {
    const dir = mocks()
    const server = await startCli(['serve', 'mocks.yaml', '--port', '0', '--log-format', 'json'], {
      cwd: dir,
    })
    await server.waitFor('stderr', '"msg":"loaded"')
    expect(server.stderr()).not.toContain('route 5')
    await server.stop()
  })
})
