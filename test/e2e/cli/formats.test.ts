import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { parse } from 'yaml'
import { runCli, startCli } from '../../helpers/cli.js'
import { describeRealworld, realworldPath } from '../../helpers/realworld.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { waitFor } from '../../helpers/wait.js'

describeRealworld('understudy serve with other formats', () => {
  it('serves a HAR recording and an OpenAPI description as they are, side by side', async () => {
    const server = await startCli([
      'serve',
      realworldPath('har', 'pollyjs-node-fetch-post.har'),
      realworldPath('openapi', 'petstore-v3.oas30.yaml'),
      '--port',
      '0',
    ])
    const post = await fetch(`${server.url}/posts/1`)
    expect(post.status).toBe(200)
    // Polly.JS recorded this body as a hex dump of its gzip chunks: the replay is that text, as recorded
    expect(await post.text()).toMatch(/^\["1f8b08/)
    const pet = await fetch(`${server.url}/v2/pets/7`)
    expect(pet.status).toBe(200)
    expect(await pet.json()).toEqual({ name: 'string', tag: 'string', id: 0 })
  })

  it('reloads an OpenAPI description dropped into a watched directory', async () => {
    const dir = tempDir()
    writeFileSync(
      join(dir, 'first.yaml'),
      '- dsl: { requestDsl: { path: /first }, responseDsl: { text: first } }\n',
    )
    const server = await startCli(['serve', dir, '--port', '0', '--watch'])
    await server.waitFor('stderr', '"msg":"watching"')
    expect((await fetch(`${server.url}/v2/pets`)).status).toBe(404)
    copyFileSync(realworldPath('openapi', 'petstore-v3.oas30.yaml'), join(dir, 'petstore.yaml'))
    let status = 404
    await waitFor(
      async () => {
        status = (await fetch(`${server.url}/v2/pets`)).status
        return status !== 404
      },
      'the description to be served',
      { timeoutMs: 10_000, intervalMs: 100 },
    )
    expect(status).toBe(200)
  })
})

describeRealworld('understudy import', () => {
  it(
    'prints the DSL of a HAR as YAML on stdout, warnings on stderr, and exits 0',
    { timeout: 60_000 },
    async () => {
      const result = await runCli(['import', realworldPath('har', 'harviewer-two-megs.har')])
      expect(result.code).toBe(0)
      const doc = parse(result.stdout) as { transactions: Array<{ name: string }> }
      expect(doc.transactions).toHaveLength(58)
      expect(result.stderr).toMatch(/recorded \d+ times/)
    },
  )

  it('writes JSON with -o file.json, and the file serves', async () => {
    const dir = tempDir()
    const out = join(dir, 'petstore.json')
    const result = await runCli([
      'import',
      realworldPath('openapi', 'petstore-v3.oas30.yaml'),
      '-o',
      out,
    ])
    expect(result.code).toBe(0)
    expect(JSON.parse(readFileSync(out, 'utf8'))).toHaveProperty('transactions')
    const server = await startCli(['serve', out, '--port', '0'])
    expect((await fetch(`${server.url}/v2/pets`)).status).toBe(200)
  })

  it('exits 1 with one line for a broken file and 2 for a bad flag', async () => {
    const broken = await runCli(['import', realworldPath('har', 'mitmproxy-brokenfile.har')])
    expect(broken.code).toBe(1)
    expect(broken.stderr.trim().split('\n')).toHaveLength(1)
    expect(broken.stderr).toContain('mitmproxy-brokenfile.har')
    const bad = await runCli([
      'import',
      realworldPath('har', 'mitmproxy-chrome.har'),
      '--format',
      'nope',
    ])
    expect(bad.code).toBe(2)
  })
})
