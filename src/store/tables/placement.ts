import type { ShipAssignment } from '../types.js'
import type { ColumnKinds, TableSpec } from './columns.js'

/** Every ShipAssignment field with how its column in ship_assignments keeps it. */
export const shipAssignmentColumns = {
  mockServiceId: 'value',
  harborId: 'value',
  shipId: 'value',
  desired: 'value',
  document: 'json',
  documentHash: 'value',
  trackingId: 'value',
  placed: 'value',
  updated: 'value',
} as const satisfies ColumnKinds<ShipAssignment>

/** The ship_assignments table: its name, key and columns. */
export const shipAssignmentTable: TableSpec<ShipAssignment> = {
  table: 'ship_assignments',
  key: 'mockServiceId',
  kinds: shipAssignmentColumns,
  generatedKey: false,
}
