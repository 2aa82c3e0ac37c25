import type { Migration } from './types.js'

/**
 * The lists that grow on a large installation, other than transactions (migration 11), with the
 * same cheap total and change counter (docs/api.md "Lists"): an account's users, workspaces,
 * members, invitations and tags; a workspace's members, mock services, assets and services.
 * At 50,000 rows each call of such a list counted its scope (COUNT(*)) and skipped rows by
 * OFFSET: 5 ms for a first page of members, 20 ms for a far one (bench/README.md "Lists").
 *
 * - `list_counts (scope_kind, scope_id)`: per list and scope (`users`, account 1), how many rows
 *   it holds (`total`) and how many times one was inserted, changed or deleted (`version`), kept
 *   by triggers in the write's own transaction, so the cascade of a workspace or account delete
 *   and raw SQL keep it exact. These tables take no bulk inserts, so, unlike transactions, their
 *   inserts are counted by a trigger too. Rows are never deleted: `version` only grows.
 * - A member list shows its users' names and sorts by them: a change to a user changes the
 *   version of the member lists that user is in.
 * - One index per sort a list accepts, led by the scope (every SQLite index ends with the rowid,
 *   the id tie-breaker; invitations' text id is written out), so a page of any order is read
 *   from an index instead of sorting the scope.
 */

/** Lists counted here: its scope kind (the list's name), table and scope column. */
const counted: ReadonlyArray<readonly [kind: string, table: string, scope: string]> = [
  ['users', 'users', 'account_id'],
  ['workspaces', 'workspaces', 'account_id'],
  ['account_members', 'account_members', 'account_id'],
  ['workspace_members', 'workspace_members', 'workspace_id'],
  ['invitations', 'invitations', 'account_id'],
  ['tags', 'tags', 'account_id'],
  ['services', 'services', 'workspace_id'],
  ['mock_services', 'mock_services', 'workspace_id'],
  ['assets', 'assets', 'workspace_id'],
]

function countsOf(kind: string, table: string, scope: string): string {
  const add = (row: string, n: string) =>
    `INSERT INTO list_counts (scope_kind, scope_id, total, version) VALUES ('${kind}', ${row}.${scope}, ${n}, 1) ` +
    `ON CONFLICT (scope_kind, scope_id) DO UPDATE SET total = total + ${n}, version = version + 1;`
  return `
INSERT INTO list_counts (scope_kind, scope_id, total, version)
SELECT '${kind}', ${scope}, COUNT(*), COUNT(*) FROM ${table} GROUP BY ${scope};
CREATE TRIGGER list_counts_${kind}_insert AFTER INSERT ON ${table} BEGIN
  ${add('new', '1')}
END;
CREATE TRIGGER list_counts_${kind}_delete AFTER DELETE ON ${table} BEGIN
  ${add('old', '-1')}
END;
-- Any change may move a row in some sort; a move to another scope moves its count.
CREATE TRIGGER list_counts_${kind}_update AFTER UPDATE ON ${table} BEGIN
  ${add('old', '-1')}
  ${add('new', '1')}
END;`
}

const sql = `
CREATE TABLE list_counts (
  scope_kind TEXT NOT NULL,
  scope_id INTEGER NOT NULL,
  total INTEGER NOT NULL,
  version INTEGER NOT NULL,
  PRIMARY KEY (scope_kind, scope_id)
) STRICT, WITHOUT ROWID;
${counted.map(([kind, table, scope]) => countsOf(kind, table, scope)).join('\n')}

CREATE TRIGGER list_counts_member_users AFTER UPDATE ON users BEGIN
  UPDATE list_counts SET version = version + 1
  WHERE scope_kind = 'account_members' AND scope_id IN (SELECT account_id FROM account_members WHERE user_id = new.id);
  UPDATE list_counts SET version = version + 1
  WHERE scope_kind = 'workspace_members' AND scope_id IN (SELECT workspace_id FROM workspace_members WHERE user_id = new.id);
END;

CREATE INDEX IF NOT EXISTS users_account_email ON users (account_id, email);
CREATE INDEX IF NOT EXISTS users_account_name ON users (account_id, first_name COLLATE NOCASE, last_name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS users_account_first_name ON users (account_id, first_name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS users_account_last_name ON users (account_id, last_name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS users_account_enabled ON users (account_id, enabled);
CREATE INDEX IF NOT EXISTS users_account_created ON users (account_id, created);
CREATE INDEX IF NOT EXISTS users_account_last_access ON users (account_id, last_access);

CREATE INDEX IF NOT EXISTS workspaces_account_name ON workspaces (account_id, name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS workspaces_account_enabled ON workspaces (account_id, enabled);
CREATE INDEX IF NOT EXISTS workspaces_account_created ON workspaces (account_id, created);
CREATE INDEX IF NOT EXISTS workspaces_account_updated ON workspaces (account_id, updated);

CREATE INDEX IF NOT EXISTS account_members_account_created ON account_members (account_id, created, user_id);
CREATE INDEX IF NOT EXISTS account_members_account_updated ON account_members (account_id, updated, user_id);
CREATE INDEX IF NOT EXISTS account_members_account_enabled ON account_members (account_id, enabled, user_id);
CREATE INDEX IF NOT EXISTS workspace_members_workspace_created ON workspace_members (workspace_id, created, user_id);
CREATE INDEX IF NOT EXISTS workspace_members_workspace_updated ON workspace_members (workspace_id, updated, user_id);
CREATE INDEX IF NOT EXISTS workspace_members_workspace_enabled ON workspace_members (workspace_id, enabled, user_id);

DROP INDEX IF EXISTS invitations_account;
CREATE INDEX IF NOT EXISTS invitations_account_created ON invitations (account_id, created, id);
CREATE INDEX IF NOT EXISTS invitations_account_updated ON invitations (account_id, updated, id);
CREATE INDEX IF NOT EXISTS invitations_account_email ON invitations (account_id, invitee_email, id);

${['tags account_id', 'services workspace_id', 'mock_services workspace_id', 'assets workspace_id']
  .map((pair) => {
    const [table, scope] = pair.split(' ')
    return `CREATE INDEX IF NOT EXISTS ${table}_list_id ON ${table} (${scope});
CREATE INDEX IF NOT EXISTS ${table}_list_name ON ${table} (${scope}, name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS ${table}_list_created ON ${table} (${scope}, created);
CREATE INDEX IF NOT EXISTS ${table}_list_updated ON ${table} (${scope}, updated);
CREATE INDEX IF NOT EXISTS ${table}_list_created_by ON ${table} (${scope}, created_by COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS ${table}_list_updated_by ON ${table} (${scope}, updated_by COLLATE NOCASE);`
  })
  .join('\n')}
CREATE INDEX IF NOT EXISTS mock_services_list_status ON mock_services (workspace_id, status);
CREATE INDEX IF NOT EXISTS mock_services_list_type ON mock_services (workspace_id, type);
CREATE INDEX IF NOT EXISTS assets_list_type ON assets (workspace_id, type);
CREATE INDEX IF NOT EXISTS assets_list_size ON assets (workspace_id, size);
`

/**
 * SQLite migration 23: maintained counts and sort indexes for the lists other than transactions.
 *
 * @example
 * applyMigrations(db, migrations)
 */
export const listCountsSchema: Migration = {
  version: 23,
  name: 'maintained counts and sort indexes for the lists other than transactions',
  sql,
}
