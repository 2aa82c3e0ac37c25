import { gzipSync } from 'node:zlib'
import { createError } from '../../errors/index.js'
import type { ApiContext, HandlerResult, Route } from '../http/types.js'
import { readBodyWithin } from '../../net/index.js'
import { invalidField } from '../validation.js'
import { mockServiceOf } from './mock-lookup.js'

const base = '/api/v1/workspaces/:workspaceId/service-mocks/:serviceMockId/log'

/** Lines in a snapshot when `limit` is absent, and the most it may ask for. */
const DEFAULT_LINES = 1000
const MAX_LINES = 100_000

/**
 * A log snapshot of every replica of a mock service (the mock services specification,
 * docs/api.md#logs): the runtime's own log lines and the platform's lines about it (restarts,
 * failures), newest `limit` lines, with the tracking id of the deploy that started the runtime
 * which wrote them, stored so that `PUT .../log/{logId}` can save it to the asset catalog. `Accept:
 * application/gzip` gets the text gzipped, as a file, instead of the envelope.
 */
async function snapshot(ctx: ApiContext): Promise<HandlerResult> {
  const { mock } = await mockServiceOf(ctx)
  const raw = ctx.query.get('limit')
  if (raw !== null && !/^\d+$/.test(raw)) throw invalidField('/limit', 'must be a positive integer')
  const limit = Math.min(raw === null || raw === '0' ? DEFAULT_LINES : Number(raw), MAX_LINES)
  const log = (await ctx.deps.deployer.logsOf(mock.id, limit)).join('\n')
  // The runtime that wrote these lines was started by the mock service's last deploy.
  const saved = await ctx.deps.store.write(async (tx) => {
    const deploy = await tx.trackings.latestOf(mock.id, 'deploy')
    return await tx.logs.create({
      mockServiceId: mock.id,
      trackingId: deploy?.trackingId ?? null,
      log,
    })
  })
  const accept = ctx.req.headers.accept ?? ''
  if (/application\/(x-)?gzip/i.test(accept)) {
    return {
      status: 200,
      raw: gzipSync(log),
      headers: {
        'content-type': 'application/gzip',
        'content-disposition': `attachment; filename="mock-service-${mock.id}-log-${saved.logId}.log.gz"`,
      },
    }
  }
  // the mock services specification types trackingId as a string: '' for a mock service never
  // deployed (no runtime wrote a line)
  return {
    result: { log, logId: saved.logId, serviceMockId: mock.id, trackingId: saved.trackingId ?? '' },
  }
}

export const logRoutes: Route[] = [
  { method: 'GET', path: base, family: 'v1', handler: snapshot },
  // the mock services specification leaves the method of refresh unsaid: both are taken.
  { method: 'GET', path: `${base}/refresh`, family: 'v1', handler: snapshot },
  { method: 'POST', path: `${base}/refresh`, family: 'v1', handler: snapshot },
  {
    method: 'PUT',
    path: `${base}/:logId`,
    family: 'v1',
    handler: async (ctx) => {
      const { workspace, mock } = await mockServiceOf(ctx)
      const logId = ctx.intParam('logId')
      const entry = await ctx.deps.store.logs.get(mock.id, logId)
      if (entry === undefined) {
        throw createError('ERR_API_NOT_FOUND', [`Log snapshot ${logId} of mock service ${mock.id}`])
      }
      // The text body, when there is one, becomes the asset's description.
      const note = (await readBodyWithin(ctx.req, 64 * 1024)).toString('utf8').trim()
      const name = `mock-service-${mock.id}-log-${logId}.log`
      const stored = await ctx.deps.files.put(Buffer.from(entry.log, 'utf8'))
      try {
        await ctx.deps.store.write(async (tx) =>
          tx.assets.create({
            workspaceId: workspace.id,
            serviceId: mock.serviceId,
            name,
            description: note === '' ? `Log snapshot ${logId} of mock service ${mock.name}` : note,
            type: 'FILE_IN_ROOT',
            fileId: stored.fileId,
            folderId: null,
            platformVseId: null,
            tags: [],
            primaryMetadata: { serviceMockId: mock.id, logId },
            secondaryMetadata: {},
            size: stored.size,
            sha256: stored.sha256,
            contentType: 'text/plain',
            by: ctx.principal.user.email,
          }),
        )
      } catch (err) {
        await ctx.deps.files.delete(stored.fileId)
        throw err
      }
      return { result: true }
    },
  },
]
