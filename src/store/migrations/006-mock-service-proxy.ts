import type { Migration } from './types.js'

/**
 * The outbound HTTP proxy of a mock service (the product's `proxy` object): the live
 * pass-through of its runtime (`proxyUrl`, `bypasslive`) connects through it. JSON
 * `{proxyUrl, nonProxyHosts, username, password}`, or NULL for direct connections.
 */
export const mockServiceProxySchema: Migration = {
  version: 6,
  name: 'mock service outbound proxy',
  sql: `
ALTER TABLE mock_services ADD COLUMN proxy TEXT CHECK (proxy IS NULL OR (json_valid(proxy) AND json_type(proxy) = 'object'));
`,
}
