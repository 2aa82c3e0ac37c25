import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli, startCli, type CliServer } from '../../helpers/cli.js'
import { monitoringToken } from '../../helpers/monitor-token.js'
import { freshPgDatabase, hasPostgres, PG_SKIP_REASON } from '../../helpers/postgres.js'
import { tempDir } from '../../helpers/temp-dir.js'

/*
 * `understudy admin migrate --from sqlite:DIR --to postgres://...`: a platform seeded through its
 * APIs on SQLite, stopped, copied, and started again on PostgreSQL answers the same objects, with
 * the same ids, to the same API key; new records get new ids; a second copy into the same
 * database is refused unless --force.
 */

if (!hasPostgres) console.warn(`[admin migrate tests skipped] ${PG_SKIP_REASON}`)

const key = { id: 'migrate-key', secret: 'migrate-secret-0123456789' }
const basic = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`

async function platformOn(dataDir: string, store?: string): Promise<CliServer> {
  return await startCli(
    [
      'platform',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      ...(store === undefined ? [] : ['--store', store]),
    ],
    {
      // The SQLite platform must be SQLite whatever the environment says.
      env: {
        UNDERSTUDY_API_KEY_ID: key.id,
        UNDERSTUDY_API_KEY_SECRET: key.secret,
        UNDERSTUDY_STORE: '',
      },
      timeoutMs: 30_000,
    },
  )
}

async function call(
  platform: CliServer,
  path: string,
  init: { method?: string; json?: unknown; authorization?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(platform.url + path, {
    method: init.method ?? 'GET',
    headers: {
      authorization: init.authorization ?? basic,
      ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
  })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

/** What the platform answers about everything the seed made, to compare before and after. */
async function snapshot(platform: CliServer, ws: number, bearer: string): Promise<unknown[]> {
  const paths = [
    '/api/v4/user',
    `/api/v1/workspaces/${ws}/services`,
    `/api/v1/workspaces/${ws}/transactions`,
    `/api/v1/workspaces/${ws}/service-mocks`,
  ]
  const answers: unknown[] = []
  for (const path of paths) answers.push(await call(platform, path))
  const buckets = await call(platform, '/buckets', { authorization: bearer })
  answers.push(buckets)
  const bucketKey = (buckets.body['data'] as Array<{ key: string }>)[0]?.key ?? ''
  answers.push(await call(platform, `/buckets/${bucketKey}/tests`, { authorization: bearer }))
  // Links name the platform's own address, which differs between the two starts, as do request ids.
  const text = JSON.stringify(answers)
    .replaceAll(platform.url, 'BASE')
    .replace(/"(request_id|requestId)":"[^"]*"/g, '"$1":"ID"')
  return JSON.parse(text) as unknown[]
}

describe.skipIf(!hasPostgres)('understudy admin migrate', () => {
  it('copies a platform from SQLite to PostgreSQL: the same objects, ids and key; new ids after the old; a second copy refused without --force', async () => {
    const url = await freshPgDatabase()
    if (url === undefined) throw new Error(PG_SKIP_REASON)
    const dataDir = tempDir('understudy-migrate-')
    const sqlite = await platformOn(dataDir)
    const user = await call(sqlite, '/api/v4/user')
    const { workspaceId } = (user.body['result'] as { defaultProject: { workspaceId: number } })
      .defaultProject
    const service = await call(sqlite, `/api/v1/workspaces/${workspaceId}/services`, {
      method: 'POST',
      json: { name: 'pets', description: 'Pet store' },
    })
    expect(service.status).toBe(201)
    const serviceId = (service.body['result'] as { id: number }).id
    const txns = await call(
      sqlite,
      `/api/v1/workspaces/${workspaceId}/transactions?serviceId=${serviceId}`,
      {
        method: 'POST',
        json: {
          transactions: [
            {
              name: 'list',
              tags: ['smoke'],
              dsl: {
                requestDsl: { method: 'GET', path: '/pets' },
                responseDsl: {
                  status: 200,
                  content: Buffer.from('[]').toString('base64'),
                  contentType: 'json',
                },
              },
            },
            {
              name: 'Create',
              dsl: {
                requestDsl: { method: 'POST', path: '/pets' },
                responseDsl: { status: 201 },
              },
            },
          ],
        },
      },
    )
    expect(txns.status).toBe(200)
    const txnIds = (txns.body['result'] as Array<{ id: number }>).map((t) => t.id)
    const mock = await call(sqlite, `/api/v1/workspaces/${workspaceId}/service-mocks`, {
      method: 'POST',
      json: {
        serviceId,
        name: 'pets mock',
        tags: ['ci'],
        mockServiceTransactions: [{ txnId: txnIds[0], priority: 3 }, txnIds[1]],
        noMatchingRequestPreference: 'returnTransaction',
        noMatchingRequestTxnId: txnIds[1],
      },
    })
    expect(mock.status).toBe(201)
    const bearer = await monitoringToken(sqlite.url, basic)
    const bucket = await call(sqlite, `/buckets?name=checks&team_uuid=${workspaceId}`, {
      method: 'POST',
      authorization: bearer,
    })
    expect(bucket.status).toBe(201)
    const bucketKey = (bucket.body['data'] as { key: string }).key
    const test = await call(sqlite, `/buckets/${bucketKey}/tests`, {
      method: 'POST',
      authorization: bearer,
      json: { name: 'health', description: 'is it up' },
    })
    expect(test.status).toBe(201)
    const before = await snapshot(sqlite, workspaceId, bearer)
    await sqlite.stop()

    const copied = await runCli(['admin', 'migrate', '--from', `sqlite:${dataDir}`, '--to', url], {
      timeoutMs: 60_000,
    })
    expect(copied.stderr).toBe('')
    expect(copied.code).toBe(0)
    expect(copied.stdout).toMatch(/^copied \d+ rows of \d+ tables from sqlite:/)
    expect(copied.stdout).toMatch(/^ {2}transactions: 2$/m)
    expect(copied.stdout).toMatch(/^ {2}mock_services: 1$/m)
    expect(copied.stdout).toMatch(/^ {2}monitor_tests: 1$/m)

    // The target now holds records: a second copy is refused, in one line, and changes nothing.
    const again = await runCli(['admin', 'migrate', '--from', `sqlite:${dataDir}`, '--to', url])
    expect(again.code).not.toBe(0)
    expect(again.stderr.trim().split('\n')).toHaveLength(1)
    expect(again.stderr).toMatch(/already holds records .*--force/)

    const postgres = await platformOn(dataDir, url)
    expect(await snapshot(postgres, workspaceId, bearer)).toEqual(before)
    // The sequences were moved past the copied ids.
    const next = await call(postgres, `/api/v1/workspaces/${workspaceId}/services`, {
      method: 'POST',
      json: { name: 'orders' },
    })
    expect(next.status).toBe(201)
    expect((next.body['result'] as { id: number }).id).toBeGreaterThan(serviceId)
    await postgres.stop()

    // --force replaces what the target holds with the source's records.
    const forced = await runCli(
      ['admin', 'migrate', '--from', `sqlite:${dataDir}`, '--to', url, '--force'],
      { timeoutMs: 60_000 },
    )
    expect(forced.code).toBe(0)
    const replaced = await platformOn(dataDir, url)
    expect(await snapshot(replaced, workspaceId, bearer)).toEqual(before)
  }, 120_000)

  it('refuses bad flags and a data dir without a store, in one line, with a non-zero exit', async () => {
    const empty = tempDir('understudy-migrate-empty-')
    mkdirSync(join(empty, 'nothing'), { recursive: true })
    const cases: Array<[string[], RegExp]> = [
      [['--from', empty, '--to', 'postgres://u@127.0.0.1/db'], /--from must be sqlite:DIR/],
      [['--from', `sqlite:${empty}`, '--to', 'mysql://x'], /--to must be a postgres/],
      [['--from', `sqlite:${empty}`], /--to must be a postgres/],
      [['--from', `sqlite:${empty}`, '--to', 'postgres://u@127.0.0.1:1/db'], /no SQLite store in/],
    ]
    // A store to copy, and a database that does not answer: the driver's error, in one line.
    const seeded = tempDir('understudy-migrate-seeded-')
    const made = await runCli([
      'admin',
      'create-account',
      '--name',
      'a',
      '--email',
      'a@example.com',
      '--data-dir',
      seeded,
    ])
    expect(made.code).toBe(0)
    cases.push([
      ['--from', `sqlite:${seeded}`, '--to', 'postgres://u:secret@127.0.0.1:1/db'],
      /the copy into postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/db failed, nothing was copied: .*ECONNREFUSED/,
    ])
    for (const [args, message] of cases) {
      const result = await runCli(['admin', 'migrate', ...args])
      expect(result.code, args.join(' ')).not.toBe(0)
      expect(result.stderr).toMatch(message)
      expect(result.stderr.trim().split('\n')).toHaveLength(1)
    }
  }, 60_000)
})
