import type { Migration } from './types.js'

/**
 * Mock service templates and configurations: one table for both kinds (a name and a
 * JSON body per workspace), and the configuration a mock service uses.
 */
export const mockSettingsSchema: Migration = {
  version: 4,
  name: 'mock service templates and configurations',
  sql: `
CREATE TABLE mock_settings (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workspace_id INTEGER NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('configuration', 'template')),
  name TEXT NOT NULL,
  description TEXT,
  body TEXT NOT NULL CHECK (json_valid(body) AND json_type(body) = 'object'),
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  updated_by TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX mock_settings_name ON mock_settings (workspace_id, kind, name);
CREATE TABLE mock_service_configurations (
  mock_service_id INTEGER PRIMARY KEY NOT NULL REFERENCES mock_services (id) ON DELETE CASCADE,
  configuration_id INTEGER NOT NULL REFERENCES mock_settings (id) ON DELETE CASCADE
) STRICT;
CREATE INDEX mock_service_configurations_configuration ON mock_service_configurations (configuration_id);
`,
}
