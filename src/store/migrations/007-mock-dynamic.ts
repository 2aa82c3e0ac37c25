import type { Migration } from './types.js'

/**
 * Dynamic responses on mock service records: `cors`, `faults` (JSON, as the mock-service document writes
 * them), `templateSeed` and `matchHost`, which the deployer passes to the runtime.
 */
export const mockDynamicSchema: Migration = {
  version: 7,
  name: 'cors, faults and templateSeed of mock services',
  sql: `
ALTER TABLE mock_services ADD COLUMN cors TEXT CHECK (cors IS NULL OR json_valid(cors));
ALTER TABLE mock_services ADD COLUMN faults TEXT CHECK (faults IS NULL OR json_valid(faults));
ALTER TABLE mock_services ADD COLUMN template_seed INTEGER;
ALTER TABLE mock_services ADD COLUMN match_host INTEGER NOT NULL DEFAULT 0 CHECK (match_host IN (0, 1));
`,
}
