import type { Service, Tag } from '../types.js'
import type { ColumnKinds, TableSpec } from './columns.js'

/** Every Service field with how its column in services keeps it. */
export const serviceColumns = {
  id: 'value',
  workspaceId: 'value',
  name: 'value',
  description: 'value',
  created: 'value',
  updated: 'value',
  createdBy: 'value',
  updatedBy: 'value',
} as const satisfies ColumnKinds<Service>

/** Every Tag field with how its column in tags keeps it. */
export const tagColumns = {
  id: 'value',
  accountId: 'value',
  name: 'value',
  description: 'value',
  created: 'value',
  updated: 'value',
  createdBy: 'value',
  updatedBy: 'value',
} as const satisfies ColumnKinds<Tag>

/** The services table: its name, key and columns. */
export const serviceTable: TableSpec<Service> = {
  table: 'services',
  key: 'id',
  kinds: serviceColumns,
  generatedKey: true,
}

/** The tags table: its name, key and columns. */
export const tagTable: TableSpec<Tag> = {
  table: 'tags',
  key: 'id',
  kinds: tagColumns,
  generatedKey: true,
}
