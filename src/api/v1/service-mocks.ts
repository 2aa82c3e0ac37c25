import { createError } from '../../errors/index.js'
import { mockServiceDocumentSchema } from '../../dsl/index.js'
import type {
  MockService,
  MockServiceTransactionRef,
  Repositories,
  Workspace,
} from '../../store/index.js'
import { findVisibleWorkspace } from '../access/authorize.js'
import type { ApiContext, HandlerResult, Route } from '../http/types.js'
import { listQueryOf } from '../paging.js'
import { invalidField, validatorOf } from '../validation.js'
import { mockServiceDocument } from './mock-document.js'
import { mockServiceOf } from './mock-lookup.js'
import { trackingView } from './service-mock-views.js'
import { mockServiceRecord } from './mock-record.js'
import { cloneTrackingView } from './service-clone.js'
import { proxyOf, proxySchema, type ProxyInput } from './mock-proxy.js'
import { saveRecordings } from './recordings.js'

/** Fields a create or update may set (unknown members, such as a whole record sent back on PUT, are ignored). */
interface MockServiceInput {
  serviceId?: number
  name?: string
  description?: string | null
  type?: string
  assetId?: number | null
  thinkTime?: number | null
  capacity?: number | null
  replicas?: number | null
  groupTag?: string | null
  tags?: string[] | null
  mockServiceTransactions?: Array<number | { txnId: number; priority?: number | null }> | null
  noMatchingRequestPreference?: string | null
  noMatchingRequestTxnId?: number | null
  liveSystemHost?: string | null
  liveSystemPort?: number | null
  endpointPreference?: string | null
  harborId?: string | null
  shipId?: string | null
  bridgeId?: number | null
  registryId?: number | null
  vseId?: number | null
  platformVseId?: number | null
  proxy?: ProxyInput | null
  // dynamic responses, as in the mock-service document
  cors?: boolean | Record<string, unknown> | null
  faults?: string | Record<string, unknown> | null
  templateSeed?: number | null
  // host matching and request validation, as in the mock-service document
  matchHost?: boolean | null
  validateRequests?: boolean | null
}

/** The dynamic-response fields, with the schemas of the mock-service document (docs/dsl.md). */
const documentProperties = mockServiceDocumentSchema['properties'] as Record<string, unknown>

const nullableInt = (min: number, max?: number) => ({
  type: ['integer', 'null'],
  minimum: min,
  ...(max === undefined ? {} : { maximum: max }),
})
const nullableString = (max: number) => ({ type: ['string', 'null'], maxLength: max })

/** Most worker processes one mock service may have: beyond the cores of any machine it would be waste. */
const MAX_REPLICAS = 32

const inputSchema = {
  type: 'object',
  properties: {
    serviceId: { type: 'integer', minimum: 1 },
    name: { type: 'string', minLength: 1, maxLength: 200 },
    description: nullableString(4000),
    type: { type: 'string', enum: ['TRANSACTIONAL', 'SV', 'transactional', 'sv'] },
    assetId: nullableInt(1),
    thinkTime: nullableInt(0, 600_000),
    capacity: nullableInt(1, 1_000_000),
    replicas: nullableInt(1, MAX_REPLICAS),
    groupTag: nullableString(200),
    tags: { type: ['array', 'null'], items: { type: 'string', minLength: 1, maxLength: 200 } },
    mockServiceTransactions: {
      type: ['array', 'null'],
      items: {
        anyOf: [
          { type: 'integer', minimum: 1 },
          {
            type: 'object',
            required: ['txnId'],
            properties: { txnId: { type: 'integer', minimum: 1 }, priority: nullableInt(0) },
          },
        ],
      },
    },
    noMatchingRequestPreference: { type: ['string', 'null'] },
    noMatchingRequestTxnId: nullableInt(1),
    liveSystemHost: nullableString(255),
    liveSystemPort: nullableInt(1, 65535),
    endpointPreference: {
      type: ['string', 'null'],
      enum: ['HTTP', 'HTTPS', 'http', 'https', null],
    },
    harborId: nullableString(200),
    shipId: nullableString(200),
    bridgeId: nullableInt(0),
    registryId: nullableInt(0),
    vseId: nullableInt(0),
    platformVseId: nullableInt(0),
    proxy: proxySchema,
    cors: documentProperties['cors'],
    faults: documentProperties['faults'],
    templateSeed: documentProperties['templateSeed'],
    matchHost: { type: ['boolean', 'null'] },
    validateRequests: { type: ['boolean', 'null'] },
  },
} as const

const readCreate = validatorOf<MockServiceInput & { serviceId: number; name: string }>({
  ...inputSchema,
  required: ['serviceId', 'name'],
})
const readUpdate = validatorOf<MockServiceInput>(inputSchema)

const preferences: Record<string, string> = {
  return404: 'return404',
  bypasslive: 'bypasslive',
  returntransaction: 'returnTransaction',
  record: 'record',
}

/** The record fields an input sets, checked against the workspace (400 naming the field). */
async function fieldsOf(
  repos: Repositories,
  workspace: Workspace,
  input: MockServiceInput,
  current: MockService | null,
): Promise<Partial<MockService>> {
  const out: Partial<MockService> = {}
  const serviceId = input.serviceId ?? current?.serviceId
  if (input.serviceId !== undefined) {
    if ((await repos.services.get(workspace.id, input.serviceId)) === undefined) {
      throw invalidField(
        '/serviceId',
        `names service ${input.serviceId}, which does not exist in workspace ${workspace.id}`,
      )
    }
    out.serviceId = input.serviceId
  }
  if (input.name !== undefined) out.name = input.name
  if (input.description !== undefined) out.description = input.description
  if (input.type !== undefined) out.type = input.type.toUpperCase()
  const type = out.type ?? current?.type ?? 'TRANSACTIONAL'
  if (input.assetId !== undefined) {
    if (
      input.assetId !== null &&
      (await repos.assets.get(workspace.id, input.assetId)) === undefined
    ) {
      throw invalidField(
        '/assetId',
        `names asset ${input.assetId}, which does not exist in workspace ${workspace.id}`,
      )
    }
    out.assetId = input.assetId
  }
  if (type === 'SV' && (out.assetId ?? current?.assetId ?? null) === null) {
    throw invalidField('/assetId', 'is required for a mock service of type SV')
  }
  for (const key of [
    'thinkTime',
    'capacity',
    'replicas',
    'groupTag',
    'liveSystemHost',
    'liveSystemPort',
    'harborId',
    'shipId',
    'bridgeId',
    'registryId',
    'vseId',
    'platformVseId',
    'cors',
    'faults',
    'templateSeed',
  ] as const) {
    const value = input[key]
    if (value !== undefined) (out as Record<string, unknown>)[key] = value
  }
  if (input.tags !== undefined) out.tags = input.tags ?? []
  if (input.matchHost !== undefined) out.matchHost = input.matchHost === true
  // A deployed mock service is built from stored transactions: no OpenAPI description reaches
  // its runtime, so there is nothing to validate requests against. Refused rather than ignored.
  if (input.validateRequests === true) {
    throw invalidField(
      '/validateRequests',
      'cannot be applied on the platform: a deployed mock service carries no OpenAPI description to check requests against; use `understudy run --mock DIR --validate-requests` with the description in DIR (docs/runtime.md)',
    )
  }
  const proxy = proxyOf(input.proxy, current?.proxy ?? null)
  if (proxy !== undefined) out.proxy = proxy
  if (input.endpointPreference !== undefined) {
    out.endpointPreference =
      input.endpointPreference === null
        ? null
        : (input.endpointPreference.toUpperCase() as 'HTTP' | 'HTTPS')
  }
  if (input.mockServiceTransactions !== undefined) {
    const refs: MockServiceTransactionRef[] = (input.mockServiceTransactions ?? []).map((e) =>
      typeof e === 'number'
        ? { txnId: e, priority: null }
        : { txnId: e.txnId, priority: e.priority ?? null },
    )
    // One read of all the references, then checked in order: the first bad entry is the one named.
    const services = await repos.transactions.servicesOf(
      workspace.id,
      refs.map((ref) => ref.txnId),
    )
    for (const [i, ref] of refs.entries()) {
      const txnServiceId = services.get(ref.txnId)
      if (txnServiceId === undefined) {
        throw invalidField(
          `/mockServiceTransactions/${i}`,
          `names transaction ${ref.txnId}, which does not exist in workspace ${workspace.id}`,
        )
      }
      if (serviceId !== undefined && txnServiceId !== serviceId) {
        throw invalidField(
          `/mockServiceTransactions/${i}`,
          `names transaction ${ref.txnId} of service ${txnServiceId}, not of service ${serviceId}`,
        )
      }
    }
    out.mockServiceTransactions = refs
  }
  if (input.noMatchingRequestPreference !== undefined) {
    const preference = preferences[(input.noMatchingRequestPreference ?? 'return404').toLowerCase()]
    if (preference === undefined) {
      throw invalidField(
        '/noMatchingRequestPreference',
        'must be one of return404, bypasslive, returnTransaction, record',
      )
    }
    out.noMatchingRequestPreference = preference
  }
  if (input.noMatchingRequestTxnId !== undefined) {
    if (
      input.noMatchingRequestTxnId !== null &&
      !(await repos.transactions.servicesOf(workspace.id, [input.noMatchingRequestTxnId])).has(
        input.noMatchingRequestTxnId,
      )
    ) {
      throw invalidField(
        '/noMatchingRequestTxnId',
        `names transaction ${input.noMatchingRequestTxnId}, which does not exist in workspace ${workspace.id}`,
      )
    }
    out.noMatchingRequestTxnId = input.noMatchingRequestTxnId
  }
  const preference =
    out.noMatchingRequestPreference ?? current?.noMatchingRequestPreference ?? 'return404'
  if (
    preference === 'returnTransaction' &&
    (out.noMatchingRequestTxnId ?? current?.noMatchingRequestTxnId ?? null) === null
  ) {
    throw invalidField(
      '/noMatchingRequestTxnId',
      'is required when noMatchingRequestPreference is returnTransaction',
    )
  }
  if (
    (preference === 'bypasslive' || preference === 'record') &&
    (out.liveSystemHost ?? current?.liveSystemHost ?? null) === null
  ) {
    throw invalidField(
      '/liveSystemHost',
      `is required when noMatchingRequestPreference is ${preference}`,
    )
  }
  return out
}

/** Create takes `serviceId` in the body or as `?serviceId=` (clients of the product send either). */
function withQueryServiceId(body: unknown, query: URLSearchParams): unknown {
  const raw = query.get('serviceId')
  if (
    raw === null ||
    typeof body !== 'object' ||
    body === null ||
    Array.isArray(body) ||
    'serviceId' in body
  ) {
    return body
  }
  if (!/^\d+$/.test(raw)) throw invalidField('/serviceId', 'must be an integer')
  return { ...body, serviceId: Number(raw) }
}

async function recordResult(
  ctx: ApiContext,
  mock: MockService,
  status = 200,
): Promise<HandlerResult> {
  return { status, result: await mockServiceRecord(ctx.deps.store, mock) }
}

const base = '/api/v1/workspaces/:workspaceId/service-mocks'

// --- client fields of the product: include/exclude, configuration, proxy ---
interface ClientPatch {
  includeIds?: number[]
  excludeIds?: number[]
  configurationId?: number | string | null
}

const readClientPatch = validatorOf<ClientPatch>({
  type: 'object',
  properties: {
    includeIds: { type: 'array', items: { type: 'integer', minimum: 1 }, maxItems: 10_000 },
    excludeIds: { type: 'array', items: { type: 'integer', minimum: 1 }, maxItems: 10_000 },
    configurationId: { type: ['integer', 'string', 'null'] },
  },
})

/**
 * Folds `includeIds` / `excludeIds` into `mockServiceTransactions` (kept priorities stay).
 * `configurationId` is applied by `update` (it needs the store); `proxy` is a field of the input
 * (mock-proxy.ts).
 */
function applyClientPatch(
  input: MockServiceInput,
  patch: ClientPatch,
  current: MockService,
): MockServiceInput {
  if (patch.includeIds === undefined && patch.excludeIds === undefined) return input
  if (input.mockServiceTransactions !== undefined) {
    throw invalidField(
      '/includeIds',
      'cannot be combined with mockServiceTransactions in one request',
    )
  }
  const refs = current.mockServiceTransactions.map((r) => ({
    txnId: r.txnId,
    priority: r.priority,
  }))
  for (const id of patch.includeIds ?? []) {
    if (!refs.some((r) => r.txnId === id)) refs.push({ txnId: id, priority: null })
  }
  const excluded = new Set(patch.excludeIds ?? [])
  for (const id of excluded) {
    if (!refs.some((r) => r.txnId === id)) {
      throw invalidField(
        '/excludeIds',
        `names transaction ${id}, which is not in mock service ${current.id}`,
      )
    }
  }
  return { ...input, mockServiceTransactions: refs.filter((r) => !excluded.has(r.txnId)) }
}

/** `configurationId` as sent: undefined when absent, null to clear ('' and null), else the id. */
function configurationIdOf(raw: number | string | null | undefined): number | null | undefined {
  if (raw === undefined) return undefined
  if (raw === null || raw === '') return null
  if (typeof raw === 'number') return raw
  if (!/^\d{1,15}$/.test(raw)) {
    throw invalidField('/configurationId', 'must be the id of a mock service configuration')
  }
  return Number(raw)
}

async function update(ctx: ApiContext): Promise<HandlerResult> {
  const { workspace, mock } = await mockServiceOf(ctx)
  const body = await ctx.json()
  const clientPatch = readClientPatch(body)
  const input = applyClientPatch(readUpdate(body), clientPatch, mock)
  const configurationId = configurationIdOf(clientPatch.configurationId)
  const by = ctx.principal.user.email
  const updated = await ctx.deps.store.write(async (tx) => {
    if (configurationId !== undefined) {
      if (
        configurationId !== null &&
        (await tx.mockSettings.get(workspace.id, 'configuration', configurationId)) === undefined
      ) {
        throw invalidField(
          '/configurationId',
          `names configuration ${configurationId}, which does not exist in workspace ${workspace.id}`,
        )
      }
      await tx.mockSettings.setConfiguration(mock.id, configurationId)
    }
    const fields = await fieldsOf(tx, workspace, input, mock)
    if (fields.tags !== undefined) await tx.tags.ensure(ctx.principal.account.id, fields.tags, by)
    // A running mock service keeps serving its configuration until `configure` applies the change.
    const pendingUpdate = mock.status === 'RUNNING' || mock.pendingUpdate
    return tx.mockServices.update(mock.id, { ...fields, pendingUpdate, by })
  })
  return recordResult(ctx, updated ?? mock, 201)
}

/** deploy, configure and stop: the mock services specification shows GET; POST is accepted too. */
function action(name: 'deploy' | 'configure' | 'stop'): Route['handler'] {
  return async (ctx) => {
    const found = await mockServiceOf(ctx)
    const by = ctx.principal.user.email
    const deployer = ctx.deps.deployer
    // What the runtime recorded goes into the store first (a redeploy or a stop would
    // lose it; a configure serves it). Saving adds the new transactions to an explicit list.
    const saved = await saveRecordings(ctx, found.workspace, found.mock).catch((err: unknown) => {
      // A runtime that does not answer must still be stoppable; configure and deploy refuse (503).
      if (name !== 'stop') throw err
      ctx.deps.log.warn(
        { err, serviceMockId: found.mock.id },
        'could not save the recording before stopping',
      )
      return { created: [] }
    })
    const mock =
      saved.created.length > 0
        ? ((await ctx.deps.store.mockServices.get(found.workspace.id, found.mock.id)) ?? found.mock)
        : found.mock
    let tracking
    if (name === 'stop') {
      tracking = await deployer.stop(mock, by)
    } else {
      const document = await mockServiceDocument(ctx.deps.store, ctx.deps.files, mock)
      tracking =
        name === 'deploy'
          ? await deployer.deploy(mock, document, by)
          : await deployer.configure(mock, document, by)
    }
    return { result: trackingView(tracking) }
  }
}

/**
 * Mock services (the mock services specification, docs/api.md#mock-services): create (TRANSACTIONAL
 * with `mockServiceTransactions` `[{txnId, priority}]`, or SV from an asset), get, list (by
 * `serviceId`), update (PUT, and PATCH as a partial update, docs/decisions.md#partial-updates),
 * delete (stops first; 204), and the deploy, configure and stop actions, which answer tracking
 * objects.
 */
export const serviceMockRoutes: Route[] = [
  {
    method: 'POST',
    path: base,
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const input = readCreate(withQueryServiceId(await ctx.json(), ctx.query))
      const by = ctx.principal.user.email
      const created = await ctx.deps.store.write(async (tx) => {
        const fields = await fieldsOf(tx, workspace, input, null)
        await tx.tags.ensure(ctx.principal.account.id, fields.tags ?? [], by)
        return tx.mockServices.create({
          workspaceId: workspace.id,
          serviceId: input.serviceId,
          name: input.name,
          description: fields.description ?? null,
          type: fields.type ?? 'TRANSACTIONAL',
          status: 'STOPPED',
          harborId: fields.harborId ?? null,
          shipId: fields.shipId ?? null,
          bridgeId: fields.bridgeId ?? null,
          registryId: fields.registryId ?? null,
          vseId: fields.vseId ?? null,
          platformVseId: fields.platformVseId ?? null,
          endpointPreference: fields.endpointPreference ?? null,
          liveSystemHost: fields.liveSystemHost ?? null,
          liveSystemPort: fields.liveSystemPort ?? null,
          thinkTime: fields.thinkTime ?? null,
          capacity: fields.capacity ?? null,
          replicas: fields.replicas ?? null,
          noMatchingRequestPreference: fields.noMatchingRequestPreference ?? 'return404',
          noMatchingRequestTxnId: fields.noMatchingRequestTxnId ?? null,
          mockServiceTransactions: fields.mockServiceTransactions ?? [],
          tags: fields.tags ?? [],
          groupTag: fields.groupTag ?? null,
          assetId: fields.assetId ?? null,
          httpEndpoint: null,
          httpsEndpoint: null,
          port: null,
          tlsPort: null,
          deployDate: null,
          pendingUpdate: false,
          proxy: fields.proxy ?? null,
          cors: fields.cors ?? null,
          faults: fields.faults ?? null,
          templateSeed: fields.templateSeed ?? null,
          matchHost: fields.matchHost ?? false,
          by,
        })
      })
      return recordResult(ctx, created, 201)
    },
  },
  {
    method: 'GET',
    path: base,
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const query = listQueryOf(ctx.query, ['id', 'name', 'created', 'updated'])
      const raw = ctx.query.get('serviceId')
      if (raw !== null && !/^\d+$/.test(raw)) throw invalidField('/serviceId', 'must be an integer')
      const page = await ctx.deps.store.mockServices.list(
        workspace.id,
        raw === null ? {} : { serviceId: Number(raw) },
        query,
      )
      const result = []
      for (const mock of page.items) result.push(await mockServiceRecord(ctx.deps.store, mock))
      return { result, paging: { limit: query.limit, skip: query.skip, total: page.total } }
    },
  },
  {
    method: 'GET',
    path: `${base}/:serviceMockId`,
    family: 'v1',
    handler: async (ctx) => recordResult(ctx, (await mockServiceOf(ctx)).mock),
  },
  { method: 'PUT', path: `${base}/:serviceMockId`, family: 'v1', handler: update },
  { method: 'PATCH', path: `${base}/:serviceMockId`, family: 'v1', handler: update },
  {
    method: 'DELETE',
    path: `${base}/:serviceMockId`,
    family: 'v1',
    handler: async (ctx) => {
      const { workspace, mock } = await mockServiceOf(ctx)
      await ctx.deps.deployer.remove(mock.id)
      await ctx.deps.store.write(async (tx) => tx.mockServices.delete(workspace.id, mock.id))
      return { status: 204, raw: null }
    },
  },
  ...(['deploy', 'configure', 'stop'] as const).flatMap((name): Route[] => [
    { method: 'GET', path: `${base}/:serviceMockId/${name}`, family: 'v1', handler: action(name) },
    { method: 'POST', path: `${base}/:serviceMockId/${name}`, family: 'v1', handler: action(name) },
  ]),
  {
    method: 'GET',
    path: '/api/v1/trackings/:trackingId',
    family: 'v1',
    handler: async (ctx) => {
      const id = ctx.params['trackingId'] ?? ''
      // Service clones answer trackings of their own
      const cloned = await ctx.deps.store.cloneTrackings.get(id)
      if (
        cloned !== undefined &&
        (await findVisibleWorkspace(ctx, cloned.workspaceId)) !== undefined
      ) {
        return { result: cloneTrackingView(cloned) }
      }
      const tracking = await ctx.deps.store.trackings.get(id)
      const seen =
        tracking === undefined ? undefined : await findVisibleWorkspace(ctx, tracking.workspaceId)
      // A tracking of a workspace the caller cannot see is reported as unknown: its id says nothing to a stranger.
      if (tracking === undefined || seen === undefined) {
        throw createError('ERR_API_NOT_FOUND', [`Tracking ${id}`])
      }
      return { result: trackingView(tracking) }
    },
  },
]
