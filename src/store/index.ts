export * from './types.js'
export type * from './repositories.js'
export { AssetFiles, type AssetBytes } from './asset-files.js'
export { StoredAssetFiles } from './stored-asset-files.js'
export { openSqliteStore } from './sqlite/sqlite-store.js'
export { writeThroughOwnConnection } from './own-write.js'
export { openPostgresStore } from './postgres/pg-store.js'
export { copySqliteToPostgres } from './postgres/copy-from-sqlite.js'
export { isConstraintViolation } from './constraint.js'
export {
  compileSearch,
  searchMetadata,
  type SearchScope,
  type CompiledSearchPlan,
} from './sqlite/search-compiler.js'
export { LOCAL_LOCATION } from './sqlite/search-entities.js'
export type * from './monitoring.js'
export { LocalWakeups, type Wakeups, type Waiter } from './wakeups.js'
export { PgWakeups } from './postgres/pg-wakeups.js'
