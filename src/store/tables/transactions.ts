import type { StoredTransaction } from '../types.js'
import type { ColumnKinds, TableSpec } from './columns.js'

/**
 * Every transaction field but its tags (kept in transaction_tags, one row per tag) with how its
 * column in transactions keeps it.
 */
export const transactionColumns = {
  id: 'value',
  workspaceId: 'value',
  serviceId: 'value',
  name: 'value',
  description: 'value',
  dslType: 'value',
  dsl: 'json',
  created: 'value',
  updated: 'value',
  createdBy: 'value',
  updatedBy: 'value',
} as const satisfies ColumnKinds<Omit<StoredTransaction, 'tags'>>

/** What `update` may change of a transaction (its tags are replaced on their own). */
export const transactionUpdatable = [
  'name',
  'description',
  'dsl',
  'serviceId',
  'dslType',
] as const satisfies ReadonlyArray<keyof StoredTransaction>

/** The transactions table: its name, key and columns. */
export const transactionTable: TableSpec<Omit<StoredTransaction, 'tags'>> = {
  table: 'transactions',
  key: 'id',
  kinds: transactionColumns,
  generatedKey: true,
}
