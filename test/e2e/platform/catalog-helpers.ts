import { expect } from 'vitest'
import { mockServiceInput } from '../../helpers/mock-service-input.js'
import type { TestPlatform } from '../../helpers/platform.js'

/*
 * Shared steps of the /api/v1 catalog tests (services, tags, transactions, convert, assets).
 */

/** The v1 envelope of a success or an error. */
interface Envelope<T = unknown> {
  apiVersion: number
  error: null | {
    code: string
    message: string
    details?: Array<{ path: string; message: string; file?: string }>
  }
  result: T
  requestId: string | null
  limit?: number
  skip?: number
  total?: number
  warnings?: Array<{ message: string; file?: string }>
}

/** The body of a response as a v1 envelope. */
export async function envelope<T = unknown>(res: Response): Promise<Envelope<T>> {
  expect(res.headers.get('content-type')).toContain('application/json')
  return (await res.json()) as Envelope<T>
}

/** Asserts an error status, code and (when given) the pointer of the first failing field. */
export async function expectError(
  res: Response,
  status: number,
  code: string,
  path?: string,
): Promise<Envelope> {
  const body = await envelope(res)
  expect({ status: res.status, code: body.error?.code }).toEqual({ status, code })
  expect(body.apiVersion).toBe(1)
  expect(body.result).toBeNull()
  expect(JSON.stringify(body)).not.toMatch(/\bat .*\.(ts|js):\d+/) // never a stack trace
  if (path !== undefined) expect(body.error?.details?.map((d) => d.path)).toContain(path)
  return body
}

export function servicesPath(platform: TestPlatform, workspaceId = platform.workspaceId): string {
  return `/api/v1/workspaces/${workspaceId}/services`
}

export function transactionsPath(
  platform: TestPlatform,
  workspaceId = platform.workspaceId,
): string {
  return `/api/v1/workspaces/${workspaceId}/transactions`
}

export function assetsPath(platform: TestPlatform, workspaceId = platform.workspaceId): string {
  return `/api/v1/workspaces/${workspaceId}/assets`
}

/** Creates a service through the API; returns its id. */
export async function createService(
  platform: TestPlatform,
  name = 'pets',
  workspaceId = platform.workspaceId,
): Promise<number> {
  const res = await platform.request(servicesPath(platform, workspaceId), {
    method: 'POST',
    json: { name, description: `${name} service` },
  })
  expect(res.status).toBe(201)
  return (await envelope<{ id: number }>(res)).result.id
}

/** A second workspace of the same account, made through /api/v4. */
export async function secondWorkspace(platform: TestPlatform): Promise<number> {
  const res = await platform.request('/api/v4/workspaces', {
    method: 'POST',
    json: { name: 'second', accountId: platform.accountId },
  })
  expect(res.status).toBe(201)
  return ((await res.json()) as { result: { id: number } }).result.id
}

/** A workspace of another account, made directly in the store. */
export async function foreignWorkspace(platform: TestPlatform): Promise<number> {
  return platform.store.write(async (tx) => {
    const account = await tx.accounts.create({ name: 'someone else' })
    const workspace = await tx.workspaces.create({
      accountId: account.id,
      name: 'theirs',
      enabled: true,
      dedicatedIpsEnabled: false,
      privateLocationsEnabled: false,
      userId: platform.userId,
    })
    return workspace.id
  })
}

/** A mock service row using a service (and optionally an asset), made directly in the store. */
export async function insertMockService(
  platform: TestPlatform,
  serviceId: number,
  assetId: number | null = null,
): Promise<number> {
  const mock = await platform.store.write(async (tx) =>
    tx.mockServices.create(
      mockServiceInput(
        platform.workspaceId,
        serviceId,
        {
          name: 'mock',
          type: assetId === null ? 'TRANSACTIONAL' : 'SV',
          capacity: null,
          replicas: null,
          assetId,
        },
        'test@example.com',
      ),
    ),
  )

  return mock.id
}

/** A transaction of the JSON create body. */
export function txn(
  name: string,
  path: string,
  extra: {
    method?: string
    tags?: string[]
    description?: string
    request?: Record<string, unknown>
    status?: number
  } = {},
) {
  return {
    name,
    description: extra.description ?? `${name} description`,
    tags: extra.tags ?? [],
    dsl: {
      requestDsl: { method: extra.method ?? 'GET', path, ...extra.request },
      responseDsl: { status: extra.status ?? 200, json: { name } },
    },
  }
}

/** Creates transactions through the JSON endpoint; returns their ids in order. */
export async function createTransactions(
  platform: TestPlatform,
  serviceId: number,
  transactions: unknown[],
): Promise<number[]> {
  const res = await platform.request(`${transactionsPath(platform)}?serviceId=${serviceId}`, {
    method: 'POST',
    json: { transactions },
  })
  expect(res.status).toBe(200)
  const { result } = await envelope<{ id: number } | Array<{ id: number }>>(res)
  return Array.isArray(result) ? result.map((t) => t.id) : [result.id]
}

/** A multipart form with text fields and files. */
export function formOf(
  fields: Record<string, string>,
  files: Array<{ field?: string; name: string; bytes: Uint8Array | string; type?: string }> = [],
): FormData {
  const form = new FormData()
  for (const [key, value] of Object.entries(fields)) form.append(key, value)
  for (const f of files) {
    form.append(
      f.field ?? 'file',
      new Blob([typeof f.bytes === 'string' ? f.bytes : new Uint8Array(f.bytes)], {
        type: f.type ?? 'application/octet-stream',
      }),
      f.name,
    )
  }
  return form
}

/** The requests every workspace-scoped path must refuse: another account's workspace, no credentials. */
export async function expectScoped(
  platform: TestPlatform,
  build: (workspaceId: number) => string,
  init: RequestInit & { json?: unknown } = {},
): Promise<void> {
  const foreign = await foreignWorkspace(platform)
  await expectError(await platform.request(build(foreign), init), 404, 'ERR_API_NOT_FOUND')
  await expectError(
    await platform.request(build(platform.workspaceId), {
      ...init,
      headers: { authorization: '' },
    }),
    401,
    'ERR_API_UNAUTHORIZED',
  )
  await expectError(await platform.request(build(987654), init), 404, 'ERR_API_NOT_FOUND')
}
