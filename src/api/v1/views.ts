import type { Asset, Service, StoredTransaction, Tag } from '../../store/index.js'
import { epochSeconds, formattedDate, isoDate } from '../format.js'

/*
 * The response shapes of the mock services specification's catalog resources, built from store
 * records. One function per resource so that every endpoint answers the same fields with the same
 * types (the store keeps epoch milliseconds; each resource shows the unit its samples show).
 */

/**
 * A Service of the mock services specification: `created`/`updated` in epoch seconds, `description`
 * string or null.
 *
 * @example
 * serviceView(service) // { id: 3, name: 'pets', description: null, created: 1714571109, ... }
 */
export function serviceView(s: Service) {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    created: epochSeconds(s.created),
    updated: epochSeconds(s.updated),
    createdBy: s.createdBy,
    updatedBy: s.updatedBy,
  }
}

/**
 * A Tag of the mock services specification. Its samples show `created`/`updated` as epoch seconds
 * like the other resources, except the update (PUT) response, which shows ISO 8601: `iso` picks
 * that form.
 *
 * @example
 * tagView(tag, true).created // '2024-05-01T13:45:09.000Z'
 */
export function tagView(t: Tag, iso = false) {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    created: iso ? isoDate(t.created) : epochSeconds(t.created),
    updated: iso ? isoDate(t.updated) : epochSeconds(t.updated),
    createdBy: t.createdBy,
    updatedBy: t.updatedBy,
  }
}

/**
 * The address of a transaction, as its `link` shows it.
 *
 * @example
 * transactionLink(1, 7) // '/api/v1/workspaces/1/transactions/7'
 */
export function transactionLink(workspaceId: number, id: number): string {
  return `/api/v1/workspaces/${workspaceId}/transactions/${id}`
}

/**
 * A Transaction of the mock services specification, plus `dslType` (the format it came from:
 * GENERIC_DSL, HAR_DSL...), which the list filters by. The mock services specification types
 * `description` as a string, so an absent one is ''.
 *
 * @example
 * transactionView(txn, 'pets').link // '/api/v1/workspaces/1/transactions/7'
 */
export function transactionView(t: StoredTransaction, serviceName: string) {
  return {
    id: t.id,
    name: t.name,
    description: t.description ?? '',
    serviceId: t.serviceId,
    serviceName,
    tags: t.tags,
    link: transactionLink(t.workspaceId, t.id),
    dslType: t.dslType,
    dsl: t.dsl,
  }
}

/**
 * An Asset of the mock services specification: `created`/`updated` ISO 8601,
 * `createdDate`/`updatedDate` formatted strings; `description` and `folderId` are '' when unset
 * (the spec types them as strings), `serviceId`/`serviceName` null for an asset of no service.
 * Beyond the spec: `platformVseId` (given at upload) and `size` (bytes).
 *
 * @example
 * assetView(asset, 'pets').createdDate // '2024-05-01 13:45:09'
 */
export function assetView(a: Asset, serviceName: string | null) {
  return {
    id: a.id,
    name: a.name,
    description: a.description ?? '',
    fileId: a.fileId,
    folderId: a.folderId ?? '',
    serviceId: a.serviceId,
    serviceName: a.serviceId === null ? null : serviceName,
    tags: a.tags,
    primaryMetadata: a.primaryMetadata,
    secondaryMetadata: a.secondaryMetadata,
    type: a.type,
    platformVseId: a.platformVseId,
    size: a.size,
    created: isoDate(a.created),
    updated: isoDate(a.updated),
    createdBy: a.createdBy,
    updatedBy: a.updatedBy,
    createdDate: formattedDate(a.created),
    updatedDate: formattedDate(a.updated),
  }
}
