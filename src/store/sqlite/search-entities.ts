/*
 * The data model POST /api/v4/search sees (the administration specification, docs/api.md#search):
 * each entity's table, fields, relations and lists, and how visibility narrows it.
 * search-compiler.ts compiles requests against it; every SQL identifier of a search comes from
 * here, never from a request.
 */

export type FieldType = 'integer' | 'string' | 'boolean' | 'timestamp'

/** The SQL a search is compiled to: SQLite's (the embedded store) or PostgreSQL's. */
export type SearchDialect = 'sqlite' | 'postgres'

export interface FieldDef {
  /** Column of the entity's table. */
  column: string
  type: FieldType
  /** An expression instead of the column (given the table's alias), for a value read through another table. */
  sql?: (alias: string, dialect: SearchDialect) => string
}

/**
 * A many-valued relation: the transaction's tags (kept by name in `transaction_tags`). A filter on
 * it holds when one of its names satisfies the condition (an `EXISTS` over the link rows; `$ne`:
 * none is equal); in `fields`, `tags.*` or `tags.name` shows the list as an array of objects.
 */
export interface ListDef {
  entity: string
  /** The link rows of the entity row `e`, aliased `m`, the name in `m.name`, in their order (for showing). */
  rows: string
  /** The link table aliased `m` and the condition tying it to `e` (for filtering, served by its primary key). */
  link: { from: string; on: string }
  /** Joins the catalog entry `t` of a link row `m` (its id and description), or '' when there is none. */
  catalog: string
  /** The fields shown per item: name -> SQL over `m` and `t`. */
  fields: Readonly<Record<string, string>>
}

export interface EntityDef {
  table: string
  /** The field that identifies a row (default `id`). */
  key?: string
  fields: Readonly<Record<string, FieldDef>>
  /** Many-to-one relations: relation name -> (entity, foreign key column of this table), or the join condition given the target's alias. */
  relations: Readonly<
    Record<
      string,
      | { entity: string; column: string }
      | { entity: string; on: (alias: string, dialect: SearchDialect) => string }
    >
  >
  /** Many-valued relations (filters and fields only: a list cannot order). */
  lists?: Readonly<Record<string, ListDef>>
  /** How visibility narrows it: by workspace id, account id, the account itself, membership (users), or the bucket's workspace (monitoring tests). */
  scope: 'workspace' | 'account' | 'self-account' | 'self-workspace' | 'user' | 'bucket'
}

/** The workspace of the monitoring test row `alias` (through its bucket). */
function workspaceOfTest(alias: string): string {
  return `(SELECT b.workspace_id FROM monitor_buckets b WHERE b.key = ${alias}.bucket_key)`
}

/** The user who created the monitoring test row `alias` (its `created_by` author keeps the id as text). */
function ownerIdOf(alias: string, dialect: SearchDialect): string {
  return dialect === 'postgres'
    ? `CAST(CAST(${alias}.created_by AS json) ->> 'id' AS BIGINT)`
    : `CAST(json_extract(${alias}.created_by, '$.id') AS INTEGER)`
}

/** A constant as an SQL string literal (constants of this file only, never request values). */
function sqlText(value: string): string {
  return `'${value.replace(/'/g, "''")}'`
}

/**
 * The platform's one location, where mock services and monitoring runs execute: defined here
 * because search shows it and the store imports nothing from the API; src/api/local-location.ts
 * builds the full descriptor from it.
 */
export const LOCAL_LOCATION = {
  id: 'harbor-local',
  name: 'Local runtime host',
  provider: 'Private Locations',
} as const

/** Field definitions by type: the column they read. */
const integer = (column: string): FieldDef => ({ column, type: 'integer' })
const text = (column: string): FieldDef => ({ column, type: 'string' })
const boolean = (column: string): FieldDef => ({ column, type: 'boolean' })
const timestamp = (column: string): FieldDef => ({ column, type: 'timestamp' })

const audit: Record<string, FieldDef> = {
  created: timestamp('created'),
  updated: timestamp('updated'),
  createdBy: text('created_by'),
  updatedBy: text('updated_by'),
}

export const entities: Readonly<Record<string, EntityDef>> = {
  accounts: {
    table: 'accounts',
    fields: {
      id: integer('id'),
      name: text('name'),
      description: text('description'),
      created: audit['created']!,
      updated: audit['updated']!,
    },
    relations: {},
    scope: 'self-account',
  },
  workspaces: {
    table: 'workspaces',
    fields: {
      id: integer('id'),
      name: text('name'),
      enabled: boolean('enabled'),
      accountId: integer('account_id'),
      userId: integer('user_id'),
      created: audit['created']!,
      updated: audit['updated']!,
    },
    relations: {
      account: { entity: 'accounts', column: 'account_id' },
      owner: { entity: 'users', column: 'user_id' },
    },
    scope: 'self-workspace',
  },
  users: {
    table: 'users',
    fields: {
      id: integer('id'),
      email: text('email'),
      firstName: text('first_name'),
      lastName: text('last_name'),
      enabled: boolean('enabled'),
      created: audit['created']!,
      // the administration specification shows owners as {id, email, displayName}; the name, else
      // the e-mail (as /api/v4 shows users)
      displayName: {
        column: 'email',
        type: 'string',
        sql: (alias) =>
          `COALESCE(NULLIF(trim(${alias}.first_name || ' ' || ${alias}.last_name), ''), ${alias}.email)`,
      },
    },
    relations: {},
    scope: 'user',
  },
  projects: {
    table: 'projects',
    fields: {
      id: integer('id'),
      name: text('name'),
      description: text('description'),
      workspaceId: integer('workspace_id'),
      isDefault: boolean('is_default'),
      created: audit['created']!,
      updated: audit['updated']!,
    },
    relations: { workspace: { entity: 'workspaces', column: 'workspace_id' } },
    scope: 'workspace',
  },
  services: {
    table: 'services',
    fields: {
      id: integer('id'),
      name: text('name'),
      description: text('description'),
      workspaceId: integer('workspace_id'),
      ...audit,
    },
    relations: { workspace: { entity: 'workspaces', column: 'workspace_id' } },
    scope: 'workspace',
  },
  transactions: {
    table: 'transactions',
    fields: {
      id: integer('id'),
      name: text('name'),
      description: text('description'),
      dslType: text('dsl_type'),
      serviceId: integer('service_id'),
      workspaceId: integer('workspace_id'),
      ...audit,
    },
    relations: {
      service: { entity: 'services', column: 'service_id' },
      workspace: { entity: 'workspaces', column: 'workspace_id' },
    },
    lists: {
      tags: {
        entity: 'tags',
        rows: '(SELECT * FROM transaction_tags WHERE transaction_id = e.id ORDER BY position) m',
        link: { from: 'transaction_tags m', on: 'm.transaction_id = e.id' },
        catalog:
          'LEFT JOIN tags t ON t.name = m.name AND t.account_id = (SELECT w.account_id FROM workspaces w WHERE w.id = e.workspace_id)',
        fields: { id: 't.id', name: 'm.name', description: 't.description' },
      },
    },
    scope: 'workspace',
  },
  'mock-services': {
    table: 'mock_services',
    fields: {
      id: integer('id'),
      name: text('name'),
      description: text('description'),
      type: text('type'),
      status: text('status'),
      serviceId: integer('service_id'),
      workspaceId: integer('workspace_id'),
      ...audit,
    },
    relations: {
      service: { entity: 'services', column: 'service_id' },
      workspace: { entity: 'workspaces', column: 'workspace_id' },
    },
    scope: 'workspace',
  },
  tags: {
    table: 'tags',
    fields: {
      id: integer('id'),
      name: text('name'),
      description: text('description'),
      accountId: integer('account_id'),
      ...audit,
    },
    relations: { account: { entity: 'accounts', column: 'account_id' } },
    scope: 'account',
  },
  // The monitoring API's buckets and tests (the monitoring specification): a test is visible
  // through its bucket's workspace.
  buckets: {
    table: 'monitor_buckets',
    key: 'key',
    fields: {
      key: text('key'),
      name: text('name'),
      workspaceId: integer('workspace_id'),
      isDefault: boolean('is_default'),
      created: audit['created']!,
    },
    relations: { workspace: { entity: 'workspaces', column: 'workspace_id' } },
    scope: 'workspace',
  },
  /*
   * A test hit of the administration specification (`test-union`): the monitoring API's tests, with
   * the related objects a hit carries: its owner (the user who created it), workspace, project (the
   * workspace's default one: monitoring tests belong to no other), locations (the platform's local
   * location, the only one its runner runs from) and tags (monitoring tests have none: always an
   * empty list).
   */
  tests: {
    table: 'monitor_tests',
    fields: {
      id: text('id'),
      name: text('name'),
      description: text('description'),
      type: { column: 'id', type: 'string', sql: () => `'functionalApi'` },
      testType: { column: 'id', type: 'string', sql: () => `'functionalApi'` },
      bucketKey: text('bucket_key'),
      workspaceId: {
        column: 'bucket_key',
        type: 'integer',
        sql: (alias) =>
          `(SELECT b.workspace_id FROM monitor_buckets b WHERE b.key = ${alias}.bucket_key)`,
      },
      userId: { column: 'created_by', type: 'integer', sql: ownerIdOf },
      projectId: {
        column: 'bucket_key',
        type: 'integer',
        sql: (alias) =>
          `(SELECT p.id FROM projects p WHERE p.workspace_id = ${workspaceOfTest(alias)} AND p.is_default = TRUE)`,
      },
      defaultEnvironmentId: text('default_environment_id'),
      created: audit['created']!,
      updated: audit['updated']!,
    },
    relations: {
      bucket: { entity: 'buckets', on: (alias) => `${alias}.key = e.bucket_key` },
      workspace: { entity: 'workspaces', on: (alias) => `${alias}.id = ${workspaceOfTest('e')}` },
      owner: {
        entity: 'users',
        on: (alias, dialect) => `${alias}.id = ${ownerIdOf('e', dialect)}`,
      },
      project: {
        entity: 'projects',
        on: (alias) =>
          `${alias}.workspace_id = ${workspaceOfTest('e')} AND ${alias}.is_default = TRUE`,
      },
    },
    lists: {
      locations: {
        entity: 'locations',
        rows: `(SELECT ${sqlText(LOCAL_LOCATION.id)} AS id, ${sqlText(LOCAL_LOCATION.name)} AS name, ${sqlText(LOCAL_LOCATION.provider)} AS provider) m`,
        link: { from: `(SELECT ${sqlText(LOCAL_LOCATION.name)} AS name) m`, on: 'TRUE' },
        catalog: '',
        fields: { id: 'm.id', name: 'm.name', title: 'm.name', provider: 'm.provider' },
      },
      tags: {
        entity: 'tags',
        rows: '(SELECT CAST(NULL AS TEXT) AS id, CAST(NULL AS TEXT) AS name, CAST(NULL AS TEXT) AS description WHERE FALSE) m',
        link: { from: '(SELECT CAST(NULL AS TEXT) AS name WHERE FALSE) m', on: 'TRUE' },
        catalog: '',
        fields: { id: 'm.id', name: 'm.name', description: 'm.description' },
      },
    },
    scope: 'bucket',
  },
}

/** Other spellings clients use for an entity. */
export const entityAliases: Readonly<Record<string, string>> = {
  mockServices: 'mock-services',
  'service-mocks': 'mock-services',
  'test-union': 'tests',
}
