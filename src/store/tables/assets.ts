import type { Asset } from '../types.js'
import type { ColumnKinds, TableSpec } from './columns.js'

/** Every Asset field with how its column in assets keeps it. */
export const assetColumns = {
  id: 'value',
  workspaceId: 'value',
  serviceId: 'value',
  name: 'value',
  description: 'value',
  type: 'value',
  fileId: 'value',
  folderId: 'value',
  platformVseId: 'value',
  tags: 'json',
  primaryMetadata: 'json',
  secondaryMetadata: 'json',
  size: 'value',
  sha256: 'value',
  contentType: 'value',
  created: 'value',
  updated: 'value',
  createdBy: 'value',
  updatedBy: 'value',
} as const satisfies ColumnKinds<Asset>

/** What `update` may change of an asset. */
export const assetUpdatable = [
  'description',
  'primaryMetadata',
  'secondaryMetadata',
  'serviceId',
  'tags',
  'name',
] as const satisfies ReadonlyArray<keyof Asset>

/** The assets table: its name, key and columns. */
export const assetTable: TableSpec<Asset> = {
  table: 'assets',
  key: 'id',
  kinds: assetColumns,
  generatedKey: true,
}
