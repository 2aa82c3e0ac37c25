import { writeFileSync } from 'node:fs'
import net from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { http1Request } from '../../helpers/clients.js'
import { runCli, startCli, type CliServer } from '../../helpers/cli.js'
import { eventually } from '../../helpers/deployer.js'
import { tempDir } from '../../helpers/temp-dir.js'

/*
 * `understudy run --replicas N`: N worker processes (node:cluster) share the mock service's ports;
 * the primary owns the admin API and answers for all of them (docs/runtime.md, "Replicas").
 */

interface Envelope<T> {
  result: T
  error: { code: string; message: string } | null
  total?: number
}
interface Worker {
  replica: number
  pid: number
  status: string
  restarts: number
  transactions: number
  inFlight: number
  inspection: { records: number } | null
}
interface Health {
  status: string
  replicas: number
  inFlight: number
  transactions: number
  pid: number
  workers: Worker[]
  inspection: { records: number }
}

const text = (tag: string) => Buffer.from(tag).toString('base64')
const document = (tag: string) => ({
  id: 9,
  name: 'orders',
  transactions: [
    {
      id: 1,
      name: 'answer',
      dsl: { requestDsl: { method: 'GET', path: '/answer' }, responseDsl: { content: text(tag) } },
    },
    {
      id: 2,
      name: 'slow',
      dsl: {
        requestDsl: { method: 'GET', path: '/slow' },
        responseDsl: { content: text('slow'), responseDelay: { type: 'fixed', duration: 800 } },
      },
    },
  ],
})

function mockFile(doc: unknown): string {
  const file = join(tempDir(), 'mock.json')
  writeFileSync(file, JSON.stringify(doc))
  return file
}

function adminOf(server: CliServer): string {
  const admin = /admin on (http:\/\/\S+)/.exec(server.stdout())?.[1]
  if (admin === undefined) throw new Error(`no admin line in ${server.stdout()}`)
  return admin
}

async function admin<T>(
  server: CliServer,
  path: string,
  init?: RequestInit,
): Promise<{ status: number; body: Envelope<T> }> {
  const res = await fetch(adminOf(server) + path, init)
  return { status: res.status, body: (await res.json()) as Envelope<T> }
}

/** `count` requests, each on its own connection, so that the primary spreads them over the replicas. */
async function spread(url: string, count: number): Promise<string[]> {
  const bodies: string[] = []
  for (let i = 0; i < count; i++) {
    bodies.push((await http1Request(url, { path: '/answer' })).body.toString())
  }
  return bodies
}

describe('understudy run --replicas', () => {
  it('serves from every replica on one port, writes the ready lines once, and merges inspection with unique ids', async () => {
    const server = await startCli([
      'run',
      '--mock',
      mockFile(document('A')),
      '--port',
      '0',
      '--admin-port',
      '0',
      '--tls-port',
      '0',
      '--replicas',
      '2',
    ])
    await server.waitFor('stdout', 'admin on')
    const stdout = server.stdout()
    expect(stdout.match(/listening on/g)).toHaveLength(1)
    expect(stdout).toMatch(
      /^listening on http:\/\/127\.0\.0\.1:\d+\nhttps \(h2, http\/1\.1\) on https:\/\/127\.0\.0\.1:\d+\nadmin on http:\/\/127\.0\.0\.1:\d+\n$/,
    )

    expect(await spread(server.url, 10)).toEqual(Array(10).fill('A'))
    const https = /https \(h2, http\/1\.1\) on (\S+)/.exec(stdout)?.[1] ?? ''
    expect((await http1Request(https, { path: '/answer' })).body.toString()).toBe('A')

    const { body: health } = await admin<Health>(server, '/health')
    expect(health.result).toMatchObject({ status: 'UP', replicas: 2, inFlight: 0, transactions: 2 })
    expect(health.result.inspection.records).toBe(11)
    const workers = health.result.workers
    expect(workers.map((w) => [w.replica, w.status])).toEqual([
      [1, 'UP'],
      [2, 'UP'],
    ])
    // Two distinct worker processes, both of which answered requests.
    expect(new Set(workers.map((w) => w.pid)).size).toBe(2)
    expect(workers.map((w) => w.pid)).not.toContain(health.result.pid)
    for (const w of workers) expect(w.inspection?.records).toBeGreaterThan(0)

    const { body: list } = await admin<
      Array<{ id: number; timestamp: number; serviceMockId: number }>
    >(server, '/inspection?limit=100')
    expect(list.total).toBe(11)
    const ids = list.result.map((e) => e.id)
    expect(new Set(ids).size).toBe(11)
    // Replica 1 numbers 1, 3, 5...; replica 2 numbers 2, 4, 6...
    expect(new Set(ids.map((id) => id % 2))).toEqual(new Set([0, 1]))
    const timestamps = list.result.map((e) => e.timestamp)
    expect(timestamps).toEqual([...timestamps].sort((a, b) => b - a))
    expect(list.result.every((e) => e.serviceMockId === 9)).toBe(true)
    // Paging over the merged list.
    const { body: page } = await admin<Array<{ id: number }>>(server, '/inspection?skip=2&limit=3')
    expect(page.result.map((e) => e.id)).toEqual(ids.slice(2, 5))
    // Each detail comes from the replica that owns the id.
    for (const id of [ids.find((i) => i % 2 === 1), ids.find((i) => i % 2 === 0)]) {
      const { status, body } = await admin<{ id: number; url: string }>(
        server,
        `/inspection/${id ?? 0}`,
      )
      expect(status).toBe(200)
      expect(body.result).toMatchObject({ id, url: '/answer' })
    }
    expect((await admin(server, '/inspection/100001')).status).toBe(404)
    expect((await admin(server, '/inspection/abc')).status).toBe(404)

    // The log gathers every replica's lines, each tagged with its replica.
    const { body: log } = await admin<{ log: string }>(server, '/log?limit=500')
    const lines = log.result.log
      .split('\n')
      .map((l) => JSON.parse(l) as { replica?: unknown; msg: string })
    expect(
      lines
        .filter((l) => l.msg === 'replica listening')
        .map((l) => l.replica)
        .sort(),
    ).toEqual([1, 2])
    expect(lines.some((l) => l.replica === 'primary' && l.msg === 'listening')).toBe(true)
  })

  it('PUT /config compiles once, reaches every replica before answering, and changes nothing when invalid', async () => {
    const server = await startCli([
      'run',
      '--mock',
      mockFile(document('A')),
      '--port',
      '0',
      '--admin-port',
      '0',
      '--replicas',
      '2',
    ])
    const json = { 'content-type': 'application/json' }
    const swapped = await admin<{ transactions: number; serviceMockId: number }>(
      server,
      '/config',
      { method: 'PUT', headers: json, body: JSON.stringify(document('B')) },
    )
    expect(swapped.status).toBe(200)
    expect(swapped.body.result).toEqual({ transactions: 2, serviceMockId: 9 })
    expect(await spread(server.url, 8)).toEqual(Array(8).fill('B'))
    expect(
      (await admin<{ transactions: Array<unknown> }>(server, '/config')).body.result.transactions,
    ).toHaveLength(2)

    const invalid = {
      transactions: [
        {
          dsl: {
            requestDsl: { path: '/answer' },
            responseDsl: { text: 'C', headers: [{ name: 'x', value: 'a\nb' }] },
          },
        },
      ],
    }
    const refused = await admin(server, '/config', {
      method: 'PUT',
      headers: json,
      body: JSON.stringify(invalid),
    })
    expect(refused.status).toBe(400)
    expect(refused.body.error?.code).toBe('ERR_DSL_INVALID')
    expect(await spread(server.url, 6)).toEqual(Array(6).fill('B'))
    const malformed = await admin(server, '/config', { method: 'PUT', headers: json, body: '{' })
    expect(malformed.status).toBe(400)
  })

  it('restarts a replica that dies, logs it, and keeps serving on the same port', async () => {
    const server = await startCli([
      'run',
      '--mock',
      mockFile(document('A')),
      '--port',
      '0',
      '--admin-port',
      '0',
      '--replicas',
      '2',
    ])
    const before = (await admin<Health>(server, '/health')).body.result.workers
    const victim = before[0]
    if (victim === undefined) throw new Error('no replica')
    process.kill(victim.pid, 'SIGKILL')
    await server.waitFor('stderr', '"msg":"replica exited; restarting"')
    await eventually(
      async () => {
        const workers = (await admin<Health>(server, '/health')).body.result.workers
        return workers[0]?.status === 'UP' && workers[0].pid !== victim.pid
      },
      10_000,
      'the replica restart',
    )
    const after = (await admin<Health>(server, '/health')).body.result.workers
    expect(after[0]).toMatchObject({ replica: 1, restarts: 1 })
    expect(after[1]?.pid).toBe(before[1]?.pid)
    expect(await spread(server.url, 6)).toEqual(Array(6).fill('A'))
    // Ids stay unique: the restarted replica numbers past anything its predecessor used.
    const ids = (
      await admin<Array<{ id: number }>>(server, '/inspection?limit=100')
    ).body.result.map((e) => e.id)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('drains requests in flight on every replica on SIGTERM, then exits 0', async () => {
    const server = await startCli([
      'run',
      '--mock',
      mockFile(document('A')),
      '--port',
      '0',
      '--admin-port',
      '0',
      '--replicas',
      '2',
    ])
    const pending = Array.from(
      { length: 4 },
      async () => await http1Request(server.url, { path: '/slow' }),
    )
    await eventually(
      async () => (await admin<Health>(server, '/health')).body.result.inFlight === 4,
      5000,
      '4 requests in flight',
    )
    // Both replicas have some of them.
    const { workers } = (await admin<Health>(server, '/health')).body.result
    for (const w of workers) expect(w.inFlight).toBeGreaterThan(0)
    const exit = server.stop('SIGTERM')
    const answers = await Promise.all(pending)
    expect(answers.map((r) => [r.status, r.body.toString()])).toEqual(Array(4).fill([200, 'slow']))
    expect(await exit).toEqual({ code: 0, signal: null })
    // Nothing left listening.
    await expect(
      new Promise((resolve, reject) => {
        const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1', () => {
          socket.destroy()
          resolve(null)
        })
        socket.on('error', reject)
      }),
    ).rejects.toThrow()
  })

  it('exits 1 with one line naming the port when it is in use', async () => {
    const taken = net.createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = taken.address() as net.AddressInfo
      const result = await runCli([
        'run',
        '--mock',
        mockFile(document('A')),
        '--port',
        String(port),
        '--replicas',
        '2',
      ])
      expect(result.code).toBe(1)
      expect(result.stdout).toBe('')
      expect(result.stderr).toContain(
        `understudy run: Cannot listen on 127.0.0.1:${port}: the port is in use`,
      )
    } finally {
      taken.close()
    }
  })

  it('rejects a replica count that is not an integer from 1 to 64', async () => {
    for (const value of ['0', '65', 'two']) {
      const result = await runCli([
        'run',
        '--mock',
        mockFile(document('A')),
        '--port',
        '0',
        '--replicas',
        value,
      ])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('--replicas must be an integer from 1 to 64')
    }
  })
})
