import type { MockSetting } from '../types.js'
import type { ColumnKinds, TableSpec } from './columns.js'

/** Every MockSetting field with how its column in mock_settings keeps it. */
export const mockSettingColumns = {
  id: 'value',
  workspaceId: 'value',
  kind: 'value',
  name: 'value',
  description: 'value',
  body: 'json',
  created: 'value',
  updated: 'value',
  createdBy: 'value',
  updatedBy: 'value',
} as const satisfies ColumnKinds<MockSetting>

/** What `update` may change of a mock setting. */
export const mockSettingUpdatable = [
  'name',
  'description',
  'body',
] as const satisfies ReadonlyArray<keyof MockSetting>

/** The mock_settings table: its name, key and columns. */
export const mockSettingTable: TableSpec<MockSetting> = {
  table: 'mock_settings',
  key: 'id',
  kinds: mockSettingColumns,
  generatedKey: true,
}
