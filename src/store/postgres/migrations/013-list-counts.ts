import type { Migration } from '../../migrations/types.js'

/*
 * SQLite migration 23 on PostgreSQL: the lists other than transactions read their total and
 * change counter from `list_counts (scope_kind, scope_id)`, kept by one statement trigger
 * function for every counted table (its scope kind and scope column as arguments), instead of
 * counting their scope on each call. Updates and deletes count both sides, so that a cascade (a workspace or
 * account delete) keeps it exact; a change to a user changes the version of the member lists it
 * is in (they show and sort by its name). TRUNCATE fires no row trigger: the one TRUNCATE of the
 * store (copy-from-sqlite.ts --force) sets the counts again.
 *
 * Every sort these lists accept gets an index led by the scope and ending with the id (a
 * PostgreSQL index does not end with the row as SQLite's do), so a page, and a keyset page after
 * a row, is read from an index instead of sorting the scope.
 */

/** Lists counted here: its scope kind, table and scope column (the same as SQLite's). */
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

/** Sorted lists over an audited table (tags, services, mock services, assets): their indexes. */
function auditIndexes(table: string, scope: string): string {
  return `CREATE INDEX ${table}_list_id ON ${table} (${scope}, id);
CREATE INDEX ${table}_list_name ON ${table} (${scope}, lower(name), id);
CREATE INDEX ${table}_list_created ON ${table} (${scope}, created, id);
CREATE INDEX ${table}_list_updated ON ${table} (${scope}, updated, id);
CREATE INDEX ${table}_list_created_by ON ${table} (${scope}, lower(created_by), id);
CREATE INDEX ${table}_list_updated_by ON ${table} (${scope}, lower(updated_by), id);`
}

const sql = /* sql */ `
CREATE TABLE list_counts (
  scope_kind TEXT NOT NULL,
  scope_id BIGINT NOT NULL,
  total BIGINT NOT NULL,
  version BIGINT NOT NULL,
  PRIMARY KEY (scope_kind, scope_id)
);

-- Statement triggers over the statement's transition tables (TG_ARGV: the scope kind, the scope
-- column): one upsert per scope a statement touches, not one per row. A row trigger updated the
-- scope's one counts row once per row: 50,000 versions of it in one INSERT ... SELECT, which the
-- next summary read stepped over (18 ms) until a vacuum.
CREATE FUNCTION list_counts_statement() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  upsert CONSTANT text := 'INSERT INTO list_counts (scope_kind, scope_id, total, version) '
    || 'SELECT %L, %I, %s * COUNT(*), COUNT(*) FROM %I GROUP BY %I '
    || 'ON CONFLICT (scope_kind, scope_id) DO UPDATE '
    || 'SET total = list_counts.total + excluded.total, version = list_counts.version + excluded.version';
BEGIN
  IF TG_OP <> 'INSERT' THEN
    EXECUTE format(upsert, TG_ARGV[0], TG_ARGV[1], -1, 'old_rows', TG_ARGV[1]);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    EXECUTE format(upsert, TG_ARGV[0], TG_ARGV[1], 1, 'new_rows', TG_ARGV[1]);
  END IF;
  RETURN NULL;
END;
$$;
${counted
  .map(
    ([kind, table, scope]) => `
INSERT INTO list_counts (scope_kind, scope_id, total, version)
SELECT '${kind}', ${scope}, COUNT(*), COUNT(*) FROM ${table} GROUP BY ${scope};
CREATE TRIGGER list_counts_${kind}_insert AFTER INSERT ON ${table} REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_statement('${kind}', '${scope}');
CREATE TRIGGER list_counts_${kind}_update AFTER UPDATE ON ${table} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_statement('${kind}', '${scope}');
CREATE TRIGGER list_counts_${kind}_delete AFTER DELETE ON ${table} REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_statement('${kind}', '${scope}');`,
  )
  .join('\n')}

CREATE FUNCTION list_counts_member_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE list_counts SET version = version + 1
  WHERE scope_kind = 'account_members'
    AND scope_id IN (SELECT account_id FROM account_members WHERE user_id IN (SELECT id FROM new_rows));
  UPDATE list_counts SET version = version + 1
  WHERE scope_kind = 'workspace_members'
    AND scope_id IN (SELECT workspace_id FROM workspace_members WHERE user_id IN (SELECT id FROM new_rows));
  RETURN NULL;
END;
$$;
CREATE TRIGGER list_counts_member_users AFTER UPDATE ON users REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_member_users();

CREATE INDEX users_account_id ON users (account_id, id);
CREATE INDEX users_account_email ON users (account_id, email, id);
CREATE INDEX users_account_name ON users (account_id, lower(first_name), lower(last_name), id);
CREATE INDEX users_account_first_name ON users (account_id, lower(first_name), id);
CREATE INDEX users_account_last_name ON users (account_id, lower(last_name), id);
CREATE INDEX users_account_enabled ON users (account_id, enabled, id);
CREATE INDEX users_account_created ON users (account_id, created, id);
CREATE INDEX users_account_last_access ON users (account_id, last_access, id);

CREATE INDEX workspaces_account_id ON workspaces (account_id, id);
CREATE INDEX workspaces_account_name ON workspaces (account_id, lower(name), id);
CREATE INDEX workspaces_account_enabled ON workspaces (account_id, enabled, id);
CREATE INDEX workspaces_account_created ON workspaces (account_id, created, id);
CREATE INDEX workspaces_account_updated ON workspaces (account_id, updated, id);

CREATE INDEX account_members_account_created ON account_members (account_id, created, user_id);
CREATE INDEX account_members_account_updated ON account_members (account_id, updated, user_id);
CREATE INDEX account_members_account_enabled ON account_members (account_id, enabled, user_id);
CREATE INDEX workspace_members_workspace_created ON workspace_members (workspace_id, created, user_id);
CREATE INDEX workspace_members_workspace_updated ON workspace_members (workspace_id, updated, user_id);
CREATE INDEX workspace_members_workspace_enabled ON workspace_members (workspace_id, enabled, user_id);

DROP INDEX IF EXISTS invitations_account;
CREATE INDEX invitations_account_created ON invitations (account_id, created, id);
CREATE INDEX invitations_account_updated ON invitations (account_id, updated, id);
CREATE INDEX invitations_account_email ON invitations (account_id, invitee_email, id);

${auditIndexes('tags', 'account_id')}
${auditIndexes('services', 'workspace_id')}
${auditIndexes('mock_services', 'workspace_id')}
${auditIndexes('assets', 'workspace_id')}
CREATE INDEX mock_services_list_service ON mock_services (workspace_id, service_id, id);
CREATE INDEX mock_services_list_status ON mock_services (workspace_id, status, id);
CREATE INDEX mock_services_list_type ON mock_services (workspace_id, type, id);
CREATE INDEX assets_list_service ON assets (workspace_id, service_id, id);
CREATE INDEX assets_list_type ON assets (workspace_id, type, id);
CREATE INDEX assets_list_size ON assets (workspace_id, size, id);
`

/**
 * PostgreSQL migration 13: maintained counts and sort indexes for the lists other than
 * transactions.
 *
 * @example
 * await applyPgMigrations(pool, pgMigrations)
 */
export const pgListCountsSchema: Migration = {
  version: 13,
  name: 'maintained counts and sort indexes for the lists other than transactions',
  sql,
}
