import { describe, expect, it, onTestFinished } from 'vitest'
import { randomBytes } from 'node:crypto'
import {
  AssetFiles,
  copySqliteToPostgres,
  openPostgresStore,
  openSqliteStore,
  StoredAssetFiles,
  type Store,
} from '../../../../src/store/index.js'
import { mockServiceInput } from '../../../helpers/mock-service-input.js'
import { freshPgDatabase, hasPostgres, PG_SKIP_REASON } from '../../../helpers/postgres.js'
import { tempDir } from '../../../helpers/temp-dir.js'
import { ALL, BY, realisticDsl, seed } from '../fixtures.js'

/*
 * The copy of a SQLite store into PostgreSQL, read back through the PostgreSQL store's own
 * repositories: every kind of column (booleans, JSON kept as written, epoch milliseconds,
 * fractional timestamps), ties SQLite broke by rowid, and ids never handed out twice.
 */

if (!hasPostgres) console.warn(`[copy to PostgreSQL tests skipped] ${PG_SKIP_REASON}`)

/** A clock frozen at one millisecond: ties that only insertion order breaks. */
const frozen = (): number => 1_700_000_000_000

describe.skipIf(!hasPostgres)('copySqliteToPostgres', () => {
  it('copies every record so that the PostgreSQL store answers what the SQLite store did', async () => {
    const url = await freshPgDatabase()
    if (url === undefined) throw new Error(PG_SKIP_REASON)
    const dataDir = tempDir()
    const sqlite = await openSqliteStore({ dataDir, now: frozen })
    const world = await seed(sqlite)
    const ws = world.workspace.id
    const txn = await sqlite.transactions.create({
      workspaceId: ws,
      serviceId: world.service.id,
      name: 'order',
      description: 'ünïcödé',
      tags: ['b', 'a'],
      dslType: 'GENERIC_DSL',
      dsl: realisticDsl(),
      by: BY,
    })
    const mock = await sqlite.mockServices.create(
      mockServiceInput(ws, world.service.id, {
        pendingUpdate: true,
        matchHost: true,
        port: 41000,
        cors: { zeta: 1, alpha: true },
        mockServiceTransactions: [{ txnId: txn.id, priority: 2 }],
        noMatchingRequestTxnId: txn.id,
      }),
    )
    const base = {
      workspaceId: ws,
      mockServiceId: mock.id,
      status: 'PENDING' as const,
      errors: [],
      warnings: [],
      createdBy: BY,
    }
    await sqlite.trackings.create({ ...base, trackingId: 'first', action: 'deploy' })
    await sqlite.trackings.create({ ...base, trackingId: 'second', action: 'deploy' })
    const log = await sqlite.logs.create({ mockServiceId: mock.id, trackingId: 'second', log: 'x' })
    await sqlite.sandboxes.open({ workspaceId: ws, userId: world.user.id, transactionId: txn.id })
    await sqlite.locations.createHarbor({
      id: 'harbor-lab',
      accountId: world.account.id,
      name: 'lab',
      userId: world.user.id,
      workspaceIds: [ws],
    })
    await sqlite.monitoring.createBucket({
      key: 'bucket000001',
      workspaceId: ws,
      name: 'b',
      triggerId: 'tb',
      isDefault: true,
    })
    await sqlite.monitoring.createTest({
      id: 't1',
      bucketKey: 'bucket000001',
      name: 't',
      description: null,
      defaultEnvironmentId: null,
      triggerId: 'tt',
      createdBy: { id: '1', name: 'Ada', email: BY },
      steps: [{ id: 's', step_type: 'request', z: 1, a: 2 }],
    })
    for (const id of ['r1', 'r2']) {
      await sqlite.monitoring.createRun({
        id,
        testId: 't1',
        bucketKey: 'bucket000001',
        environmentId: 'e',
        result: 'pass',
        source: 'api',
        created: 5,
        finished: 6,
        doc: { id },
      })
    }
    await sqlite.monitoring.addRevision({
      uuid: 'v1',
      bucketKey: 'bucket000001',
      testId: 't1',
      itemType: 'radar_test',
      itemId: 't1',
      timestamp: 1.5,
      author: { id: '1', name: 'Ada', email: BY },
      doc: {},
    })
    await sqlite.oauth.createApp({
      clientId: 'c',
      userId: world.user.id,
      name: 'a',
      websiteUrl: 'w',
      callbackUrl: 'cb',
      secretHash: 'h',
    })
    await sqlite.oauth.createCode({
      codeHash: 'ch',
      clientId: 'c',
      userId: world.user.id,
      scopes: ['read'],
      redirectUri: 'cb',
      expires: 9,
    })
    // A deleted service: its id is never handed out again, on PostgreSQL either.
    const gone = await sqlite.services.create({
      workspaceId: ws,
      name: 'gone',
      description: null,
      by: BY,
    })
    await sqlite.services.delete(ws, gone.id)

    const read = async (store: Store): Promise<unknown[]> => [
      await store.users.get(world.user.id),
      await store.workspaces.get(ws),
      await store.services.list(ws, ALL),
      await store.transactions.get(ws, txn.id),
      await store.mockServices.get(ws, mock.id),
      await store.trackings.latestOf(mock.id, 'deploy'),
      await store.logs.get(mock.id, log.logId),
      await store.sandboxes.get(ws, world.user.id),
      await store.locations.harbor([world.account.id], 'harbor-lab'),
      await store.monitoring.getBucket('bucket000001'),
      await store.monitoring.getTestById('t1'),
      await store.monitoring.listRuns('t1', 10),
      await store.monitoring.listRevisions('t1'),
      await store.oauth.getApp('c'),
    ]
    const before = await read(sqlite)
    await sqlite.close()

    const report = await copySqliteToPostgres({ dataDir, url, force: false })
    expect(report.tables.find((t) => t.table === 'monitor_runs')?.rows).toBe(2)
    expect(report.tables.findIndex((t) => t.table === 'accounts')).toBeLessThan(
      report.tables.findIndex((t) => t.table === 'mock_services'),
    )
    const postgres = await openPostgresStore({ url, now: frozen })
    onTestFinished(async () => await postgres.close())
    expect(await read(postgres)).toEqual(before)
    expect((before[5] as { trackingId: string }).trackingId).toBe('second')
    expect(Object.keys((await postgres.mockServices.getById(mock.id))?.cors as object)).toEqual([
      'zeta',
      'alpha',
    ])
    expect((await postgres.oauth.consumeCode('ch'))?.used).toBe(false)
    const next = await postgres.services.create({
      workspaceId: ws,
      name: 'next',
      description: null,
      by: BY,
    })
    expect(next.id).toBeGreaterThan(gone.id)
  })

  it('copies the bytes of the asset files from the data dir into the store', async () => {
    const url = await freshPgDatabase()
    if (url === undefined) throw new Error(PG_SKIP_REASON)
    const dataDir = tempDir()
    const sqlite = await openSqliteStore({ dataDir })
    const world = await seed(sqlite)
    const files = new AssetFiles(dataDir)
    const asset = async (name: string, fileId: string, size: number): Promise<void> => {
      await sqlite.assets.create({
        workspaceId: world.workspace.id,
        serviceId: null,
        name,
        description: null,
        type: 'FILE_IN_ROOT',
        fileId,
        folderId: null,
        platformVseId: null,
        tags: [],
        primaryMetadata: {},
        secondaryMetadata: {},
        size,
        sha256: '00'.repeat(32),
        contentType: 'application/octet-stream',
        by: BY,
      })
    }
    const big = randomBytes(3 * (1 << 20) + 7)
    const small = Buffer.from('ünï\u0000')
    const bigFile = await files.put(big)
    const smallFile = await files.put(small)
    await asset('big.bin', bigFile.fileId, big.byteLength)
    await asset('small.txt', smallFile.fileId, small.byteLength)
    // A row whose file the data dir lacks: reported, the rest still copied.
    const missing = '0b7c4c4e-5b9b-4a55-9d5e-2f3f1a4a9f00'
    await asset('lost.bin', missing, 1)
    // Bytes no row names (an upload that never committed) stay behind.
    const orphan = await files.put(Buffer.from('orphan'))
    await sqlite.close()

    const report = await copySqliteToPostgres({ dataDir, url, force: false })
    expect(report.assetFiles).toEqual({
      copied: 2,
      bytes: big.byteLength + small.byteLength,
      missing: [missing],
    })
    const postgres = await openPostgresStore({ url })
    onTestFinished(async () => await postgres.close())
    const stored = new StoredAssetFiles(postgres.assetChunks)
    expect((await stored.get(bigFile.fileId))?.equals(big)).toBe(true)
    expect((await stored.get(smallFile.fileId))?.equals(small)).toBe(true)
    expect(await stored.get(orphan.fileId)).toBeUndefined()

    // A forced copy again replaces them rather than doubling the chunks.
    const again = await copySqliteToPostgres({ dataDir, url, force: true })
    expect(again.assetFiles.copied).toBe(2)
    expect((await stored.get(bigFile.fileId))?.equals(big)).toBe(true)
    // The maintained totals (migration 13) count the copied rows once, not once per copy.
    const page = { limit: 1, skip: 0 }
    expect((await postgres.assets.list(world.workspace.id, {}, page)).total).toBe(3)
    expect((await postgres.users.listByAccount(world.account.id, page)).total).toBe(1)
    expect((await postgres.workspaces.listByAccount(world.account.id, page)).total).toBe(2)
  })
})
