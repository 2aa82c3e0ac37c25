/**
 * The library entry of the package (`import { createMockServer } from '@understudy-mock/understudy'`):
 * a mock server in process, the test helper, and the types of the DSL and of inspection queries.
 * docs/library.md documents it with examples.
 */
export {
  createMockServer,
  type MockServer,
  type MockServerOptions,
  type MockSource,
  type MockInspection,
  type MockScenarios,
} from './library/mock-server.js'
export { useUnderstudy, type UseUnderstudyOptions, type TestHooks } from './library/test-helper.js'
export type {
  InspectionFilter,
  InspectionListEntry,
  UnmatchedEntry,
  Verification,
  VerificationResult,
  VerificationMiss,
} from './inspect/index.js'
export type {
  MockServiceDocument,
  Transaction,
  TransactionDsl,
  RequestDsl,
  ResponseDsl,
  Matcher,
  DocumentInput,
  TransactionInput,
  DslInput,
  MatcherInput,
} from './dsl/index.js'
export type { RuntimeOptionsInput } from './config/index.js'
export type { LogLevel } from './log/index.js'
