import { randomUUID } from 'node:crypto'
import { createError } from '../../errors/index.js'
import { readDefinition, type TransactionDsl } from '../../dsl/index.js'
import {
  isConstraintViolation,
  type CloneTracking,
  type StoredTransaction,
} from '../../store/index.js'
import type { ApiContext, Route } from '../http/types.js'
import { epochSeconds } from '../format.js'
import { invalidField, validatorOf } from '../validation.js'
import { conflict } from './catalog-lookups.js'
import { assertServable } from './transaction-input.js'

/*
 * `POST /workspaces/{ws}/services/clone`: a copy of a service and all its transactions
 * under a new name, with `findAndReplace` applied to every string of the transactions (names,
 * descriptions, every DSL value: hosts, paths, matcher values; `content` is decoded, replaced and
 * encoded again). The copy and its tracking are made in one write, so the tracking it answers
 * has already FINISHED; it is stored (clone_trackings, migration 005) and answers at
 * `/api/v1/trackings/{id}` like the trackings of mock services, also after a restart.
 */

interface CloneInput {
  serviceId: number
  name: string
  description?: string | null
  findAndReplace?: Array<{ find: string; replace?: string | null }> | null
}

const readClone = validatorOf<CloneInput>({
  type: 'object',
  required: ['serviceId', 'name'],
  properties: {
    serviceId: { type: 'integer', minimum: 1 },
    name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' },
    description: { type: ['string', 'null'], maxLength: 4000 },
    findAndReplace: {
      type: ['array', 'null'],
      maxItems: 100,
      items: {
        type: 'object',
        required: ['find'],
        properties: {
          find: { type: 'string', minLength: 1, maxLength: 1000 },
          replace: { type: ['string', 'null'], maxLength: 1000 },
        },
      },
    },
  },
})

/** The tracking object of the mock services specification for a finished clone. */
export function cloneTrackingView(t: CloneTracking) {
  return {
    trackingId: t.trackingId,
    status: 'FINISHED',
    errors: [],
    warnings: [],
    trackingUrl: `/api/v1/trackings/${t.trackingId}`,
    data: { dataType: 'SERVICE', values: [t.serviceId] },
    action: 'clone',
    created: epochSeconds(t.created),
    updated: epochSeconds(t.created),
    createdBy: t.createdBy,
    updatedBy: t.createdBy,
    ended: epochSeconds(t.created),
  }
}

type Replace = (text: string) => string

/** Every string in a value with the replacements applied; base64 `content` decoded around them. */
function replaceDeep(value: unknown, replace: Replace, key = ''): unknown {
  if (typeof value === 'string') {
    if (key === 'content') {
      // only a text body is searched: binary bytes would not survive the round trip through text
      const bytes = Buffer.from(value, 'base64')
      const text = bytes.toString('utf8')
      return Buffer.from(text, 'utf8').equals(bytes)
        ? Buffer.from(replace(text), 'utf8').toString('base64')
        : value
    }
    return replace(value)
  }
  if (Array.isArray(value)) return value.map((v) => replaceDeep(v, replace))
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, replaceDeep(v, replace, k)]),
    )
  }
  return value
}

async function clone(ctx: ApiContext) {
  const workspace = await ctx.workspace()
  const input = readClone(await ctx.json())
  const store = ctx.deps.store
  const source = await store.services.get(workspace.id, input.serviceId)
  if (source === undefined) throw createError('ERR_API_NOT_FOUND', [`Service ${input.serviceId}`])
  const pairs = (input.findAndReplace ?? []).map((p) => ({
    find: p.find,
    replace: p.replace ?? '',
  }))
  const replace: Replace = (text) => pairs.reduce((t, p) => t.split(p.find).join(p.replace), text)
  const transactions = (
    await store.transactions.list(
      workspace.id,
      { serviceId: source.id },
      { limit: Number.MAX_SAFE_INTEGER, skip: 0 },
    )
  ).items
  const copies = transactions.map((t) => ({
    source: t,
    name: replace(t.name),
    description: t.description === null ? null : replace(t.description),
    dsl: replaceDeep(t.dsl, replace) as TransactionDsl,
  }))
  // A replacement may break a transaction (a regex, a JSON value): refuse naming it, copy nothing.
  copies.forEach((c) => {
    try {
      assertServable(readDefinition({ dsl: c.dsl }))
    } catch (err) {
      throw invalidField(
        '/findAndReplace',
        `makes transaction ${c.source.id} (${JSON.stringify(c.source.name)}) invalid: ${(err as Error).message}`,
      )
    }
  })
  const by = ctx.principal.user.email
  let tracking: CloneTracking
  try {
    tracking = await store.write(async (tx) => {
      const service = await tx.services.create({
        workspaceId: workspace.id,
        name: input.name.trim(),
        description: input.description ?? source.description,
        by,
      })
      for (const c of copies) {
        const t: StoredTransaction = c.source
        await tx.transactions.create({
          workspaceId: workspace.id,
          serviceId: service.id,
          name: c.name,
          description: c.description,
          tags: t.tags,
          dslType: t.dslType,
          dsl: c.dsl,
          by,
        })
      }
      return await tx.cloneTrackings.create({
        trackingId: randomUUID(),
        workspaceId: workspace.id,
        serviceId: service.id,
        createdBy: by,
      })
    })
  } catch (err) {
    if (isConstraintViolation(err, 'unique')) {
      throw conflict(
        `A service named "${input.name.trim()}" already exists in this workspace`,
        '/name',
      )
    }
    throw err
  }
  return { result: cloneTrackingView(tracking) }
}

export const serviceCloneRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/workspaces/:workspaceId/services/clone',
    family: 'v1',
    handler: clone,
  },
]
