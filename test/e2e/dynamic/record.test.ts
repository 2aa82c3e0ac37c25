import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { startUpstream } from '../../helpers/upstream.js'
import { replay as replayAll, type ReplayRequest } from '../../helpers/traffic.js'
import { waitFor } from '../../helpers/wait.js'

interface Recorded {
  transactions: Array<{
    dsl: { requestDsl: { body?: unknown[] }; responseDsl: { responseDelay?: { type: string } } }
  }>
}

const requests: ReplayRequest[] = [
  ['/pets?limit=2', {}],
  ['/pets/1', {}],
  [
    '/orders',
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"item": "ball", "qty": 2}',
    },
  ],
  [
    '/orders',
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"item": "rope", "qty": 1}',
    },
  ],
]

const replay = async (base: string): Promise<string[]> => await replayAll(base, requests)

async function recordedCount(
  dir: string,
  expected: number,
  done: (doc: Recorded) => boolean = () => true,
): Promise<Recorded> {
  const file = join(dir, 'recorded.json')
  let doc: Recorded | undefined
  await waitFor(
    () => {
      if (!existsSync(file)) return false
      doc = JSON.parse(readFileSync(file, 'utf8')) as Recorded
      return doc.transactions.length >= expected && done(doc)
    },
    `the recording to reach ${expected} transactions`,
    { timeoutMs: 10_000, intervalMs: 50 },
  )
  return doc as Recorded
}

describe('understudy record', () => {
  it(
    'records a live system, serves the recording with identical answers, and updates on a second run',
    { timeout: 60_000 },
    async () => {
      let generation = 'v1'
      const upstream = await startUpstream((req, res) => {
        const body = Buffer.from(
          JSON.stringify({
            generation,
            method: req.method,
            url: req.url,
            got: req.body.toString(),
          }),
        )
        res.writeHead(req.method === 'POST' ? 201 : 200, {
          'content-type': 'application/json',
          date: new Date().toUTCString(),
        })
        res.end(body)
      })
      const dir = tempDir('understudy-record-')
      const recorder = await startCli([
        'record',
        '--target',
        upstream.url,
        '--port',
        '0',
        '-o',
        dir,
        '--keep-latency',
      ])
      const live = await replay(recorder.url)
      await replay(recorder.url)
      const lognormal = (doc: Recorded): boolean =>
        doc.transactions.every((t) => t.dsl.responseDsl.responseDelay?.type === 'lognormal')
      const first = await recordedCount(dir, 4, lognormal)
      expect(first.transactions).toHaveLength(4)
      // body matchers as the HAR importer chooses them: the two POSTs differ by body
      expect(
        first.transactions.filter((t) => (t.dsl.requestDsl.body ?? []).length > 0),
      ).toHaveLength(2)
      // repeated requests: a lognormal fitted to their latencies
      expect(
        first.transactions.every((t) => t.dsl.responseDsl.responseDelay?.type === 'lognormal'),
      ).toBe(true)
      expect((await recorder.stop()).code).toBe(0)

      const served = await startCli(['serve', dir, '--port', '0'])
      expect(await replay(served.url)).toEqual(live)
      await served.stop()

      // a second recording updates the same transactions
      generation = 'v2'
      const again = await startCli(['record', '--target', upstream.url, '--port', '0', '-o', dir])
      const second = await replay(again.url)
      await again.stop()
      const doc = await recordedCount(dir, 4)
      expect(doc.transactions).toHaveLength(4)
      const servedAgain = await startCli(['serve', dir, '--port', '0'])
      expect(await replay(servedAgain.url)).toEqual(second)
      expect(second.join()).toContain('v2')
      await servedAgain.stop()
    },
  )

  it(
    'records as a runtime mode (noMatchingRequestPreference: record): GET /recordings, then serves them with identical answers',
    { timeout: 60_000 },
    async () => {
      const upstream = await startUpstream((req, res) => {
        const body = Buffer.from(
          JSON.stringify({ method: req.method, url: req.url, got: req.body.toString() }),
        )
        res.writeHead(req.method === 'POST' ? 201 : 200, {
          'content-type': 'application/json',
          'x-upstream': 'yes',
        })
        res.end(body)
      })
      const dir = tempDir('understudy-record-mode-')
      const file = join(dir, 'mock.json')
      const matched = {
        name: 'health',
        dsl: { requestDsl: { method: 'GET', path: '/health' }, responseDsl: { text: 'mocked' } },
      }
      writeFileSync(
        file,
        JSON.stringify({
          name: 'rec',
          noMatchingRequestPreference: 'record',
          liveSystemHost: upstream.url,
          transactions: [matched],
        }),
      )
      const runtime = await startCli(['run', '--mock', file, '--port', '0', '--admin-port', '0'])
      await runtime.waitFor('stdout', /admin on http:\/\/\S+/)
      const admin = /admin on (http:\/\/\S+)/.exec(runtime.stdout())?.[1] as string
      const live = await replay(runtime.url)
      await replay(runtime.url)
      // inspection marks the recorded exchanges (the specification's liveTransactionCreated)
      const inspection = (
        (await (await fetch(`${admin}/inspection?limit=100`)).json()) as {
          result: Array<{ source: string; liveTransactionCreated: boolean }>
        }
      ).result
      expect(inspection).toHaveLength(requests.length * 2)
      expect(inspection.every((r) => r.source === 'LIVE' && r.liveTransactionCreated)).toBe(true)
      // a matched request is served by the mock, not forwarded nor recorded
      expect(await (await fetch(`${runtime.url}/health`)).text()).toBe('mocked')
      expect(upstream.requests).toHaveLength(requests.length * 2)
      const read = async (
        query = '',
      ): Promise<{
        count: number
        transactions: Array<{ dsl: { responseDsl: { responseDelay?: { type: string } } } }>
      }> =>
        (
          (await (await fetch(`${admin}/recordings${query}`)).json()) as {
            result: {
              count: number
              transactions: Array<{ dsl: { responseDsl: { responseDelay?: { type: string } } } }>
            }
          }
        ).result
      // one transaction per distinct request, though each was sent twice
      const recorded = await read()
      expect(recorded.count).toBe(4)
      expect(
        recorded.transactions.every((t) => t.dsl.responseDsl.responseDelay === undefined),
      ).toBe(true)
      expect(
        (await read('?keepLatency=true')).transactions.every(
          (t) => t.dsl.responseDsl.responseDelay?.type === 'lognormal',
        ),
      ).toBe(true)
      expect((await fetch(`${admin}/recordings?keepLatency=maybe`)).status).toBe(400)

      // switch to a normal mode with the recording: the same requests, the same answers, no upstream
      const config = await fetch(`${admin}/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'rec',
          noMatchingRequestPreference: 'return404',
          transactions: [matched, ...recorded.transactions],
        }),
      })
      expect(config.status).toBe(200)
      await upstream.close()
      expect(await replay(runtime.url)).toEqual(live)
      expect(live.join()).toContain('"got":"{\\"item\\": \\"rope\\", \\"qty\\": 1}"')
      expect(
        (
          (await (await fetch(`${admin}/recordings`, { method: 'DELETE' })).json()) as {
            result: { cleared: number }
          }
        ).result.cleared,
      ).toBe(4)
      expect((await read()).count).toBe(0)
      await runtime.stop()
    },
  )

  it('refuses record mode without a live system, naming the field', async () => {
    const { runCli } = await import('../../helpers/cli.js')
    const file = join(tempDir(), 'mock.json')
    writeFileSync(file, JSON.stringify({ noMatchingRequestPreference: 'record', transactions: [] }))
    const result = await runCli(['run', '--mock', file, '--port', '0'])
    expect(result.code).not.toBe(0)
    expect(result.stderr).toMatch(
      /liveSystemHost.*required when noMatchingRequestPreference is record/,
    )
  })

  it('refuses bad flags with one line and exit code 2', async () => {
    const { runCli } = await import('../../helpers/cli.js')
    const result = await runCli(['record', '--port', '0', '-o', tempDir()])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/--target URL is required/)
  })
})
