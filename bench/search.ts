// npm run bench:search: the search figure. POST /api/v4/search over 100,000 transactions in one
// workspace: a substring filter on the name, ordered by -updated, limit=50 (target: under 50 ms),
// through the real HTTP handler (authentication, roles, compile, one SQL query, envelope).
import http from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { allRoutes, bootstrap, createApiHandler } from '../src/api/index.js'
import { createSilentLogger } from '../src/log/index.js'
import { AssetFiles, openSqliteStore } from '../src/store/index.js'
import { unavailableDeployer } from '../test/helpers/platform.js'

const COUNT = 100_000
const ROUNDS = 30
const dataDir = mkdtempSync(join(tmpdir(), 'understudy-search-bench-'))
const key = { id: 'bench-key', secret: 'bench-secret-0123456789' }
const auth = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`

try {
  let store = await openSqliteStore({ dataDir })
  const outcome = await bootstrap(store, { dataDir, apiKeyId: key.id, apiKeySecret: key.secret })
  const service = await store.services.create({
    workspaceId: outcome.workspaceId,
    name: 'bench',
    description: null,
    by: 'bench',
  })
  await store.close()

  // Seeding through raw SQL: 100,000 API calls would measure the seeding, not the search.
  const db = new Database(join(dataDir, 'understudy.db'))
  const words = [
    'pets',
    'owners',
    'orders',
    'invoices',
    'users',
    'carts',
    'payments',
    'stock',
    'reviews',
    'shipments',
  ]
  const dsl = JSON.stringify({
    requestDsl: { method: 'GET', path: '/x' },
    responseDsl: { status: 200, json: { ok: true, padding: 'x'.repeat(400) } },
  })
  const insert = db.prepare(
    'INSERT INTO transactions (workspace_id, service_id, name, description, dsl_type, dsl, created, updated, created_by, updated_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  )
  // One tag per transaction, ten names (the tag filter's figure).
  const tag = db.prepare(
    'INSERT INTO transaction_tags (transaction_id, name, position) VALUES (?, ?, 0)',
  )
  const started = Date.now()
  db.transaction(() => {
    for (let i = 0; i < COUNT; i++) {
      const name = `${['GET', 'POST', 'PUT', 'DELETE'][i % 4] ?? 'GET'} /${words[i % words.length] ?? 'x'}/${i}`
      const row = insert.run(
        outcome.workspaceId,
        service.id,
        name,
        `transaction ${i}`,
        'GENERIC_DSL',
        dsl,
        started - i * 1000,
        started - ((i * 7919) % COUNT) * 1000,
        'bench',
        'bench',
      )
      tag.run(row.lastInsertRowid, `team-${i % 10}`)
    }
  })()
  db.close()

  store = await openSqliteStore({ dataDir })
  const server = http.createServer(
    createApiHandler(
      {
        store,
        files: new AssetFiles(dataDir),
        deployer: unavailableDeployer,
        log: createSilentLogger(),
        options: {
          baseUrl: 'http://127.0.0.1',
          jsonLimit: 1 << 20,
          uploadLimit: 1 << 20,
          signingKey: Buffer.alloc(32),
        },
      },
      allRoutes,
    ),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/api/v4/search`
  const measure = async (label: string, request: unknown): Promise<void> => {
    const body = JSON.stringify(request)
    const times: number[] = []
    let total = 0
    for (let i = 0; i < ROUNDS + 3; i++) {
      const t0 = performance.now()
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body,
      })
      const json = (await res.json()) as { total: number; result: unknown[] }
      const ms = performance.now() - t0
      if (res.status !== 200 || json.result.length !== 50) {
        throw new Error(`unexpected answer ${res.status}`)
      }
      total = json.total
      if (i >= 3) times.push(ms)
    }
    times.sort((x, y) => x - y)
    const median = times[Math.floor(times.length / 2)] ?? 0
    const p90 = times[Math.floor(times.length * 0.9)] ?? 0
    console.log(`POST /api/v4/search over ${COUNT} transactions: ${label} (${total} matches)`)
    console.log(
      `median ${median.toFixed(1)} ms, p90 ${p90.toFixed(1)} ms, min ${(times[0] ?? 0).toFixed(1)} ms over ${ROUNDS} requests (target < 50 ms)`,
    )
  }
  await measure('$ilike substring + ordering -updated + limit=50', {
    entity: 'transactions',
    workspaceId: outcome.workspaceId,
    fields: ['*'],
    filters: { $and: [{ name: { $ilike: 'orders/1' } }] },
    ordering: [{ updated: -1 }],
    limit: 50,
  })
  await measure('$ilike substring + tag $in + tags.* + ordering -updated + limit=50', {
    entity: 'transactions',
    workspaceId: outcome.workspaceId,
    fields: ['*', 'tags.*'],
    filters: { $and: [{ name: { $ilike: 'orders/1' } }, { tags: { $in: ['team-2', 'team-7'] } }] },
    ordering: [{ updated: -1 }],
    limit: 50,
  })
  server.close()
  await store.close()
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
