import pg from 'pg'
import { expect, onTestFinished, vi } from 'vitest'
import {
  openPostgresStore,
  type Store,
  type TransactionFilter,
} from '../../../../src/store/index.js'
import { requirePgDatabase } from '../../../helpers/postgres.js'
import { BY, seed } from '../fixtures.js'

/*
 * What a transaction list must be, computed from the table's rows read straight from
 * PostgreSQL: the truth the tests of kept totals and positions compare every page with.
 */

export const dsl = '{"requestDsl":{"method":"GET","path":"/x"},"responseDsl":{"status":200}}'

/**
 * Three stores (pools, as three platform instances) on one fresh database, a client reading its
 * tables, and a seeded workspace with a service for each of `names`; closed when the test ends.
 *
 * @example
 * const { store, other, client, workspaceId, services: [a, b] } = await poolsOnOneDatabase(['a', 'b'] as const)
 */
export async function poolsOnOneDatabase<const N extends readonly string[]>(
  names: N,
): Promise<{
  store: Store
  other: Store
  third: Store
  client: pg.Client
  workspaceId: number
  services: { [K in keyof N]: { id: number } }
}> {
  const url = await requirePgDatabase()
  const opened = await Promise.all([0, 1, 2].map(async () => await openPostgresStore({ url })))
  onTestFinished(async () => {
    await Promise.all(opened.map(async (s) => await s.close()))
  })
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  onTestFinished(async () => await client.end())
  const [first, second, last] = opened
  if (first === undefined || second === undefined || last === undefined) {
    throw new Error('no stores')
  }
  const workspaceId = (await seed(first)).workspace.id
  const services = await Promise.all(
    names.map(
      async (name) => await first.services.create({ workspaceId, name, description: null, by: BY }),
    ),
  )
  return {
    store: first,
    other: second,
    third: last,
    client,
    workspaceId,
    services: services as { [K in keyof N]: { id: number } },
  }
}

/**
 * `n` transaction names, none twice, out of id order (so that a sort by name moves rows).
 *
 * @example
 * scrambledNames(3) // ['GET /orders/0', 'GET /orders/2', 'GET /orders/1']
 */
export function scrambledNames(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `GET /orders/${(i * 7919) % n}`)
}

export interface TableRow {
  id: number
  workspaceId: number
  serviceId: number
  name: string
  description: string | null
  dslType: string
  updated: number
  tags: string[]
}

export const SORTS = ['id', '-name', 'updated'] as const

/** What the list must be, computed from the table's rows (ASCII names: lower() is JavaScript's). */
export function expected(
  rows: readonly TableRow[],
  workspaceId: number,
  filter: TransactionFilter,
  sort: string,
): number[] {
  const contains = filter.contains?.toLowerCase()
  const listed = rows.filter(
    (r) =>
      r.workspaceId === workspaceId &&
      (filter.serviceId === undefined || r.serviceId === filter.serviceId) &&
      (contains === undefined ||
        r.name.toLowerCase().includes(contains) ||
        (r.description ?? '').toLowerCase().includes(contains)) &&
      (filter.dslType === undefined || r.dslType === filter.dslType) &&
      (filter.tags ?? []).every((tag) => r.tags.includes(tag)),
  )
  const descending = sort.startsWith('-')
  const field = sort.replace(/^-/, '')
  const key = (r: TableRow): string | number =>
    field === 'name' ? r.name.toLowerCase() : field === 'updated' ? r.updated : r.id
  listed.sort((a, b) => {
    const [ka, kb] = [key(a), key(b)]
    const order = ka < kb ? -1 : ka > kb ? 1 : a.id - b.id
    return descending ? -order : order
  })
  return listed.map((r) => r.id)
}

export async function tableRows(client: pg.Client): Promise<TableRow[]> {
  const { rows } = await client.query<Record<string, unknown>>(
    'SELECT t.id, t.workspace_id, t.service_id, t.name, t.description, t.dsl_type, t.updated, ' +
      'array(SELECT x.name FROM transaction_tags x WHERE x.transaction_id = t.id) AS tags FROM transactions t',
  )
  return rows.map((r) => ({
    id: Number(r['id']),
    workspaceId: Number(r['workspace_id']),
    serviceId: Number(r['service_id']),
    name: String(r['name']),
    description: r['description'] === null ? null : String(r['description']),
    dslType: String(r['dsl_type']),
    updated: Number(r['updated']),
    tags: r['tags'] as string[],
  }))
}

/** Statements the store's pools send, from the moment it is called. */
export function statementsSent(): { texts: () => string[]; stop: () => void } {
  const spy = vi.spyOn(pg.Client.prototype, 'query')
  return {
    texts: () =>
      spy.mock.calls.map(([sql]) =>
        typeof sql === 'string' ? sql : String((sql as { text?: string }).text),
      ),
    stop: () => spy.mockRestore(),
  }
}

/**
 * The filters the checks list, over services `a` and `b`: none, substrings many and few rows
 * match, a service, a service with a substring, a tag, a type.
 *
 * @example
 * listChecks(store, client, workspaceId, filtersOf(a.id, b.id))
 */
export function filtersOf(a: number, b: number): TransactionFilter[] {
  return [
    {},
    { contains: 'orders/1' },
    { contains: 'RARE' },
    { serviceId: b },
    { serviceId: a, contains: 'orders/2' },
    { tags: ['smoke'] },
    { dslType: 'GENERIC_DSL' },
  ]
}

/**
 * Inserts transactions named `names` into a service, in one write of `store`; their ids.
 *
 * @example
 * const ids = await insertRows(store, workspaceId, serviceId, ['GET /a', 'GET /b'], ['smoke'])
 */
export async function insertRows(
  store: Store,
  workspaceId: number,
  serviceId: number,
  names: readonly string[],
  tags: readonly string[] = [],
): Promise<number[]> {
  return await store.write(
    async (tx) =>
      await tx.transactions.createEncodedMany(
        { workspaceId, serviceId, by: 'ada@example.com' },
        names.map((name) => ({
          name,
          description: null,
          dslType: 'GENERIC_DSL',
          tags: [...tags],
          dslJson: dsl,
        })),
      ),
  )
}

/**
 * Checks of every list of `filters`, in every sort of `SORTS`, at pages near the start, past a
 * slice, near the end and past it, against the table's rows: `check`, and `checkMoved`, which
 * also fails if a total or positions was read again (a COUNT(*) or a window statement sent).
 *
 * @example
 * const { check, checkMoved } = listChecks(store, client, workspaceId, [{}, { contains: 'rare' }])
 * await checkMoved('one row inserted')
 */
export function listChecks(
  store: Store,
  client: pg.Client,
  workspaceId: number,
  filters: readonly TransactionFilter[],
): { check: (step: string) => Promise<void>; checkMoved: (step: string) => Promise<void> } {
  const check = async (step: string): Promise<void> => {
    const rows = await tableRows(client)
    for (const filter of filters) {
      for (const sort of SORTS) {
        const want = expected(rows, workspaceId, filter, sort)
        const skips = [0, 50, 1100, 1500, Math.max(0, want.length - 3), want.length + 5]
        for (const skip of skips) {
          const page = await store.transactions.list(workspaceId, filter, {
            limit: 50,
            skip,
            sort,
          })
          const where = `${step}: ${JSON.stringify(filter)} sort=${sort} skip=${skip}`
          expect(page.total, where).toBe(want.length)
          expect(
            page.items.map((t) => t.id),
            where,
          ).toEqual(want.slice(skip, skip + 50))
        }
      }
    }
  }
  const checkMoved = async (step: string): Promise<void> => {
    const sent = statementsSent()
    try {
      await check(step)
      const reread = sent.texts().filter((sql) => /COUNT\(\*\)|OVER w/.test(sql))
      expect(reread, step).toEqual([])
    } finally {
      sent.stop()
    }
  }
  return { check, checkMoved }
}
