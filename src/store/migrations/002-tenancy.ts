import type { Migration } from './types.js'

/*
 * Tenancy: users in several accounts, workspace members with workspace roles, invitations,
 * projects, revocable API keys and the account fields the administration specification shows.
 *
 * - `account_members` is the truth about who belongs to which account with which roles;
 *   `users.account_id` / `users.account_roles` stay as the user's first ("home") account so that
 *   existing readers keep working, and are copied in here.
 * - `workspace_members` holds workspace roles (manager, tester, viewer). Account owners and admins
 *   see every workspace of their account without a row here.
 * - An invitation's token is unique; at most one pending invitation per (account, e-mail) is
 *   enforced by a partial unique index, so a duplicate is a constraint, not a race.
 * - `api_keys.revoked` (epoch ms): a revoked key stays listed, and is refused on its next request.
 */
const sql = /* sql */ `
ALTER TABLE accounts ADD COLUMN description TEXT;
ALTER TABLE accounts ADD COLUMN ai_consent INTEGER NOT NULL DEFAULT 0 CHECK (ai_consent IN (0, 1));
ALTER TABLE accounts ADD COLUMN welcome_link_text TEXT;
ALTER TABLE accounts ADD COLUMN welcome_link_url TEXT;

ALTER TABLE users ADD COLUMN updated INTEGER;
ALTER TABLE users ADD COLUMN active_workspace_id INTEGER;
UPDATE users SET updated = created;

ALTER TABLE api_keys ADD COLUMN revoked INTEGER;

CREATE TABLE account_members (
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  roles TEXT NOT NULL CHECK (json_valid(roles) AND json_type(roles) = 'array'),
  enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  PRIMARY KEY (account_id, user_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX account_members_user ON account_members (user_id, account_id);
INSERT INTO account_members (account_id, user_id, roles, enabled, created, updated)
  SELECT account_id, id, account_roles, enabled, created, created FROM users;

CREATE TABLE workspace_members (
  workspace_id INTEGER NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('manager', 'tester', 'viewer')),
  enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, user_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX workspace_members_user ON workspace_members (user_id, workspace_id);
INSERT INTO workspace_members (workspace_id, user_id, role, enabled, created, updated)
  SELECT id, user_id, 'manager', 1, created, created FROM workspaces;

CREATE TABLE invitations (
  id TEXT PRIMARY KEY NOT NULL,
  token TEXT NOT NULL UNIQUE,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  invitee_email TEXT NOT NULL COLLATE NOCASE,
  account_roles TEXT NOT NULL CHECK (json_valid(account_roles) AND json_type(account_roles) = 'array'),
  workspace_ids TEXT NOT NULL CHECK (json_valid(workspace_ids) AND json_type(workspace_ids) = 'array'),
  workspace_roles TEXT NOT NULL CHECK (json_valid(workspace_roles) AND json_type(workspace_roles) = 'array'),
  attach_automatically INTEGER NOT NULL CHECK (attach_automatically IN (0, 1)),
  status TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'rejected')),
  invited_by_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  invitee_user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL
) STRICT;
CREATE INDEX invitations_account ON invitations (account_id, created);
CREATE UNIQUE INDEX invitations_pending ON invitations (account_id, invitee_email) WHERE status = 'pending';

CREATE TABLE projects (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workspace_id INTEGER NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT,
  is_default INTEGER NOT NULL CHECK (is_default IN (0, 1)),
  user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL
) STRICT;
CREATE INDEX projects_workspace_name ON projects (workspace_id, name);
CREATE UNIQUE INDEX projects_default ON projects (workspace_id) WHERE is_default = 1;
INSERT INTO projects (workspace_id, name, description, is_default, user_id, created, updated)
  SELECT id, 'Default project', NULL, 1, user_id, created, created FROM workspaces;

-- Search: a substring filter on the name with ordering by time reads this index only
-- (covering), never the rows with their large dsl, until the page is known.
CREATE INDEX transactions_workspace_updated_name ON transactions (workspace_id, updated, name);
`

/**
 * Migration 2: accounts with several users, workspace members, invitations, projects, revocable keys.
 *
 * @example
 * applyMigrations(db, [initialSchema, tenancySchema])
 */
export const tenancySchema: Migration = {
  version: 2,
  name: 'tenancy: members, invitations, projects, key revocation',
  sql,
}
