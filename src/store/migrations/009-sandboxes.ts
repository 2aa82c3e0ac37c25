import type { Migration } from './types.js'

/**
 * The sandbox a user opened in a workspace (`GET /api/v1/workspaces/{ws}/sandbox?transactionId=`):
 * the transaction that the following `POST .../sandbox/test-request` tests against when it names
 * none. One per user and workspace, kept in the store (not in the process) so that the two calls
 * may reach different platform instances or span a restart; it goes with its transaction.
 */
export const sandboxesSchema: Migration = {
  version: 9,
  name: 'sandboxes opened by users',
  sql: `
CREATE TABLE sandboxes (
  workspace_id INTEGER NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  transaction_id INTEGER NOT NULL REFERENCES transactions (id) ON DELETE CASCADE,
  opened INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, user_id)
) STRICT;
-- Deleting transactions (90,000 in one upload's rollback, say) looks their sandboxes up by this.
CREATE INDEX sandboxes_transaction ON sandboxes (transaction_id);
`,
}
