export * from './types.js'
export type * from './repositories.js'
export { AssetFiles } from './asset-files.js'
export { openSqliteStore } from './sqlite/sqlite-store.js'
export { writeThroughOwnConnection } from './sqlite/own-connection.js'
export { isConstraintViolation } from './sqlite/constraint.js'
export {
  compileSearch,
  searchMetadata,
  type SearchScope,
  type CompiledSearchPlan,
} from './sqlite/search-compiler.js'
export { LOCAL_LOCATION } from './sqlite/search-entities.js'
export type * from './monitoring.js'
