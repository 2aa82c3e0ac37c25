import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { startCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

// `npm i -g` takes about 90 s where better-sqlite3 compiles from source (README, "Install time").
// What `serve` needs must stay free of the platform's own dependencies, so that they can become
// optional: this records every package `serve` resolves and checks none of them is one.

const root = resolve(import.meta.dirname, '../..')
const platformOnly = ['better-sqlite3', 'nodemailer', 'oauth-1.0a', 'oauth4webapi', 'quickjs-emscripten', 'moment', 'lodash', 'crypto-js', 'tv4', 'busboy', 'croner']

describe('the dependencies serve loads', () => {
  it('are none of the platform and monitoring runner libraries', async () => {
    const dir = tempDir('understudy-deps-')
    const log = join(dir, 'loaded.txt')
    writeFileSync(join(dir, 'hooks.mjs'), [
      "import { appendFileSync } from 'node:fs'",
      'export async function resolve (specifier, context, next) {',
      '  const found = await next(specifier, context)',
      '  const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(found.url)',
      `  if (m) appendFileSync(${JSON.stringify(log)}, m[1] + '\\n')`,
      '  return found',
      '}',
    ].join('\n'))
    writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)})\n`)
    writeFileSync(log, '')
    const server = await startCli(['serve', 'examples/payments-api.yaml', 'examples/recording.har', '--port', '0', '--validate-requests'], {
      cwd: root,
      env: { NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import ${pathToFileURL(join(dir, 'register.mjs')).href}`.trim() },
    })
    expect((await fetch(`${server.url}/v1/payments`)).status).toBeGreaterThan(0)
    await server.stop()
    const loaded = new Set(readFileSync(log, 'utf8').split('\n').filter((l) => l !== ''))
    expect(loaded.has('find-my-way')).toBe(true)
    expect(platformOnly.filter((name) => loaded.has(name))).toEqual([])
  })
})
