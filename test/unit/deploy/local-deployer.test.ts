import { existsSync, readFileSync } from 'node:fs'
import net from 'node:net'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LocalDeployer } from '../../../src/deploy/index.js'
import { createSilentLogger } from '../../../src/log/index.js'
import { eventually, settle, startDeployer, textDocument } from '../../helpers/deployer.js'
import { createMock } from '../../helpers/fake-store.js'
import { tempDir } from '../../helpers/temp-dir.js'

/*
 * The deployer's lifecycle against a stand-in runtime (fixtures/fake-runtime.mjs), which starts in
 * milliseconds and fails on demand; test/e2e/deploy runs the real one.
 */

const fake = resolve(import.meta.dirname, 'fixtures/fake-runtime.mjs')
const command = (mode: string) => ({ executable: process.execPath, args: [fake, mode] })
const document = textDocument({ '/a': 'A' })

describe('LocalDeployer with a stand-in runtime', () => {
  it('returns a RUNNING tracking at once that ends FINISHED, and records RUNNING with endpoints and ports', async () => {
    const { deployer, store, dataDir } = startDeployer({ command: command('ok') })
    const mock = await createMock(store)
    const tracking = await deployer.deploy(mock, document, 'ada@example.com')
    expect(tracking).toMatchObject({
      status: 'RUNNING',
      action: 'deploy',
      mockServiceId: mock.id,
      errors: [],
      createdBy: 'ada@example.com',
      ended: null,
    })
    expect(tracking.trackingId).toMatch(/^[0-9a-f-]{36}$/)

    const ended = await settle(deployer, tracking)
    expect(ended.status).toBe('FINISHED')
    expect(ended.ended).toBeGreaterThanOrEqual(ended.created)
    const record = await store.mockServices.getById(mock.id)
    expect(record).toMatchObject({
      status: 'RUNNING',
      httpsEndpoint: null,
      updatedBy: 'ada@example.com',
    })
    expect(record?.httpEndpoint).toBe(`http://127.0.0.1:${record?.port ?? 0}`)
    expect(record?.port).toBeGreaterThan(0)
    expect(record?.deployDate).toBeGreaterThan(0)
    expect(deployer.localAdmin(mock.id)?.url ?? null).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(await (await fetch(record?.httpEndpoint ?? '')).text()).toBe('fake')

    // The document the runtime got, stamped with the mock service's id.
    const file = join(dataDir, 'mocks', `${mock.id}.json`)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      id: mock.id,
      name: 'orders',
      transactions: [{ name: 'get /a' }],
    })
    expect(deployer.logsOf(mock.id).some((l) => l.includes('fake runtime ok'))).toBe(true)
    expect(
      deployer
        .logsOf(mock.id)
        .some((l) => l.includes('"source":"platform"') && l.includes('runtime started')),
    ).toBe(true)
  })

  it('queues a second action on the same mock service as PENDING and runs it after the first', async () => {
    const { deployer, store } = startDeployer({ command: command('ok') })
    const mock = await createMock(store)
    const first = await deployer.deploy(mock, document, 'ada@example.com')
    const second = await deployer.stop(mock, 'ada@example.com')
    expect(first.status).toBe('RUNNING')
    expect(second.status).toBe('PENDING')
    const [a, b] = await Promise.all([settle(deployer, first), settle(deployer, second)])
    expect(a.status).toBe('FINISHED')
    expect(b.status).toBe('FINISHED')
    expect(b.ended ?? 0).toBeGreaterThanOrEqual(a.ended ?? Infinity)
    expect((await store.mockServices.getById(mock.id))?.status).toBe('STOPPED')
  })

  it("fails the tracking with the runtime's reason and records FAILED when the runtime cannot start", async () => {
    const { deployer, store } = startDeployer({ command: command('fail') })
    const mock = await createMock(store, { port: 1 })
    const ended = await settle(deployer, await deployer.deploy(mock, document, 'ada@example.com'))
    expect(ended.status).toBe('FAILED')
    expect(ended.errors).toHaveLength(1)
    expect(ended.errors[0]?.code).toBe('ERR_DEPLOY_FAILED')
    expect(ended.errors[0]?.message).toContain('Cannot listen on 127.0.0.1:1: the port is in use')
    expect(await store.mockServices.getById(mock.id)).toMatchObject({
      status: 'FAILED',
      httpEndpoint: null,
      httpsEndpoint: null,
    })
    expect(deployer.localAdmin(mock.id)?.url ?? null).toBeNull()
    expect(deployer.logsOf(mock.id).some((l) => l.includes('the port is in use'))).toBe(true)
  })

  it('fails a runtime that does not get ready in time, and ends it', async () => {
    const { deployer, store } = startDeployer({ command: command('hang'), readyTimeoutMs: 400 })
    const mock = await createMock(store)
    const ended = await settle(deployer, await deployer.deploy(mock, document, 'ada@example.com'))
    expect(ended.status).toBe('FAILED')
    expect(ended.errors[0]?.message).toContain('did not start within 400 ms')
  })

  it('fails a runtime whose health never says UP', async () => {
    const { deployer, store } = startDeployer({ command: command('down'), readyTimeoutMs: 600 })
    const mock = await createMock(store)
    const ended = await settle(deployer, await deployer.deploy(mock, document, 'ada@example.com'))
    expect(ended.status).toBe('FAILED')
    expect(ended.errors[0]?.message).toMatch(/did not report UP within 600 ms \(health is DOWN\)/)
  })

  it('stops: the record becomes STOPPED without endpoints and keeps its port for the next deploy', async () => {
    const { deployer, store } = startDeployer({ command: command('ok') })
    const mock = await createMock(store)
    await settle(deployer, await deployer.deploy(mock, document, 'ada@example.com'))
    const running = await store.mockServices.getById(mock.id)
    const stopped = await settle(deployer, await deployer.stop(mock, 'bob@example.com'))
    expect(stopped).toMatchObject({ status: 'FINISHED', action: 'stop' })
    expect(await store.mockServices.getById(mock.id)).toMatchObject({
      status: 'STOPPED',
      httpEndpoint: null,
      httpsEndpoint: null,
      port: running?.port,
      updatedBy: 'bob@example.com',
    })
    expect(deployer.localAdmin(mock.id)?.url ?? null).toBeNull()
    await expect(fetch(running?.httpEndpoint ?? '')).rejects.toThrow()

    const again = await store.mockServices.getById(mock.id)
    if (again === undefined) throw new Error('record gone')
    expect(
      (await settle(deployer, await deployer.deploy(again, document, 'ada@example.com'))).status,
    ).toBe('FINISHED')
    expect((await store.mockServices.getById(mock.id))?.httpEndpoint).toBe(running?.httpEndpoint)
  })

  it('stopping a mock service that is not running finishes and records STOPPED', async () => {
    const { deployer, store } = startDeployer({ command: command('ok') })
    const mock = await createMock(store, { status: 'FAILED' })
    expect((await settle(deployer, await deployer.stop(mock, 'ada@example.com'))).status).toBe(
      'FINISHED',
    )
    expect((await store.mockServices.getById(mock.id))?.status).toBe('STOPPED')
  })

  it('configure deploys a mock service that is not running, and swaps the configuration of one that is', async () => {
    const { deployer, store, dataDir } = startDeployer({ command: command('ok') })
    const mock = await createMock(store)
    const first = await settle(
      deployer,
      await deployer.configure(mock, document, 'ada@example.com'),
    )
    expect(first).toMatchObject({ status: 'FINISHED', action: 'configure', warnings: [] })
    const admin = deployer.localAdmin(mock.id)?.url ?? null
    const record = await store.mockServices.getById(mock.id)
    if (record === undefined) throw new Error('record gone')
    const next = textDocument({ '/a': 'A', '/b': 'B' })
    const swapped = await settle(
      deployer,
      await deployer.configure(record, next, 'ada@example.com'),
    )
    expect(swapped).toMatchObject({ status: 'FINISHED', warnings: [] })
    // Same runtime, new document on disk.
    expect(deployer.localAdmin(mock.id)?.url ?? null).toBe(admin)
    expect(
      JSON.parse(readFileSync(join(dataDir, 'mocks', `${mock.id}.json`), 'utf8')).transactions,
    ).toHaveLength(2)
  })

  it('configure restarts the runtime, with a warning, when the replicas change', async () => {
    const { deployer, store } = startDeployer({ command: command('ok') })
    const mock = await createMock(store)
    await settle(deployer, await deployer.deploy(mock, document, 'ada@example.com'))
    const admin = deployer.localAdmin(mock.id)?.url ?? null
    const record = await store.mockServices.update(mock.id, { replicas: 2 })
    if (record === undefined) throw new Error('record gone')
    const ended = await settle(
      deployer,
      await deployer.configure(record, document, 'ada@example.com'),
    )
    expect(ended.status).toBe('FINISHED')
    expect(ended.warnings).toEqual([expect.objectContaining({ code: 'RESTARTED' })])
    expect(deployer.localAdmin(mock.id)?.url ?? null).not.toBe(admin)
    expect((await store.mockServices.getById(mock.id))?.port).toBe(record.port)
  })

  it('restarts a runtime that exits unexpectedly, on the same port, and logs it', async () => {
    const marker = join(tempDir(), 'crashed')
    const { deployer, store } = startDeployer({
      command: command(`once:${marker}`),
      restart: { initialDelayMs: 50 },
    })
    const mock = await createMock(store)
    await settle(deployer, await deployer.deploy(mock, document, 'ada@example.com'))
    const { port } = (await store.mockServices.getById(mock.id)) ?? {}
    await eventually(
      () => deployer.logsOf(mock.id).some((l) => l.includes('runtime restarted')),
      10_000,
      'the restart',
    )
    const lines = deployer.logsOf(mock.id).join('\n')
    expect(lines).toContain('runtime exited with code 1; restarting in 50 ms (attempt 1 of 5)')
    expect(existsSync(marker)).toBe(true)
    expect(await store.mockServices.getById(mock.id)).toMatchObject({ status: 'RUNNING', port })
    expect(deployer.localAdmin(mock.id)?.url ?? null).not.toBeNull()
  })

  it('gives up after the restart attempts and records FAILED', async () => {
    const { deployer, store } = startDeployer({
      command: command('crash'),
      restart: { attempts: 2, initialDelayMs: 20 },
    })
    const mock = await createMock(store)
    expect(
      (await settle(deployer, await deployer.deploy(mock, document, 'ada@example.com'))).status,
    ).toBe('FINISHED')
    await eventually(
      async () => (await store.mockServices.getById(mock.id))?.status === 'FAILED',
      15_000,
      'FAILED',
    )
    const lines = deployer.logsOf(mock.id).join('\n')
    expect(lines).toContain('attempt 2 of 2')
    expect(lines).toContain('gave up after 2 restarts')
    expect(await store.mockServices.getById(mock.id)).toMatchObject({
      httpEndpoint: null,
      httpsEndpoint: null,
    })
    expect(deployer.localAdmin(mock.id)?.url ?? null).toBeNull()
  })

  it('a stop cancels a pending restart', async () => {
    const { deployer, store } = startDeployer({
      command: command('crash'),
      restart: { initialDelayMs: 5_000 },
    })
    const mock = await createMock(store)
    await settle(deployer, await deployer.deploy(mock, document, 'ada@example.com'))
    await eventually(
      () => deployer.logsOf(mock.id).some((l) => l.includes('restarting in 5000 ms')),
      5_000,
      'the crash',
    )
    expect((await store.mockServices.getById(mock.id))?.status).toBe('PENDING')
    await settle(deployer, await deployer.stop(mock, 'ada@example.com'))
    expect((await store.mockServices.getById(mock.id))?.status).toBe('STOPPED')
  })

  it('remove stops the runtime and forgets the mock service and its document', async () => {
    const { deployer, store, dataDir } = startDeployer({ command: command('ok') })
    const mock = await createMock(store)
    await settle(deployer, await deployer.deploy(mock, document, 'ada@example.com'))
    const endpoint = (await store.mockServices.getById(mock.id))?.httpEndpoint ?? ''
    await deployer.remove(mock.id)
    expect(deployer.localAdmin(mock.id)?.url ?? null).toBeNull()
    expect(deployer.logsOf(mock.id)).toEqual([])
    expect(existsSync(join(dataDir, 'mocks', `${mock.id}.json`))).toBe(false)
    await expect(fetch(endpoint)).rejects.toThrow()
  })

  it('shutdown stops every runtime but leaves RUNNING records, which restore brings back', async () => {
    const { deployer, store, dataDir } = startDeployer({ command: command('ok') })
    const a = await createMock(store)
    const b = await createMock(store, { name: 'payments' })
    await Promise.all([
      settle(deployer, await deployer.deploy(a, document, 'ada@example.com')),
      settle(deployer, await deployer.deploy(b, document, 'ada@example.com')),
    ])
    const endpoint = (await store.mockServices.getById(a.id))?.httpEndpoint ?? ''
    await deployer.shutdown()
    await expect(fetch(endpoint)).rejects.toThrow()
    expect((await store.mockServices.listByStatus(['RUNNING'])).map((m) => m.id)).toEqual([
      a.id,
      b.id,
    ])

    const next = new LocalDeployer({
      store,
      dataDir,
      log: createSilentLogger(),
      command: command('ok'),
    })
    try {
      const trackings = await next.restore('platform')
      expect(trackings.map((t) => t.mockServiceId).sort()).toEqual([a.id, b.id])
      for (const t of trackings) expect((await next.settled(t.trackingId))?.status).toBe('FINISHED')
      // Back on the port it had.
      expect(await (await fetch(endpoint)).text()).toBe('fake')
    } finally {
      await next.shutdown()
    }
  })

  it('restore fails the tracking of a mock service whose document is missing', async () => {
    const { deployer, store } = startDeployer({ command: command('ok') })
    const mock = await createMock(store, { status: 'RUNNING' })
    const [tracking] = await deployer.restore('platform')
    if (tracking === undefined) throw new Error('no tracking')
    const ended = await settle(deployer, tracking)
    expect(ended.status).toBe('FAILED')
    expect(ended.errors[0]?.message).toContain(`no document was saved for mock service ${mock.id}`)
  })

  it('reports the environment: running mock services, their transactions and memory', async () => {
    const { deployer, store } = startDeployer({ command: command('ok') })
    const a = await createMock(store)
    const b = await createMock(store)
    await settle(deployer, await deployer.deploy(a, document, 'ada@example.com'))
    await settle(deployer, await deployer.deploy(b, document, 'ada@example.com'))
    await settle(deployer, await deployer.stop(b, 'ada@example.com'))
    const figures = await deployer.environment()
    expect(figures).toMatchObject({
      status: 'RUNNING',
      msRunningCount: 1,
      totalTxnCount: 3,
      runningMockServiceIds: [a.id],
    })
    expect(figures.memoryUsage).toBeGreaterThan(process.memoryUsage().rss / 2)
    expect(Math.abs(figures.lastHeartBeat - Date.now())).toBeLessThan(5000)
  })

  it('does not take a port the system picked when another mock service keeps it', async () => {
    const probe = net.createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const kept = (probe.address() as net.AddressInfo).port
    await new Promise((resolve) => probe.close(resolve))
    const marker = join(tempDir(), 'first')
    const { deployer, store } = startDeployer({ command: command(`port:${marker}:${kept}`) })
    await createMock(store, { name: 'stopped one', status: 'STOPPED', port: kept })
    const mock = await createMock(store)
    expect(
      (await settle(deployer, await deployer.deploy(mock, document, 'ada@example.com'))).status,
    ).toBe('FINISHED')
    const port = (await store.mockServices.getById(mock.id))?.port
    expect(port).toBeGreaterThan(0)
    expect(port).not.toBe(kept)
    expect(
      deployer
        .logsOf(mock.id)
        .some(
          (l) => l.includes('port kept by another mock service') && l.includes(`"port":${kept}`),
        ),
    ).toBe(true)
  })

  it('names endpoints with endpointHost', async () => {
    const { deployer, store } = startDeployer({ command: command('ok'), endpointHost: 'localhost' })
    const mock = await createMock(store)
    await settle(deployer, await deployer.deploy(mock, document, 'ada@example.com'))
    expect((await store.mockServices.getById(mock.id))?.httpEndpoint).toMatch(
      /^http:\/\/localhost:\d+$/,
    )
  })

  it('fails actions once shut down', async () => {
    const { deployer, store } = startDeployer({ command: command('ok') })
    await deployer.shutdown()
    const mock = await createMock(store)
    const ended = await settle(deployer, await deployer.deploy(mock, document, 'ada@example.com'))
    expect(ended).toMatchObject({
      status: 'FAILED',
      errors: [
        { code: 'ERR_DEPLOY_FAILED', message: 'Deployment failed: the platform is stopping' },
      ],
    })
  })
})
