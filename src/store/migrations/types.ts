/**
 * One step of the schema. Migrations are applied in `version` order, each in its own transaction,
 * and recorded in `schema_migrations`; a version once released is never edited, only followed by
 * a new one (the database of a user who already ran it would never see the edit).
 *
 * @example
 * const addColor: Migration = { version: 2, name: 'tag color', sql: 'ALTER TABLE tags ADD COLUMN color TEXT' }
 */
export interface Migration {
  /** 1, 2, 3...: strictly increasing, never reused. */
  version: number
  /** A short description, recorded next to the version. */
  name: string
  /** SQLite statements, run with `exec` inside the migration's transaction. */
  sql: string
  /**
   * Set when the migration rebuilds tables (SQLite's "12-step" ALTER: create new, copy, drop,
   * rename). Foreign keys are then switched off for its duration, because dropping a parent table
   * with them on would cascade, and `PRAGMA foreign_key_check` must find nothing before commit.
   */
  rebuildsTables?: boolean
}
