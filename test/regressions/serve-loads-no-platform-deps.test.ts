import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { startCli } from '../helpers/cli.js'
import { optionalDependencies } from '../helpers/installed-package.js'
import { tempDir } from '../helpers/temp-dir.js'

// `npm i -g` takes minutes where better-sqlite3 compiles from source (README, "Install"), so the
// platform's own libraries are optionalDependencies and `serve` must never need them: this records
// every package `serve` resolves and checks none of them is one (nor busboy, which serve loads
// only for a multipart body).

const root = resolve(import.meta.dirname, '../..')
const platformOnly = [...optionalDependencies, 'busboy']

describe('the dependencies serve loads', () => {
  it('are none of the platform and monitoring runner libraries', async () => {
    const dir = tempDir('understudy-deps-')
    const log = join(dir, 'loaded.txt')
    writeFileSync(
      join(dir, 'hooks.mjs'),
      [
        "import { appendFileSync } from 'node:fs'",
        'export async function resolve (specifier, context, next) {',
        '  const found = await next(specifier, context)',
        '  const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(found.url)',
        `  if (m) appendFileSync(${JSON.stringify(log)}, m[1] + '\\n')`,
        '  return found',
        '}',
      ].join('\n'),
    )
    writeFileSync(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)})\n`,
    )
    writeFileSync(log, '')
    const server = await startCli(
      [
        'serve',
        'examples/payments-api.yaml',
        'examples/recording.har',
        '--port',
        '0',
        '--validate-requests',
      ],
      {
        cwd: root,
        env: {
          NODE_OPTIONS:
            `${process.env['NODE_OPTIONS'] ?? ''} --import ${pathToFileURL(join(dir, 'register.mjs')).href}`.trim(),
        },
      },
    )
    expect((await fetch(`${server.url}/v1/payments`)).status).toBeGreaterThan(0)
    await server.stop()
    const loaded = new Set(
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l !== ''),
    )
    expect(loaded.has('find-my-way')).toBe(true)
    expect(optionalDependencies).toContain('better-sqlite3')
    expect(platformOnly.filter((name) => loaded.has(name))).toEqual([])
  })
})
