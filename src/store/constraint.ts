/** The kinds of schema rule a write can break. */
type ConstraintKind = 'unique' | 'foreign-key' | 'check' | 'not-null'

/** SQLite's extended result codes and PostgreSQL's SQLSTATEs (class 23) of each kind. */
const kindOf: Readonly<Record<string, ConstraintKind>> = {
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_PRIMARYKEY: 'unique',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreign-key',
  // The SQLite schema's triggers only guard references (an asset's service in its workspace).
  SQLITE_CONSTRAINT_TRIGGER: 'foreign-key',
  SQLITE_CONSTRAINT_CHECK: 'check',
  SQLITE_CONSTRAINT_NOTNULL: 'not-null',
  '23505': 'unique',
  '23503': 'foreign-key',
  '23514': 'check',
  '23502': 'not-null',
}

/**
 * True when `err` is the store refusing a write that breaks a schema rule (of `kind`, when
 * given), on SQLite or PostgreSQL. The API checks conflicts itself first (409 for a taken name, a
 * service in use); this lets it answer a race that slipped past the check with the same status
 * instead of a 500.
 *
 * @example
 * try { await store.write((tx) => tx.services.create(input)) } catch (err) { if (isConstraintViolation(err, 'unique')) throw conflict() ; throw err }
 */
export function isConstraintViolation(err: unknown, kind?: ConstraintKind): boolean {
  if (!(err instanceof Error) || !('code' in err) || typeof err.code !== 'string') return false
  const found = Object.hasOwn(kindOf, err.code) ? kindOf[err.code] : undefined
  if (found === undefined) {
    // Any other SQLite constraint code (a future one) is still a constraint, of no known kind.
    return kind === undefined && err.code.startsWith('SQLITE_CONSTRAINT')
  }
  return kind === undefined || found === kind
}
