import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'
import { startUpstream } from '../helpers/upstream.js'

const secrets = {
  authorization: 'Bearer s3cret-token',
  cookie: 'session=s3cret-cookie',
  'x-api-key': 's3cret-key',
  'proxy-authorization': 'Basic s3cret-proxy',
}

// Defect: `understudy record` wrote the recorded requests' Authorization, Cookie and x-api-key
// values in plain text into `.recording-state.json` (recorded.json carries no request header).
describe('understudy record keeps no credential in its state file', () => {
  it(
    'drops credential headers from the state, keeps the rest, and still replays',
    { timeout: 60_000 },
    async () => {
      const upstream = await startUpstream((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'fresh=1' })
        res.end('{"ok":true}')
      })
      const dir = tempDir('understudy-record-')
      // A state saved by an earlier version, secrets included: they go at the next write too.
      const old = {
        key: 'GET /old ',
        latencies: [5],
        at: 1,
        entry: {
          request: {
            method: 'GET',
            url: `${upstream.url}/old`,
            headers: [
              { name: 'Authorization', value: 'Bearer s3cret-old' },
              { name: 'accept', value: '*/*' },
            ],
          },
          response: { status: 200, headers: [], content: { mimeType: 'text/plain', text: 'old' } },
        },
      }
      writeFileSync(
        join(dir, '.recording-state.json'),
        JSON.stringify({ target: upstream.url, recorded: [old] }),
      )
      const recorder = await startCli([
        'record',
        '--target',
        upstream.url,
        '--port',
        '0',
        '-o',
        dir,
      ])
      const res = await fetch(`${recorder.url}/pets`, {
        headers: { ...secrets, 'x-trace': 'kept' },
      })
      expect(res.status).toBe(200)
      expect((await recorder.stop()).code).toBe(0)

      const state = readFileSync(join(dir, '.recording-state.json'), 'utf8')
      expect(state).not.toContain('s3cret')
      expect(state).toContain('x-trace')
      expect(state).toContain('fresh=1')
      expect(readFileSync(join(dir, 'recorded.json'), 'utf8')).not.toContain('s3cret')
      expect(upstream.requests[0]?.headers['authorization']).toBe(secrets.authorization)

      const served = await startCli(['serve', dir, '--port', '0'])
      expect(await (await fetch(`${served.url}/pets`)).text()).toBe('{"ok":true}')
      expect(await (await fetch(`${served.url}/old`)).text()).toBe('old')
    },
  )
})
