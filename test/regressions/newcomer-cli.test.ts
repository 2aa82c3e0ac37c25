import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli, startCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

// Defects a newcomer met in the first hour: `npm start` warned twice and served more than the
// README said; `--admin` got no "did you mean" and `-port 8080` was read as `-p ort`; an unknown
// matcherName listed every name without the one meant; a file-size limit that could not be
// raised and was printed in bytes; `platform --data-dir` on an unusable path hung.

const root = resolve(import.meta.dirname, '../..')

describe('the command line, as a newcomer meets it', () => {
  it('npm start serves what the README says, without a warning', async () => {
    const scripts = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>
      }
    ).scripts
    const args = (scripts['start'] ?? '').split(' ')
    expect(args.slice(0, 3)).toEqual(['node', 'dist/src/cli/main.js', 'serve'])
    const files = args.slice(3).filter((a) => a.startsWith('examples/'))
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    for (const file of files) {
      expect(readme).toMatch(new RegExp(`\`npm start\` \\(build, then serve \`${file}\``))
    }
    const server = await startCli([...args.slice(2, -2), '--port', '0', '--log-format', 'json'], {
      cwd: root,
    })
    await server.waitFor('stderr', '"msg":"loaded"')
    expect(
      server
        .stderr()
        .split('\n')
        .filter((l) => l.includes('"level":40')),
    ).toEqual([])
    await server.stop()
  })

  it('answers every unknown flag with the one meant', async () => {
    const pets = join(root, 'examples/pets.yaml')
    expect((await runCli(['serve', pets, '--admin', '9090'])).stderr).toBe(
      'understudy serve: unknown flag --admin (did you mean --admin-port?)\n',
    )
    const single = await runCli(['serve', pets, '-port', '9090'])
    expect(single.code).toBe(2)
    expect(single.stderr).toBe('understudy serve: unknown flag -port (did you mean --port?)\n')
    expect((await runCli(['serve', pets, '--prot', '1'])).stderr).toBe(
      'understudy serve: unknown flag --prot (did you mean --port?)\n',
    )
    expect((await runCli(['platform', '--data-dri', 'x'])).stderr).toBe(
      'understudy platform: unknown flag --data-dri (did you mean --data-dir?)\n',
    )
  })

  it('suggests the matcher name meant', async () => {
    const dir = tempDir('understudy-matcher-')
    writeFileSync(
      join(dir, 'm.yaml'),
      '- dsl: { requestDsl: { url: { matcherName: equalz_url, matchingValue: /b } }, responseDsl: {} }\n',
    )
    const result = await runCli(['serve', 'm.yaml', '--port', '0'], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(
      /m\.yaml:1:\d+ \/0\/dsl\/requestDsl\/url\/matcherName: must be one of .* \(did you mean "equals_url"\?\)\n$/,
    )
  })

  it('raises the file-size limit with --max-file-mib and says it in MiB', async () => {
    const dir = tempDir('understudy-size-')
    const pad = 'x'.repeat(700 * 1024)
    writeFileSync(
      join(dir, 'big.yaml'),
      `- name: big\n  dsl: { requestDsl: { path: /big }, responseDsl: { text: ${pad} } }\n`,
    )
    const refused = await runCli(['serve', 'big.yaml', '--port', '0', '--max-file-mib', '0.5'], {
      cwd: dir,
    })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('File big.yaml is larger than the limit of 0.5 MiB')
    const bad = await runCli(['serve', 'big.yaml', '--max-file-mib', 'lots'], { cwd: dir })
    expect(bad.stderr).toBe(
      'understudy serve: --max-file-mib must be a positive number of MiB, not "lots"\n',
    )
    const server = await startCli(['serve', 'big.yaml', '--port', '0', '--max-file-mib', '1'], {
      cwd: dir,
    })
    expect((await (await fetch(`${server.url}/big`)).text()).length).toBe(pad.length)
    await server.stop()
  })

  it('fails at once, in one line, on a --data-dir it cannot use', async () => {
    const dir = tempDir('understudy-data-dir-')
    writeFileSync(join(dir, 'a-file'), '')
    const throughFile = await runCli(
      ['platform', '--port', '0', '--data-dir', join(dir, 'a-file', 'data')],
      { timeoutMs: 15_000 },
    )
    expect(throughFile.signal).toBeNull()
    expect(throughFile.code).toBe(2)
    expect(throughFile.stderr).toBe(
      `understudy platform: --data-dir ${join(dir, 'a-file', 'data')} cannot be used: ${join(dir, 'a-file')} is not a directory\n`,
    )
    // a recursive mkdir never returns for a path under /proc: this one used to hang
    const proc = await runCli(
      ['platform', '--port', '0', '--data-dir', '/proc/understudy-nope/data'],
      { timeoutMs: 15_000 },
    )
    expect(proc.signal).toBeNull()
    expect(proc.code).toBe(2)
    expect(proc.stderr.split('\n')).toHaveLength(2)
  })
})
