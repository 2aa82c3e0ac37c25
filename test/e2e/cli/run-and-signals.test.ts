import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli, type CliServer } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { waitFor } from '../../helpers/wait.js'

function mockFile(document: unknown): string {
  const file = join(tempDir(), 'mock.json')
  writeFileSync(file, JSON.stringify(document))
  return file
}

const document = {
  id: 42,
  name: 'orders',
  capacity: 10,
  transactions: [
    {
      id: 1,
      name: 'fast',
      dsl: {
        requestDsl: { method: 'GET', path: '/fast' },
        responseDsl: { status: 200, content: Buffer.from('fast').toString('base64') },
      },
    },
    {
      id: 2,
      name: 'slow',
      dsl: {
        requestDsl: { method: 'GET', path: '/slow' },
        responseDsl: {
          status: 200,
          content: Buffer.from('slow').toString('base64'),
          responseDelay: { type: 'fixed', duration: 800 },
        },
      },
    },
  ],
}

/** Waits until the runtime's admin health reports `count` requests in flight. */
async function untilInFlight(server: CliServer, count: number): Promise<void> {
  await server.waitFor('stdout', /admin on http:\/\/\S+/)
  const admin = /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1] ?? ''
  await waitFor(async () => {
    const health = (await (await fetch(`${admin}/health`)).json()) as {
      result: { inFlight: number }
    }
    return health.result.inFlight === count
  }, `${count} request(s) in flight`)
}

describe('understudy run', () => {
  it('serves one mock-service document with its admin API', async () => {
    const server = await startCli([
      'run',
      '--mock',
      mockFile(document),
      '--port',
      '0',
      '--admin-port',
      '0',
    ])
    expect(await (await fetch(`${server.url}/fast`)).text()).toBe('fast')
    const admin = /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1] ?? ''
    const health = (await (await fetch(`${admin}/health`)).json()) as {
      result: { serviceMockId: number; transactions: number }
    }
    expect(health.result).toMatchObject({ serviceMockId: 42, transactions: 2 })
    const inspection = (await (await fetch(`${admin}/inspection`)).json()) as {
      result: Array<{ url: string; serviceMockId: number; respondingTxn: string }>
    }
    expect(inspection.result[0]).toMatchObject({
      url: '/fast',
      serviceMockId: 42,
      respondingTxn: 'fast',
    })
    const log = (await (await fetch(`${admin}/log?limit=50`)).json()) as { result: { log: string } }
    expect(log.result.log).toContain('"msg":"listening"')
  })

  it('drains a request in flight on SIGTERM, then exits 0', async () => {
    const server = await startCli([
      'run',
      '--mock',
      mockFile(document),
      '--port',
      '0',
      '--admin-port',
      '0',
    ])
    const pending = fetch(`${server.url}/slow`)
    await untilInFlight(server, 1)
    const exit = server.stop('SIGTERM')
    const res = await pending
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('slow')
    expect(await exit).toEqual({ code: 0, signal: null })
  })

  it('stops accepting new connections while draining', async () => {
    const server = await startCli([
      'run',
      '--mock',
      mockFile(document),
      '--port',
      '0',
      '--admin-port',
      '0',
    ])
    const pending = fetch(`${server.url}/slow`)
    await untilInFlight(server, 1)
    const exit = server.stop('SIGTERM')
    // The listeners are closed in the same tick as this log line is written.
    await server.waitFor('stderr', '"msg":"draining"')
    await expect(
      fetch(`${server.url}/fast`, { headers: { connection: 'close' } }),
    ).rejects.toThrow()
    expect((await pending).status).toBe(200)
    expect((await exit).code).toBe(0)
  })
})
