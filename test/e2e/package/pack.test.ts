import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, symlinkSync } from 'node:fs'
import { join, resolve as resolvePath } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli, startCli } from '../../helpers/cli.js'
import { linkDependencies } from '../../helpers/installed-package.js'
import { tempDir } from '../../helpers/temp-dir.js'

const root = resolvePath(import.meta.dirname, '../../..')

/**
 * `npm pack` gives a tarball that works once installed. The tarball is made from the built tree
 * (`--ignore-scripts`: its `prepack` would rebuild dist/ under the other tests' feet), unpacked,
 * and run against the repository's node_modules, as `npm i` would lay it out, without the
 * network. docs/library.md shows the real `npm i -g` of the tarball.
 */
describe('npm pack', () => {
  it('ships the built command, the library with its types, the dashboard, the schema and the examples, and they work', async () => {
    const dir = tempDir('understudy-pack-')
    const out = execFileSync(
      'npm',
      ['pack', '--ignore-scripts', '--json', '--pack-destination', dir],
      { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000 },
    )
    const [info] = JSON.parse(out) as Array<{
      filename: string
      name: string
      files: Array<{ path: string }>
    }>
    expect(info?.name).toBe('@understudy-mock/understudy')
    const paths = new Set(info?.files.map((f) => f.path))
    for (const needed of [
      'package.json',
      'README.md',
      'dist/ui/index.html',
      'dist/ui/app.js',
      'dist/ui/app.css',
      'dist/src/cli/main.js',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/importers/index.js',
      'schema/understudy.schema.json',
      'examples/payments-api.yaml',
    ]) {
      expect(paths.has(needed), needed).toBe(true)
    }
    expect(
      [...paths].some(
        (p) =>
          p.startsWith('test/') ||
          p.startsWith('dist/test/') ||
          p.startsWith('src/') ||
          p.endsWith('.map'),
      ),
    ).toBe(false)

    execFileSync('tar', ['xzf', join(dir, info?.filename ?? ''), '-C', dir])
    const pkgDir = join(dir, 'package')
    const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >
    expect(manifest['private']).toBeUndefined()
    expect(manifest['bin']).toEqual({ understudy: 'dist/src/cli/main.js' })
    expect(
      readFileSync(join(pkgDir, 'dist/src/cli/main.js'), 'utf8').startsWith(
        '#!/usr/bin/env node\n',
      ),
    ).toBe(true)
    symlinkSync(join(root, 'node_modules'), join(pkgDir, 'node_modules'), 'dir')
    const bin = join(pkgDir, 'dist/src/cli/main.js')

    expect(
      execFileSync(process.execPath, [bin, '--version'], {
        encoding: 'utf8',
        timeout: 20_000,
      }).trim(),
    ).toBe(manifest['version'])

    // The dashboards come from dist/ui of the installed package: /__ui/ on serve's admin port,
    // /ui/ on the platform.
    const served = await startCli(
      ['serve', join(pkgDir, 'examples/payments-api.yaml'), '--port', '0', '--admin-port', '0'],
      { bin, cwd: dir },
    )
    expect((await fetch(`${served.url}/health`)).status).toBe(200)
    await served.waitFor('stdout', /admin on http:\/\/\S+/)
    const admin = /admin on (http:\/\/\S+)/.exec(served.stdout())?.[1] ?? ''
    const local = await fetch(`${admin}/__ui/`)
    expect(local.status).toBe(200)
    expect(await local.text()).toContain('"/__ui/app.js"')
    expect((await fetch(`${admin}/__ui/app.js`)).status).toBe(200)
    await served.stop()
    const platform = await startCli(['platform', '--port', '0', '--data-dir', join(dir, 'data')], {
      bin,
      cwd: dir,
      env: { UNDERSTUDY_API_KEY_ID: 'pack-key', UNDERSTUDY_API_KEY_SECRET: 'pack-secret' },
    })
    const ui = await fetch(`${platform.url}/ui/`)
    expect(ui.status).toBe(200)
    expect(await ui.text()).toContain('app.js')
    expect((await fetch(`${platform.url}/ui/app.js`)).status).toBe(200)
    await platform.stop()

    // The library entry, as `import { createMockServer } from '@understudy-mock/understudy'` resolves it.
    const script =
      "import('@understudy-mock/understudy').then(async (m) => { const s = await m.createMockServer({ transactions: [{ dsl: { requestDsl: { path: '/x' }, responseDsl: { text: 'ok' } } }] }); const t = await (await fetch(s.url + '/x')).text(); await s.close(); console.log(t) })"
    const user = join(dir, 'user')
    execFileSync('mkdir', ['-p', join(user, 'node_modules/@understudy-mock')])
    symlinkSync(pkgDir, join(user, 'node_modules/@understudy-mock/understudy'), 'dir')
    expect(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        cwd: user,
        encoding: 'utf8',
        timeout: 20_000,
      }).trim(),
    ).toBe('ok')
    expect(existsSync(join(pkgDir, 'dist/src/index.d.ts'))).toBe(true)

    // Installed without its optional dependencies (the platform's libraries), the package still
    // serves a file and its /__ui/ dashboard; the platform says what is missing (README, "Install").
    const lightDir = join(dir, 'light')
    execFileSync('mkdir', ['-p', lightDir])
    execFileSync('tar', ['xzf', join(dir, info?.filename ?? ''), '-C', lightDir])
    const lightPkg = join(lightDir, 'package')
    linkDependencies(lightPkg, { omitOptional: true })
    const lightBin = join(lightPkg, 'dist/src/cli/main.js')
    const light = await startCli(
      ['serve', join(lightPkg, 'examples/payments-api.yaml'), '--port', '0', '--admin-port', '0'],
      { bin: lightBin, cwd: lightDir },
    )
    expect((await fetch(`${light.url}/health`)).status).toBe(200)
    await light.waitFor('stdout', /admin on http:\/\/\S+/)
    const lightAdmin = /admin on (http:\/\/\S+)/.exec(light.stdout())?.[1] ?? ''
    expect(await (await fetch(`${lightAdmin}/__ui/`)).text()).toContain('"/__ui/app.js"')
    await light.stop()
    const refused = await runCli(
      ['platform', '--port', '0', '--data-dir', join(lightDir, 'data')],
      { bin: lightBin, cwd: lightDir },
    )
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(
      /^understudy platform: needs optional packages that are not installed: better-sqlite3 \(the store\)/,
    )
  }, 120_000)
})
